#if canImport(Glibc)
import Glibc
#endif

/// A small writer of compact JSON text for events and metrics: no jansson objects,
/// no Strings in between — bytes written in place into one malloc'd buffer, so an
/// event costs a few hundred instructions, not thousands. Non-copyable: the buffer
/// has one owner and is freed with it. `withLentBuffer` writes into a stack buffer
/// instead (an event's text: no malloc at all unless it outgrows it).
struct JSONText: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var first = true
    /// `base` was allocated here (freed with this value), not lent by `withLentBuffer`.
    private var owned: Bool

    init(capacity: Int = 384) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        owned = true
        base[0] = UInt8(ascii: "{")
        count = 1
    }

    /// Writes into the `capacity` (16 or more) bytes at `storage`, which must
    /// outlive this value; moves to the heap only if the text outgrows them.
    private init(lending storage: UnsafeMutablePointer<UInt8>, capacity: Int) {
        base = storage
        self.capacity = capacity
        owned = false
        base[0] = UInt8(ascii: "{")
        count = 1
    }

    /// Runs `body` with a JSONText whose first 512 bytes are on the stack: an
    /// event's text (300–450 bytes) costs no malloc and no free.
    @inline(__always)
    static func withLentBuffer<R>(_ body: (inout JSONText) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { storage in
            // (A temporary allocation of 512 always has a base address.)
            var o = storage.baseAddress.map { JSONText(lending: $0, capacity: storage.count) } ?? JSONText()
            return body(&o)
        }
    }

    deinit { if owned { base.deallocate() } }

    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if n > capacity - count { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        let wanted = max(capacity * 2, count + n + 64)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: wanted)
        bigger.update(from: base, count: count)
        if owned { base.deallocate() }
        base = bigger
        owned = true
        capacity = wanted
    }

    @inline(__always)
    private mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always)
    private mutating func bytes(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + count).update(from: p, count: n)
        count += n
    }

    @inline(__always)
    private mutating func append(_ s: StaticString) {
        bytes(s.utf8Start, s.utf8CodeUnitCount)
    }

    @inline(__always)
    private mutating func key(_ k: StaticString) {
        reserve(k.utf8CodeUnitCount + 4)
        if !first {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        first = false
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: k.utf8Start, count: k.utf8CodeUnitCount)
        count += k.utf8CodeUnitCount + 1
        base[count] = UInt8(ascii: "\"")
        base[count + 1] = UInt8(ascii: ":")
        count += 2
    }

    @inline(__always)
    mutating func string(_ k: StaticString, _ v: String?) {
        key(k)
        guard let v else { append("null"); return }
        quote(v)
    }

    /// Member `k` with the string `v`, which needs no escape (a name of this
    /// library's, e.g. an event kind's: HooksCoreTests checks them).
    @inline(__always)
    mutating func literal(_ k: StaticString, _ v: StaticString) {
        key(k)
        reserve(v.utf8CodeUnitCount + 2)
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: v.utf8Start, count: v.utf8CodeUnitCount)
        count += v.utf8CodeUnitCount + 1
        base[count] = UInt8(ascii: "\"")
        count += 1
    }

    @inline(__always)
    mutating func int<I: BinaryInteger>(_ k: StaticString, _ v: I?) {
        key(k)
        guard let v else { append("null"); return }
        decimal(Int64(clamping: v))
    }

    @inline(__always)
    mutating func bool(_ k: StaticString, _ v: Bool) {
        key(k)
        if v { append("true") } else { append("false") }
    }

    /// Opens a nested object as member `k`; close it with `endObject()`.
    mutating func beginObject(_ k: StaticString) {
        key(k)
        byte(UInt8(ascii: "{"))
        first = true
    }

    mutating func endObject() {
        byte(UInt8(ascii: "}"))
        first = false
    }

    /// Opens an array as member `k`: add objects with `element(_:)`, close it with
    /// `endArray()`.
    mutating func beginArray(_ k: StaticString) {
        key(k)
        byte(UInt8(ascii: "["))
        first = true
    }

    /// One object of an open array (consumed).
    mutating func element(_ other: consuming JSONText) {
        if !first { byte(UInt8(ascii: ",")) }
        first = false
        other.byte(UInt8(ascii: "}"))
        bytes(other.base, other.count)
    }

    mutating func endArray() {
        byte(UInt8(ascii: "]"))
        first = false
    }

    @inline(__always)
    mutating func null(_ k: StaticString) {
        key(k)
        append("null")
    }

    /// The object closed, as a String.
    mutating func finished() -> String {
        byte(UInt8(ascii: "}"))
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// The object closed, as NUL-terminated text lent to `body` with its length
    /// (for a C callback: no String is made).
    mutating func withText<R>(_ body: (UnsafePointer<CChar>, Int) -> R) -> R {
        byte(UInt8(ascii: "}"))
        let length = count
        byte(0)
        return base.withMemoryRebound(to: CChar.self, capacity: count) { body($0, length) }
    }

    /// `v` in decimal.
    private mutating func decimal(_ v: Int64) {
        reserve(DecimalDigits.maxCount)
        count += DecimalDigits.write(v, into: base + count)
    }

    /// Whether any of the `n` bytes at `p` must be escaped in a JSON string (a
    /// control byte, '"' or a backslash): eight bytes a step, with the word tests "has a
    /// byte below 0x20" and "has a zero byte" (of the word xor'ed with '"' or a backslash
    /// in every byte). Each test is exact as a yes/no (bytes of 0x80 and above,
    /// UTF-8's, count as neither).
    static func needsEscape(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(p)
        var i = 0
        while n - i >= 8 {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = x ^ (ones &* 0x22), b = x ^ (ones &* 0x5c)
            let below = (x &- ones &* 0x20) & ~x
            let zeros = ((q &- ones) & ~q) | ((b &- ones) & ~b)
            if (below | zeros) & highs != 0 { return true }
            i += 8
        }
        while i < n {
            let c = p[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    private mutating func quote(_ s: String) {
        let done: Bool? = s.utf8.withContiguousStorageIfAvailable { u in
            // Most text needs no escape: copy it whole.
            guard let p = u.baseAddress else { return false }
            if JSONText.needsEscape(p, u.count) { return false }
            reserve(u.count + 2)
            base[count] = UInt8(ascii: "\"")
            count += 1
            bytes(p, u.count)
            base[count] = UInt8(ascii: "\"")
            count += 1
            return true
        }
        if done == true { return }
        byte(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): byte(UInt8(ascii: "\\")); byte(b)
            case UInt8(ascii: "\\"): byte(UInt8(ascii: "\\")); byte(b)
            case UInt8(ascii: "\n"): byte(UInt8(ascii: "\\")); byte(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): byte(UInt8(ascii: "\\")); byte(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): byte(UInt8(ascii: "\\")); byte(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                append("\\u00")
                byte(hex.utf8Start[Int(b >> 4)])
                byte(hex.utf8Start[Int(b & 0xF)])
            default: byte(b)   // UTF-8 passes through (a String is valid UTF-8)
            }
        }
        byte(UInt8(ascii: "\""))
    }
}
