/// Decimal digits of an integer written straight into bytes: what `String(v)` prints,
/// without the generic integer printing it goes through (JSONText's numbers, a
/// signature's timestamp).
enum DecimalDigits {
    /// The most bytes `write` uses: "-9223372036854775808".
    static var maxCount: Int { 20 }

    /// Writes `v` in decimal at `out`, which has room for `maxCount` bytes; returns
    /// how many it wrote.
    @inline(__always)
    static func write(_ v: Int64, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if v < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        var m = v.magnitude
        // Digits counted by multiplying (a division costs several times more);
        // 10^19 is the last power of ten below UInt64.max.
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, m >= power {
            digits += 1
            power &*= 10
        }
        var i = n + digits
        let end = i
        repeat {
            i -= 1
            out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
            m /= 10
        } while m > 0
        return end
    }

    /// `v` in decimal, as `String(v)` gives it (a small string: no malloc).
    static func string(_ v: Int64) -> String {
        String(unsafeUninitializedCapacity: maxCount) { out in
            guard let p = out.baseAddress else { return 0 }
            return write(v, into: p)
        }
    }
}
