#if canImport(Glibc)
import Glibc
#endif

/// The files of stubs: a body file read, a directory of route files listed, a
/// recording written atomically (temporary file + rename, mode 0600).
enum StubFiles {
    /// Why a file or directory could not be read: strerror's text.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ text: UnsafeMutablePointer<CChar>?) { description = text.map { String(cString: $0) } ?? "unknown error" }
    }

    /// The whole file, or why not (strerror's text).
    static func read(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(strerror(errno))) }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(Failure(strerror(errno))) }
            if n == 0 { return .success(out) }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// The names of the `*.json` files of `dir`, sorted (byte order), or why not.
    static func jsonFiles(in dir: String) -> Result<[String], Failure> {
        guard let d = opendir(dir) else { return .failure(Failure(strerror(errno))) }
        defer { closedir(d) }
        var names: [String] = []
        while let ent = readdir(d) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw -> String in
                guard let base = raw.baseAddress else { return "" }
                return String(cString: base.assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(".json") && !name.hasPrefix(".") { names.append(name) }
        }
        return .success(names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    /// Whether `dir` is a directory this process can write into.
    static func isWritableDirectory(_ dir: String) -> Bool {
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        return access(dir, W_OK) == 0
    }

    /// Writes `bytes` to `path` atomically; nil, or why not.
    static func write(_ bytes: [UInt8], to path: String, tempTag: UInt64) -> String? {
        let temp = path + ".tmp-\(getpid())-\(tempTag)"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var written = 0
        var failure: String? = nil
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while written < raw.count {
                let n = Glibc.write(fd, base + written, raw.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = String(cString: strerror(errno))
                    return
                }
                written += n
            }
        }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temp, path) != 0 { failure = String(cString: strerror(errno)) }
        if failure != nil { unlink(temp) }
        return failure
    }
}
