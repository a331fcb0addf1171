import NetCore

/// Event-loop integration, Swift's way: requests awaited concurrently in a task
/// group; the client's thread resumes the tasks, no thread of yours blocks.
/// (A C or Python program with its own loop uses "callbacks": "queue", `fd` and
/// `dispatch()` instead: examples/c/event_loop.c.)
func eventLoop(_ base: String) async -> Bool {
    guard let client = client(#"{"base_url":"\#(base)","envelope":{}}"#) else { return false }
    defer { client.shutdown() }
    let paths = ["/users/7", "/env/code/ok", "/slow?ms=200"]
    let datas = await withTaskGroup(of: (Int, String).self) { group in
        for (i, path) in paths.enumerated() {
            group.addTask {
                switch await result(client, "GET", path) {
                case .success(let r): return (i, r.data?.text ?? "null")
                case .failure(let e): return (i, "error: \(e.message)")
                }
            }
        }
        var out = [String](repeating: "", count: paths.count)
        for await (i, text) in group {
            print("\(paths[i]) -> \(text)")   // in completion order
            out[i] = text
        }
        return out
    }
    let ada = #"{"id":7,"name":"Ada"}"#
    return datas == [ada, ada, #"{"slept_ms":200}"#]
}
