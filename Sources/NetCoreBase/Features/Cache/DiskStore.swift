#if canImport(Glibc)
import Glibc
#endif

/// The on-disk store ("cache": {"dir", "disk_bytes"}): one file per entry, named
/// after its key's hash (`<16 hex digits>.nce`), that survives restarts.
///
/// Safe when torn, and when shared:
/// - a file is written whole to a temporary name in the same directory, then
///   renamed over the entry's name (rename is atomic on POSIX), so a reader — this
///   process or another — sees the old file or the new one, never half of one;
/// - each file carries a checksum (FNV-1a 64 of its payload) and its own key, so a
///   torn or corrupted file (a crash before the data reached the disk, a disk
///   error, an edit) or a hash collision is a miss; a corrupt file is removed;
/// - nothing is locked: two clients or two processes on one directory may both
///   write an entry (the last rename wins) or both evict (a file already gone is
///   fine; an open file stays readable after another process unlinks it).
///
/// File layout (little-endian): "NCC1", u32 version 1, u64 payload length, u64
/// checksum, then the payload: key, URL, response URL, status, stored-at and
/// fresh-until (Unix ms), must-revalidate, ETag, Last-Modified, the Vary pairs,
/// the header lines and the body (docs/caching.md).
///
/// Bounded by `disk_bytes`: the sizes of the files are summed when the store opens
/// and kept as they are written; past the bound the directory is listed and the
/// oldest files (by modification time) removed until 90% of it is left. With
/// several processes the sum is each one's estimate, corrected at each eviction.
///
/// Threads: any; file operations run on the calling thread (the one that drives
/// the transfer), outside the cache's lock.
final class DiskStore: @unchecked Sendable {
    let dir: String
    let limit: Int64
    private let lock = Lock()
    private var approxBytes: Int64 = 0
    private var tempCounter: UInt64 = 0

    static let magic: [UInt8] = Array("NCC1".utf8)
    static let version: UInt32 = 1
    static let headerSize = 24
    static let suffix = ".nce"

    /// Opens (creating it, mode 0700, if needed) the directory. Nil with the
    /// reason when it cannot be made or written.
    static func open(dir: String, limit: Int64) -> Result<DiskStore, NetError> {
        if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            return .failure(.invalidConfig("cannot create '\(dir)': \(String(cString: strerror(errno)))"))
        }
        if access(dir, W_OK | X_OK) != 0 {
            return .failure(.invalidConfig("cannot write to '\(dir)': \(String(cString: strerror(errno)))"))
        }
        let store = DiskStore(dir: dir, limit: limit)
        store.approxBytes = store.scan(removingStaleTemps: true).reduce(0) { $0 + $1.size }
        return .success(store)
    }

    private init(dir: String, limit: Int64) {
        self.dir = dir.hasSuffix("/") && dir.count > 1 ? String(dir.dropLast()) : dir
        self.limit = max(limit, 0)
    }

    var bytes: Int64 { lock.withLock { approxBytes } }

    func path(_ hash: UInt64) -> String {
        let hex = String(hash, radix: 16)
        return dir + "/" + String(repeating: "0", count: 16 - hex.count) + hex + DiskStore.suffix
    }

    // MARK: read

    /// The entry stored for `key`; nil when there is none, or it is unreadable
    /// (then removed) or another key's.
    func read(_ key: CacheKey) -> CacheEntry? {
        let file = path(key.hash)
        guard let bytes = DiskStore.readFile(file, limit: limit) else { return nil }
        guard let entry = DiskStore.decode(bytes) else {
            unlink(file)   // torn or corrupt: a miss, and gone
            return nil
        }
        return entry.key == key.text ? entry : nil
    }

    static func readFile(_ file: String, limit: Int64) -> [UInt8]? {
        let fd = Glibc.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 0, Int64(st.st_size) <= max(limit, 1 << 20) else { return nil }
        let size = Int(st.st_size)
        var buffer = [UInt8](repeating: 0, count: size)
        var done = 0
        let ok = buffer.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return size == 0 }
            while done < size {
                let n = Glibc.read(fd, base + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        return ok ? buffer : nil
    }

    // MARK: write

    /// What became of a write.
    enum WriteResult {
        case written
        /// Larger than disk_bytes: not written.
        case tooLarge
        /// The disk refused (nothing is left behind).
        case failed
    }

    /// Writes `e` atomically (temporary file + rename). Evicts old files past the bound.
    @discardableResult
    func write(_ e: CacheEntry) -> WriteResult {
        let data = DiskStore.encode(e)
        guard Int64(data.count) <= limit else { return .tooLarge }
        let final = path(e.keyHash)
        let counter = lock.withLock {
            tempCounter &+= 1
            return tempCounter
        }
        let temp = dir + "/.tmp-\(getpid())-\(counter)-\(e.keyHash & 0xffff)"
        let fd = Glibc.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failed }
        var written = 0
        let ok = data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            while written < data.count {
                let n = Glibc.write(fd, base + written, data.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return true
        }
        var old = stat()
        let replaced = stat(final, &old) == 0 ? Int64(old.st_size) : 0
        guard close(fd) == 0, ok, rename(temp, final) == 0 else {
            unlink(temp)
            return .failed
        }
        let over: Bool = lock.withLock {
            approxBytes += Int64(data.count) - replaced
            return approxBytes > limit
        }
        if over { evict() }
        return .written
    }

    /// Removes the oldest files until 90% of the bound is left.
    private func evict() {
        var files = scan(removingStaleTemps: false)
        var total = files.reduce(0) { $0 + $1.size }
        let target = limit - limit / 10
        files.sort { $0.mtime < $1.mtime }
        for f in files where total > target {
            if unlink(f.path) == 0 || errno == ENOENT { total -= f.size }
        }
        lock.withLock { approxBytes = total }
    }

    // MARK: remove

    func remove(_ key: CacheKey) {
        let file = path(key.hash)
        if let bytes = DiskStore.readFile(file, limit: limit), let e = DiskStore.decode(bytes), e.key != key.text {
            return   // another key's file
        }
        unlink(file)
    }

    /// Removes every entry (`prefix` nil) or those whose URL starts with `prefix`.
    func remove(urlPrefix prefix: String?) {
        var total: Int64 = 0
        for f in scan(removingStaleTemps: false) {
            if let prefix {
                guard let bytes = DiskStore.readFile(f.path, limit: limit), let e = DiskStore.decode(bytes) else {
                    unlink(f.path)   // unreadable: gone too
                    continue
                }
                if !e.url.hasPrefix(prefix) {
                    total += f.size
                    continue
                }
            }
            unlink(f.path)
        }
        lock.withLock { approxBytes = total }
    }

    /// The entry files (path, size, modification time). Temporary files older than
    /// ten minutes (a writer that died before its rename) are removed when asked.
    private func scan(removingStaleTemps: Bool) -> [(path: String, size: Int64, mtime: Int64)] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var found: [(path: String, size: Int64, mtime: Int64)] = []
        let now = Int64(time(nil))
        while let ent = readdir(d) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw -> String in
                guard let base = raw.baseAddress else { return "" }
                return String(cString: base.assumingMemoryBound(to: CChar.self))
            }
            let full = dir + "/" + name
            var st = stat()
            if name.hasPrefix(".tmp-") {
                if removingStaleTemps, stat(full, &st) == 0, now - Int64(st.st_mtim.tv_sec) > 600 { unlink(full) }
                continue
            }
            guard name.hasSuffix(DiskStore.suffix), stat(full, &st) == 0 else { continue }
            found.append(
                (full, Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)))
        }
        return found
    }

    // MARK: format

    static func encode(_ e: CacheEntry) -> [UInt8] {
        var p = [UInt8]()
        p.reserveCapacity(e.body.count + 512)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { p.append(contentsOf: $0) } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { p.append(contentsOf: $0) } }
        func str(_ s: String) {
            u32(UInt32(truncatingIfNeeded: s.utf8.count))
            p.append(contentsOf: s.utf8)
        }
        func opt(_ s: String?) {
            p.append(s == nil ? 0 : 1)
            if let s { str(s) }
        }
        str(e.key)
        str(e.url)
        str(String(cString: e.responseURL.pointer))
        u32(UInt32(bitPattern: e.status))
        u64(UInt64(bitPattern: e.storedAtMs))
        u64(UInt64(bitPattern: e.freshUntilMs))
        p.append(e.mustRevalidate ? 1 : 0)
        opt(e.etag)
        opt(e.lastModified)
        u32(UInt32(truncatingIfNeeded: e.vary.count))
        for (name, value) in e.vary {
            str(name)
            opt(value)
        }
        str(e.headerLines)
        u64(UInt64(e.body.count))
        p.append(contentsOf: e.body.bytes)

        var out = [UInt8]()
        out.reserveCapacity(headerSize + p.count)
        out.append(contentsOf: magic)
        withUnsafeBytes(of: version.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(p.count).littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: CacheKey.fnv1a(p).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: p)
        return out
    }

    /// The entry in `data`; nil for anything but a whole, intact file of this version.
    static func decode(_ data: [UInt8]) -> CacheEntry? {
        guard data.count >= headerSize, Array(data[0..<4]) == magic else { return nil }
        var r = Reader(data: data, at: 4)
        guard let version = r.u32(), version == DiskStore.version, let length = r.u64(), let sum = r.u64(),
            UInt64(data.count - headerSize) == length, CacheKey.fnv1a(data[headerSize...]) == sum
        else { return nil }
        guard let key = r.str(), let url = r.str(), let responseURL = r.str(), let status = r.u32(),
            let storedAt = r.u64(), let freshUntil = r.u64(), let must = r.byte(),
            let etag = r.opt(), let lastModified = r.opt(), let varyCount = r.u32(), varyCount <= 64
        else { return nil }
        var vary: [(name: String, value: String?)] = []
        for _ in 0..<varyCount {
            guard let name = r.str(), let value = r.opt() else { return nil }
            vary.append((name, value))
        }
        guard let lines = r.str(), let bodyLength = r.u64(), bodyLength == UInt64(data.count - r.at) else {
            return nil
        }
        let body = data[r.at...].withUnsafeBytes { NetBytes(bytes: $0) }
        let store = CacheEntry.headerStore(lines: lines)
        return CacheEntry(
            key: key, url: url, keyHash: CacheKey.fnv1a(key), responseURL: CString(responseURL),
            status: Int32(bitPattern: status), headers: store.headers, headerBytes: store.bytes, body: body,
            storedAtMs: Int64(bitPattern: storedAt), freshUntilMs: Int64(bitPattern: freshUntil),
            hasETag: (etag ?? nil) != nil, hasLastModified: (lastModified ?? nil) != nil, mustRevalidate: must != 0,
            vary: vary)
    }

    /// Bounds-checked reads over a file's bytes (a short file is nil, never a trap).
    private struct Reader {
        let data: [UInt8]
        var at: Int

        mutating func byte() -> UInt8? {
            guard at < data.count else { return nil }
            at += 1
            return data[at - 1]
        }
        mutating func u32() -> UInt32? {
            guard data.count - at >= 4 else { return nil }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(data[at + i]) << (8 * UInt32(i)) }
            at += 4
            return v
        }
        mutating func u64() -> UInt64? {
            guard data.count - at >= 8 else { return nil }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(data[at + i]) << (8 * UInt64(i)) }
            at += 8
            return v
        }
        mutating func str() -> String? {
            guard let n = u32(), Int(n) <= data.count - at else { return nil }
            let s = String(decoding: data[at..<(at + Int(n))], as: UTF8.self)
            at += Int(n)
            return s
        }
        /// An optional string: nil when unreadable, .some(nil) when absent.
        mutating func opt() -> String?? {
            guard let flag = byte() else { return nil }
            if flag == 0 { return .some(nil) }
            guard let s = str() else { return nil }
            return .some(s)
        }
    }
}
