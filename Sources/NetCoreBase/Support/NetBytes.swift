#if canImport(Glibc)
import Glibc
#endif

/// A growable byte buffer on malloc, always followed by a NUL byte so text bodies
/// can be handed to C as strings. Its storage address is stable between appends,
/// which libcurl needs for POSTFIELDS.
public final class NetBytes: @unchecked Sendable {
    // Unchecked exclusivity: `count` is public, so every read from another module
    // (the C boundary's nc_response_body, say) would otherwise pay a dynamic
    // exclusivity check (a thread-local access set) for a plain load. Only the
    // owner appends, before the buffer is shared; nothing can overlap.
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<UInt8>?
    /// The number of bytes.
    @exclusivity(unchecked) public private(set) var count: Int = 0
    @exclusivity(unchecked) private var capacity: Int = 0

    /// No bytes.
    public init() {}

    /// A copy of `bytes`.
    public init(bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0, let src = bytes.baseAddress {
            _ = append(src, bytes.count)
        }
    }

    /// The UTF-8 bytes of `string`.
    public convenience init(_ string: String) {
        var s = string
        self.init()
        s.withUTF8 { buf in
            if let p = buf.baseAddress { _ = self.append(UnsafeRawPointer(p), buf.count) }
        }
    }

    /// Takes ownership of `base` (from malloc, `capacity` bytes, NUL at `count`).
    init(adopting base: UnsafeMutablePointer<UInt8>?, count: Int, capacity: Int) {
        self.base = base
        self.count = base == nil ? 0 : count
        self.capacity = base == nil ? 0 : capacity
    }

    deinit { free(base) }

    /// Makes room for `total` bytes (+1 for the NUL). False if memory is short.
    @discardableResult
    func reserve(_ total: Int) -> Bool {
        if total < capacity { return true }
        let (needed, overflow) = total.addingReportingOverflow(1)
        if overflow { return false }
        var newCapacity = Swift.max(capacity, 64)
        while newCapacity < needed {
            let (doubled, o) = newCapacity.multipliedReportingOverflow(by: 2)
            newCapacity = o ? needed : doubled
        }
        guard let p = realloc(base, newCapacity) else { return false }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
        return true
    }

    /// Appends `n` bytes. False (and nothing appended) if memory is short.
    @inline(__always)
    func append(_ src: UnsafeRawPointer, _ n: Int) -> Bool {
        let (total, overflow) = count.addingReportingOverflow(n)
        if overflow { return false }
        if total >= capacity, !reserve(total) { return false }
        guard let base else { return false }
        memcpy(base + count, src, n)
        count = total
        base[count] = 0
        return true
    }

    /// Forgets the contents, keeping the storage.
    func truncate() {
        count = 0
        base?[0] = 0
    }

    /// The bytes (non-NULL even when empty) — NUL-terminated. For C callers (the
    /// boundary, libcurl); Swift callers read `bytes`, `array` or `text`.
    package var pointer: UnsafePointer<UInt8> {
        if let base { return UnsafePointer(base) }
        return NetBytes.emptyPointer
    }

    /// The bytes, valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    /// The bytes copied into an array.
    public var array: [UInt8] { Array(bytes) }

    /// The bytes decoded as UTF-8, invalid sequences replaced.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    nonisolated(unsafe) private static let emptyPointer: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()
}
