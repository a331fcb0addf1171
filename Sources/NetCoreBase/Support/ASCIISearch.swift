/// Substring search for ASCII needles over a string's UTF-8 bytes.
///
/// `String.contains(_: some StringProtocol)` is defined in `_StringProcessing`, whose
/// static archive (with the regex parser it needs) adds 1.2 MB to libnetcore.so when
/// one call site uses it (docs/size.md). The needles searched for here are ASCII, so a
/// byte comparison gives the same answer, except that it also matches a needle whose
/// last letter carries a combining mark — which, where it is used (redaction), hides
/// more rather than less.
extension StringProtocol {
    /// Whether `needle` (ASCII) occurs in this string's UTF-8 bytes.
    func containsASCII(_ needle: StaticString) -> Bool {
        needle.withUTF8Buffer { pattern in
            guard let first = pattern.first else { return true }
            let bytes = utf8
            var start = bytes.startIndex
            while let hit = bytes[start...].firstIndex(of: first) {
                var i = hit
                var matched = true
                for b in pattern {
                    guard i != bytes.endIndex, bytes[i] == b else {
                        matched = false
                        break
                    }
                    i = bytes.index(after: i)
                }
                if matched { return true }
                start = bytes.index(after: hit)
            }
            return false
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
