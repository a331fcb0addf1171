import NetCore

#if canImport(Glibc)
import Glibc
#endif

/// Download to a file: a 2xx body goes to disk (`path.part`, renamed on success) as
/// it arrives, not into memory; a non-2xx answer fails and leaves no file.
func download(_ base: String) async -> Bool {
    guard let client = client(#"{"base_url":"\#(base)"}"#) else { return false }
    defer { client.shutdown() }
    let dir = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : "/tmp"
    let path = "\(dir)/netcore-swift-download-\(getpid()).bin"
    let missing = "\(dir)/netcore-swift-missing-\(getpid()).bin"
    defer {
        unlink(path)
        unlink(missing)
    }
    func get(_ target: String, to file: String) async -> Result<Response, NetError> {
        do throws(NetError) {
            var r = try Request(method: "GET", target: target)
            try r.setOutputPath(file)
            return .success(try await client.send(r))
        } catch {
            return .failure(error)
        }
    }
    func size(_ file: String) -> Int {
        var st = stat()
        return stat(file, &st) == 0 ? Int(st.st_size) : -1
    }
    var ok = true
    if case .success(let r) = await get("/large?bytes=1048576", to: path) {
        print("GET /large -> \(r.status), \(size(path)) bytes in \(path)")
        ok = size(path) == 1_048_576 && r.body.count == 0
    } else {
        ok = false
    }
    if case .failure(let e) = await get("/status/404", to: missing) {
        print("GET /status/404 -> \(e.domain.name) \(e.code); file size \(size(missing)) (-1: no file)")
        ok = ok && e.domain == .http && size(missing) == -1
    } else {
        ok = false
    }
    return ok
}
