import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The header lines of a final response. libcurl's header callback (ncsink.c)
/// stores them raw ("Name: value\r\n" each), and they arrive behind the body in
/// its block; the first lookup indexes them in place, turning each line into
/// "name\0value\0" so C callers can borrow NUL-terminated strings that live as
/// long as the response. Responses whose headers are never read never pay for the
/// parse.
///
/// Threads: any; the one-time index is built under a lock.
public final class HeaderStore: @unchecked Sendable {
    /// The raw lines (NUL-terminated); nil when there are none.
    private let raw: UnsafeMutablePointer<CChar>?
    private let rawCount: Int
    /// What keeps the storage of `raw` alive: the response's body buffer, in whose
    /// block the lines arrive (ncsink_take).
    private let owner: AnyObject?
    /// Byte offsets of each (name, value) pair in `raw`, made on first use.
    private let index = Mutex<[(name: Int, value: Int)]?>(nil)

    /// No headers.
    init() {
        raw = nil
        rawCount = 0
        owner = nil
    }

    /// Uses `lines` (`count` bytes plus a NUL) inside storage that `owner` keeps
    /// alive; the lines are rewritten in place when indexed.
    init(lines: UnsafeMutablePointer<CChar>, count: Int, owner: AnyObject) {
        raw = count > 0 ? lines : nil
        rawCount = max(count, 0)
        self.owner = owner
    }

    /// How many header lines the response has.
    public var count: Int { offsets { $0.count } }

    /// The size of the header lines as received (what a cache counts them for).
    var byteCount: Int { rawCount }

    /// Runs `body` with the index, building it on first use.
    private func offsets<T>(_ body: ([(name: Int, value: Int)]) -> T) -> T {
        index.withLock { state in
            if let made = state { return body(made) }
            let made = buildIndex()
            state = made
            return body(made)
        }
    }

    /// Splits the raw lines in place. Lines without ':' (or with an empty name) and
    /// obsolete folded continuation lines are left out.
    private func buildIndex() -> [(name: Int, value: Int)] {
        guard let raw else { return [] }
        var result: [(name: Int, value: Int)] = []
        let bytes = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: UInt8.self)
        var start = 0
        while start < rawCount {
            var end = start
            while end < rawCount && bytes[end] != 0x0A { end += 1 }
            let next = end + 1
            var lineEnd = end
            while lineEnd > start && (bytes[lineEnd - 1] == 0x0D || bytes[lineEnd - 1] == 0x0A) { lineEnd -= 1 }
            defer { start = next }
            guard lineEnd > start, bytes[start] != 0x20, bytes[start] != 0x09 else { continue }
            var colon = start
            while colon < lineEnd && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < lineEnd, colon > start else { continue }
            var vStart = colon + 1
            while vStart < lineEnd && (bytes[vStart] == 0x20 || bytes[vStart] == 0x09) { vStart += 1 }
            var vEnd = lineEnd
            while vEnd > vStart && (bytes[vEnd - 1] == 0x20 || bytes[vEnd - 1] == 0x09) { vEnd -= 1 }
            // The value's terminator lands at or before the line's '\r'/'\n' (or the
            // buffer's final NUL), so no later line is touched.
            bytes[colon] = 0
            bytes[vEnd] = 0
            result.append((start, vStart))
        }
        return result
    }

    /// Calls `body` with each header's name and value (bytes, not NUL-terminated;
    /// the value without surrounding blanks), in order, without building the index:
    /// for a reader that wants a few headers once (the cache, Freshness.swift) and
    /// should not pay for indexing all of them. Under the index's lock.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        guard let raw else { return }
        let bytes = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: UInt8.self)
        index.withLock { state in
            if let made = state {
                for (n, v) in made {
                    body(
                        UnsafeBufferPointer(start: bytes + n, count: strlen(raw + n)),
                        UnsafeBufferPointer(start: bytes + v, count: strlen(raw + v)))
                }
                return
            }
            // memchr finds the line ends and colons: a byte loop cost four times as much.
            var start = 0
            while start < rawCount {
                let end =
                    memchr(bytes + start, 0x0A, rawCount - start).map {
                        $0.assumingMemoryBound(to: UInt8.self) - bytes
                    } ?? rawCount
                let next = end + 1
                var lineEnd = end
                while lineEnd > start && (bytes[lineEnd - 1] == 0x0D || bytes[lineEnd - 1] == 0x0A) { lineEnd -= 1 }
                defer { start = next }
                guard lineEnd > start, bytes[start] != 0x20, bytes[start] != 0x09 else { continue }
                guard
                    let colon = memchr(bytes + start, 0x3A, lineEnd - start).map({
                        $0.assumingMemoryBound(to: UInt8.self) - bytes
                    }), colon > start
                else { continue }
                var vStart = colon + 1
                while vStart < lineEnd && (bytes[vStart] == 0x20 || bytes[vStart] == 0x09) { vStart += 1 }
                var vEnd = lineEnd
                while vEnd > vStart && (bytes[vEnd - 1] == 0x20 || bytes[vEnd - 1] == 0x09) { vEnd -= 1 }
                body(
                    UnsafeBufferPointer(start: bytes + start, count: colon - start),
                    UnsafeBufferPointer(start: bytes + vStart, count: vEnd - vStart))
            }
        }
    }

    /// The first value of header `name` (case-insensitive), borrowed: for the C
    /// boundary; Swift callers use `value(_: String)`.
    package func value(_ name: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        guard let raw else { return nil }
        let base = UnsafePointer(raw)
        return offsets { list in
            for (n, v) in list where ncascii_equal(base + n, name) != 0 { return base + v }
            return nil
        }
    }

    /// The value of the first header of that name (case-insensitive), nil if absent.
    public func value(_ name: String) -> String? {
        name.withCString { value($0).map { String(cString: $0) } }
    }

    /// Header `index` as borrowed C strings: for the C boundary; Swift callers use `all`.
    package func entry(_ i: Int) -> (name: UnsafePointer<CChar>, value: UnsafePointer<CChar>)? {
        guard let raw else { return nil }
        let base = UnsafePointer(raw)
        return offsets { list in
            guard i >= 0, i < list.count else { return nil }
            return (base + list[i].name, base + list[i].value)
        }
    }

    /// Every header as Swift strings, in order.
    public var all: [(name: String, value: String)] {
        (0..<count).compactMap { i in entry(i).map { (String(cString: $0.name), String(cString: $0.value)) } }
    }
}
