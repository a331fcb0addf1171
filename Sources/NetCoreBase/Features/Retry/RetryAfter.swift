#if canImport(Glibc)
import Glibc
#endif

/// The Retry-After header (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date
/// in any of the three forms a recipient must accept (IMF-fixdate "Sun, 06 Nov 1994
/// 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT", asctime "Sun Nov  6
/// 08:49:37 1994"). Parsed by hand: strptime's month and day names follow the
/// process's locale.
enum RetryAfter {
    /// The wait the header asks for, ms from `nowSeconds` (Unix time); 0 for a date
    /// in the past; nil when the value is neither form.
    static func delayMs(_ value: String, nowSeconds: Int64) -> Int64? {
        let text = value.trimmingSpaces
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Seconds; a huge number waits "very long" (the cap applies).
            guard let s = Int64(text) else { return Int64.max }
            return s.multipliedReportingOverflow(by: 1000).overflow ? Int64.max : s * 1000
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date - nowSeconds
        return seconds <= 0 ? 0 : (seconds.multipliedReportingOverflow(by: 1000).overflow ? Int64.max : seconds * 1000)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Unix time of an HTTP-date, nil if it is not one.
    static func httpDate(_ text: String) -> Int64? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == ":" }).map(String.init)
        func number(_ s: String) -> Int? { s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? Int(s) : nil }
        func month(_ s: String) -> Int? { months.firstIndex(of: s.lowercased()) }
        var day: Int?, mon: Int?, year: Int?, hour: Int?, minute: Int?, second: Int?
        if tokens.count == 8, tokens[7] == "GMT" {
            // IMF-fixdate or RFC 850: day name, day, month, year, h, m, s, GMT.
            (day, mon, year) = (number(tokens[1]), month(tokens[2]), number(tokens[3]))
            (hour, minute, second) = (number(tokens[4]), number(tokens[5]), number(tokens[6]))
            // RFC 850's two-digit year: RFC 9110 reads it as the nearest past century
            // rather than a date more than 50 years ahead; 00–69 → 20xx is enough here.
            if let y = year, tokens[3].count == 2 { year = y < 70 ? 2000 + y : 1900 + y }
        } else if tokens.count == 7 {
            // asctime: day name, month, day, h, m, s, year.
            (mon, day, year) = (month(tokens[1]), number(tokens[2]), number(tokens[6]))
            (hour, minute, second) = (number(tokens[3]), number(tokens[4]), number(tokens[5]))
        }
        guard let day, let mon, let year, let hour, let minute, let second,
            (1...31).contains(day), (1900...9999).contains(year), hour < 24, minute < 60, second < 61
        else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(mon)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        let seconds = timegm(&t)
        return seconds == -1 ? nil : Int64(seconds)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let bytes = Array(utf8)
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
