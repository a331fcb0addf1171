#if canImport(Glibc)
import Glibc
#endif

/// A small writer of compact JSON text for events and metrics: no jansson objects,
/// no Strings in between — bytes written in place into one malloc'd buffer, so an
/// event costs a few hundred instructions, not thousands. Non-copyable: the buffer
/// has one owner and is freed with it.
struct JSONText: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var first = true

    init(capacity: Int = 384) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        base[0] = UInt8(ascii: "{")
        count = 1
    }

    deinit { base.deallocate() }

    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if n > capacity - count { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        let wanted = max(capacity * 2, count + n + 64)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: wanted)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
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

    @inline(__always)
    mutating func int<I: BinaryInteger>(_ k: StaticString, _ v: I?) {
        key(k)
        guard let v else { append("null"); return }
        decimal(Int64(clamping: v))
    }

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

    mutating func null(_ k: StaticString) {
        key(k)
        append("null")
    }

    /// The object closed, as a String.
    consuming func finished() -> String {
        byte(UInt8(ascii: "}"))
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// The object closed, as NUL-terminated text lent to `body` with its length
    /// (for a C callback: no String is made).
    consuming func withText<R>(_ body: (UnsafePointer<CChar>, Int) -> R) -> R {
        byte(UInt8(ascii: "}"))
        let length = count
        byte(0)
        return base.withMemoryRebound(to: CChar.self, capacity: count) { body($0, length) }
    }

    /// `v` in decimal.
    private mutating func decimal(_ v: Int64) {
        reserve(20)
        if v < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var m = v.magnitude
        var digits = 0
        var probe = m
        repeat {
            digits += 1
            probe /= 10
        } while probe > 0
        var i = count + digits
        count = i
        repeat {
            i -= 1
            base[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
            m /= 10
        } while m > 0
    }

    private mutating func quote(_ s: String) {
        let done: Bool? = s.utf8.withContiguousStorageIfAvailable { u in
            // Most text needs no escape: copy it whole.
            for b in u where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
            reserve(u.count + 2)
            base[count] = UInt8(ascii: "\"")
            count += 1
            if let p = u.baseAddress { bytes(p, u.count) }
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
