/// An ordered list of headers; names compare case-insensitively.
public struct HeaderFields: Sendable, Sequence {
    /// The headers in the order they were set, names as given.
    public private(set) var entries: [(name: String, value: String)] = []

    /// No headers.
    public init() {}

    /// Replaces every header called `name` with one carrying `value`.
    public mutating func set(_ name: String, _ value: String) {
        setReporting(name, value)
    }

    /// Appends a header whose name the caller knows is not set yet (no search).
    mutating func appendNew(_ name: String, _ value: String) {
        entries.append((name, value))
    }

    /// Room for `n` more headers (a shared list is copied once, with it).
    mutating func reserveAdditional(_ n: Int) {
        entries.reserveCapacity(entries.count + n)
    }

    /// `set`, saying whether a header of that name was there (replaced) rather
    /// than appended. Nothing is copied when the name is new (the usual case).
    @discardableResult
    mutating func setReporting(_ name: String, _ value: String) -> Bool {
        guard let first = entries.firstIndex(where: { Self.same($0.name, name) }) else {
            entries.append((name, value))
            return false
        }
        entries[first] = (name, value)
        var i = entries.index(after: first)
        while i < entries.endIndex {
            if Self.same(entries[i].name, name) { entries.remove(at: i) } else { i += 1 }
        }
        return true
    }

    /// Removes every header of that name (case-insensitive).
    public mutating func remove(_ name: String) {
        entries.removeAll { Self.same($0.name, name) }
    }

    /// The value of the header of that name (case-insensitive), nil if absent.
    public subscript(name: String) -> String? {
        entries.first { Self.same($0.name, name) }?.value
    }

    /// A header of that name (case-insensitive) is set.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// No header is set.
    public var isEmpty: Bool { entries.isEmpty }

    /// The `User-Agent` a request sends when neither the client's headers nor its
    /// own set one: `netcore/<version> libcurl/<version>` ("netcore/0.3.0
    /// libcurl/7.88.1"), worked out once per process. To identify an app, set its
    /// own (`configuration.headers["User-Agent"] = "shop/2.3 " +
    /// HeaderFields.defaultUserAgent`, as Alamofire's `HTTPHeader.defaultUserAgent`).
    public static var defaultUserAgent: String { DefaultHeaders.userAgent }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        entries.makeIterator()
    }

    /// ASCII case-insensitive equality (header names are tokens), no allocation.
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
