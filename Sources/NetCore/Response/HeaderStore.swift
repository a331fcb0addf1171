#if canImport(Glibc)
import Glibc
#endif

/// Response header lines of the final response, stored as "name\0value\0" in one
/// buffer so C callers can borrow NUL-terminated strings that live as long as the
/// response. Filled by libcurl's header callback; a new status line (redirect,
/// 100 Continue) starts over.
public final class HeaderStore: @unchecked Sendable {
    private let buffer = ByteBuffer()
    /// Byte offsets of each (name, value) pair in `buffer`.
    private var offsets: [(name: Int, value: Int)] = []
    /// Raw bytes received for the current response's headers.
    private(set) var receivedBytes = 0

    init() {}

    public var count: Int { offsets.count }

    /// Records one raw header line from libcurl ("Name: value\r\n", a status line
    /// or the blank line ending the block). False if memory is short.
    func add(line: UnsafeRawBufferPointer) -> Bool {
        receivedBytes += line.count
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var end = line.count
        while end > 0 && (base[end - 1] == 0x0A || base[end - 1] == 0x0D) { end -= 1 }
        if end >= 5 && memcmp(base, "HTTP/", 5) == 0 {
            reset()
            receivedBytes = line.count
            return true
        }
        if end == 0 { return true }
        // Folded continuation lines (obsolete) are ignored; so are lines without ':'.
        if base[0] == 0x20 || base[0] == 0x09 { return true }
        guard let colon = (0..<end).first(where: { base[$0] == UInt8(ascii: ":") }), colon > 0 else { return true }
        var vStart = colon + 1
        while vStart < end && (base[vStart] == 0x20 || base[vStart] == 0x09) { vStart += 1 }
        var vEnd = end
        while vEnd > vStart && (base[vEnd - 1] == 0x20 || base[vEnd - 1] == 0x09) { vEnd -= 1 }
        let nameOffset = buffer.count
        var zero: UInt8 = 0
        guard buffer.append(base, colon), buffer.append(&zero, 1) else { return false }
        let valueOffset = buffer.count
        guard buffer.append(base + vStart, vEnd - vStart), buffer.append(&zero, 1) else { return false }
        offsets.append((nameOffset, valueOffset))
        return true
    }

    private func reset() {
        offsets.removeAll(keepingCapacity: true)
        // Keep the storage; later lines overwrite from the start.
        buffer.truncate()
    }

    /// The first value of header `name` (case-insensitive), borrowed.
    public func value(_ name: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        let base = UnsafeRawPointer(buffer.pointer)
        for (n, v) in offsets where strcasecmp(base.advanced(by: n).assumingMemoryBound(to: CChar.self), name) == 0 {
            return base.advanced(by: v).assumingMemoryBound(to: CChar.self)
        }
        return nil
    }

    public func value(_ name: String) -> String? {
        name.withCString { value($0).map { String(cString: $0) } }
    }

    /// Header `index` as borrowed C strings.
    public func entry(_ index: Int) -> (name: UnsafePointer<CChar>, value: UnsafePointer<CChar>)? {
        guard index >= 0, index < offsets.count else { return nil }
        let base = UnsafeRawPointer(buffer.pointer)
        let (n, v) = offsets[index]
        return (base.advanced(by: n).assumingMemoryBound(to: CChar.self),
                base.advanced(by: v).assumingMemoryBound(to: CChar.self))
    }

    /// Every header as Swift strings, in order.
    public var all: [(name: String, value: String)] {
        (0..<offsets.count).compactMap { i in entry(i).map { (String(cString: $0.name), String(cString: $0.value)) } }
    }
}
