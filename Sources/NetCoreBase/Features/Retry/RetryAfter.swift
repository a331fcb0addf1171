/// The Retry-After header (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date
/// in any of the three forms a recipient must accept (IMF-fixdate "Sun, 06 Nov 1994
/// 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT", asctime "Sun Nov  6
/// 08:49:37 1994"), read by HTTPDate.
enum RetryAfter {
    /// The wait the header asks for, ms from `nowSeconds` (Unix time); 0 for a date
    /// in the past; nil when the value is neither form.
    static func delayMs(_ value: String, nowSeconds: Int64) -> Int64? {
        let text = String(Substring(value).trimmingASCIISpaces())
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Seconds; a huge number waits "very long" (the cap applies).
            guard let s = Int64(text) else { return Int64.max }
            return s.multipliedReportingOverflow(by: 1000).overflow ? Int64.max : s * 1000
        }
        guard let date = HTTPDate.seconds(text) else { return nil }
        let seconds = date - nowSeconds
        return seconds <= 0 ? 0 : (seconds.multipliedReportingOverflow(by: 1000).overflow ? Int64.max : seconds * 1000)
    }
}
