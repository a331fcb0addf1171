// netcore-examples — the examples' stories in Swift, one file each.
// usage: swift run netcore-examples STORY BASE_URL [DIRECTORY]
//        (make mock prints a BASE_URL; STORY: quickstart, envelopes, cancel,
//         event-loop, download, endpoints, retry, or all)
// Each story prints what it shows and returns false on an unexpected result; the
// process then exits 1, so Tests/C/run.sh proves every story against the mock API.
import NetCore

#if canImport(Glibc)
import Glibc
#endif

let stories: [(String, (String) async -> Bool)] = [
    ("quickstart", quickStart), ("envelopes", envelopes), ("cancel", cancellation),
    ("event-loop", eventLoop), ("download", download), ("endpoints", endpoints), ("retry", retry)
]

let args = CommandLine.arguments
guard args.count == 3 || args.count == 4, args[1] == "all" || stories.contains(where: { $0.0 == args[1] }) else {
    print("usage: netcore-examples \(stories.map(\.0).joined(separator: "|"))|all BASE_URL [DIRECTORY]")
    exit(2)
}
var ok = true
for (name, story) in stories where args[1] == "all" || args[1] == name {
    print("== \(name)")
    if !(await story(args[2])) {
        print("unexpected result in \(name)")
        ok = false
    }
}
exit(ok ? 0 : 1)

/// A client from a JSON configuration (docs/configuration.md), as C and Python use.
func client(_ json: String) -> NetClient? {
    do throws(NetError) {
        return try NetClient(json: json)
    } catch {
        print("configuration refused: \(error.message)")
        return nil
    }
}

/// The outcome of one send, as a value.
func result(_ client: NetClient, _ method: String = "GET", _ target: String) async -> Result<Response, NetError> {
    do throws(NetError) {
        return .success(try await client.send(try Request(method: method, target: target)))
    } catch {
        return .failure(error)
    }
}
