#if canImport(Glibc)
import Glibc
#endif

/// HTTP-date (RFC 9110 §5.6.7), the one reader of dates the library has: the
/// cache's Expires and Date, and Retry-After. A recipient must accept all three
/// forms: IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" (what senders must send:
/// read byte by byte in place, no string made), and the obsolete RFC 850
/// "Sunday, 06-Nov-94 08:49:37 GMT" and asctime "Sun Nov  6 08:49:37 1994".
/// Read by hand and in GMT, never through strptime or timegm, whose names and
/// zone follow the process's locale and TZ.
enum HTTPDate {
    /// Unix seconds of an HTTP-date in any of its three forms; nil if it is none.
    static func seconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        if let s = fixdate(b) { return s }
        return obsolete(String(decoding: b, as: UTF8.self))
    }

    static func seconds(_ text: String) -> Int64? {
        var t = text
        return t.withUTF8 { seconds($0) }
    }

    /// `seconds` as an IMF-fixdate (If-Modified-Since is sent as the server wrote
    /// Last-Modified; this is for tests and messages).
    static func format(seconds: Int64) -> String {
        var t = tm()
        var s = time_t(seconds)
        gmtime_r(&s, &t)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &t)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// IMF-fixdate, the fixed 29-byte layout.
    private static func fixdate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count == 29, b[3] == 0x2C, b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20,
            b[19] == 0x3A, b[22] == 0x3A, b[25] == 0x20, b[26] == 0x47, b[27] == 0x4D, b[28] == 0x54
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        // The month by its three letters, compared as one number.
        let code = UInt32(b[8]) << 16 | UInt32(b[9]) << 8 | UInt32(b[10])
        guard let month = monthCodes.firstIndex(of: code), let day = number(5, 2), let year = number(12, 4),
            let h = number(17, 2), let m = number(20, 2), let s = number(23, 2)
        else { return nil }
        return unixSeconds(year: year, month: month + 1, day: day, hour: h, minute: m, second: s)
    }

    /// RFC 850 and asctime: split on spaces, commas, dashes and colons.
    private static func obsolete(_ text: String) -> Int64? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == ":" })
        func number(_ s: Substring) -> Int? {
            !s.isEmpty && s.utf8.count <= 4 && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? Int(s) : nil
        }
        func month(_ s: Substring) -> Int? {
            guard s.utf8.count == 3 else { return nil }
            let code = s.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1 & ~0x20) }   // upper case
            return monthCodes.firstIndex { $0 & ~0x20_2020 == code & ~0x20_2020 }.map { $0 + 1 }
        }
        if tokens.count == 8, tokens[7] == "GMT" {
            // RFC 850 (or a loosely spaced IMF-fixdate): day name, day, month, year, h, m, s, GMT.
            guard var year = number(tokens[3]) else { return nil }
            if tokens[3].utf8.count == 2 { year = fullYear(twoDigit: year) }
            guard let mon = month(tokens[2]), let day = number(tokens[1]), let h = number(tokens[4]),
                let m = number(tokens[5]), let s = number(tokens[6])
            else { return nil }
            return unixSeconds(year: year, month: mon, day: day, hour: h, minute: m, second: s)
        }
        if tokens.count == 7 {
            // asctime: day name, month, day, h, m, s, year.
            guard let mon = month(tokens[1]), let day = number(tokens[2]), let year = number(tokens[6]),
                let h = number(tokens[3]), let m = number(tokens[4]), let s = number(tokens[5])
            else { return nil }
            return unixSeconds(year: year, month: mon, day: day, hour: h, minute: m, second: s)
        }
        return nil
    }

    /// RFC 850's two-digit year: the year with those digits that is not more than
    /// 50 years ahead of this one (RFC 9110 §5.6.7: one that appears more than 50
    /// years in the future is the most recent past year with those digits), and
    /// not 50 or more behind it: in 2026, 76 is 2076 and 77 is 1977; in 2051, 00
    /// is 2100.
    static func fullYear(twoDigit yy: Int, now: Int64 = Int64(time(nil))) -> Int {
        var s = time_t(now)
        var t = tm()
        gmtime_r(&s, &t)
        let thisYear = Int(t.tm_year) + 1900
        let year = thisYear - thisYear % 100 + yy
        if year > thisYear + 50 { return year - 100 }
        if year <= thisYear - 50 { return year + 100 }
        return year
    }

    /// Seconds since 1970 of a civil date and time in GMT (days from the civil date
    /// by Howard Hinnant's algorithm); nil for a field out of range, a day the month
    /// does not have (31 Feb) included.
    static func unixSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64? {
        guard (1900...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month, year), hour < 24,
            minute < 60, second <= 60
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static let monthCodes: [UInt32] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
    ]
    .map { m in m.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
}
