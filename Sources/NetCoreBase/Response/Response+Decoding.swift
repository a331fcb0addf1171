import CJansson

/// `Decodable` business data.
extension Response {
    /// Decodes the business data (the envelope's data field — JSON null when the
    /// field is absent — or the whole body in raw mode) as `type`.
    ///
    /// Throws: a PARSE-domain `NetError` with code `ParseCode.decodingFailed` whose
    /// message names the failing key path, e.g.
    /// `Could not decode User: data.user.age: expected Int, found string.`; its
    /// `httpStatus`, `body`, `data` and `response` are this response's; `attempts`
    /// is 1 (a response was received).
    /// Thread: any; the response is immutable.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        using decoder: JSONValueDecoder = JSONValueDecoder()
    ) throws(NetError) -> T {
        try decode(type, at: "", using: decoder)
    }

    /// Decodes the value at `keyPath` inside the business data as `type`:
    ///
    /// ```swift
    /// // raw mode, body {"data": {"user": {"id": 7, "name": "Ada"}}}
    /// let user = try response.decode(User.self, at: "data.user")
    /// // envelope mode: the path starts inside the envelope's data
    /// let first = try response.decode(Item.self, at: "items[0]")
    /// ```
    ///
    /// `keyPath` is object keys joined by `.`, each optionally followed by array
    /// indices (`items[3]`, `matrix[0][1]`); `""` is the data itself. It starts at the
    /// business data — the envelope's data field, or the whole body in raw mode — which
    /// messages call `data`.
    ///
    /// Throws: as `decode(_:using:)`, PARSE `ParseCode.decodingFailed` naming the
    /// path: `data.user: key not found` when the path does not lead to a value,
    /// `data.items[3]: expected array, found object` when it crosses the wrong kind of
    /// value, `data.user.age: expected Int, found string` when the value does not
    /// match `type`; and for a `keyPath` that is not a key path (an empty key, an
    /// unclosed bracket), with `data` and the text of the path.
    /// Thread: any; the response is immutable.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, at keyPath: String,
        using decoder: JSONValueDecoder = JSONValueDecoder()
    ) throws(NetError) -> T {
        let what = keyPath.isEmpty ? "\(T.self)" : "\(T.self) at \"\(keyPath)\""
        guard let data = dataPointer else {
            throw dataMismatch("Could not decode \(what): data: the body is not JSON.")
        }
        let root: String
        let pointer: OpaquePointer
        switch Response.value(at: keyPath, in: UnsafeMutablePointer<json_t>(data)) {
        case .success(let (path, value)):
            root = path
            pointer = OpaquePointer(value)
        case .failure(let why):
            throw dataMismatch("Could not decode \(what): \(why).")
        }
        do {
            return try withExtendedLifetime(self) { try decoder.decode(type, from: pointer) }
        } catch let error as DecodingError {
            throw dataMismatch(
                "Could not decode \(what): \(JSONValueDecoder.describe(error, root: root)). Check that the Swift type matches the server's data."
            )
        } catch {
            throw dataMismatch("Could not decode \(what): \(error)")
        }
    }

    /// A PARSE `decodingFailed` error about this response's data, with `message`:
    /// what `decode` throws, and what C's nc_response_data_unpack gives on a mismatch.
    package func dataMismatch(_ message: String) -> NetError {
        var error = NetError.decodingFailed(message)
        error.httpStatus = status
        error.body = body
        error.data = data
        error.response = self
        error.attempts = 1
        return error
    }

    /// The value `keyPath` leads to from `data`, with its path as messages write it
    /// (`data.user.tags[2]`); or why not, naming the path as far as it went.
    static func value(at keyPath: String, in data: UnsafeMutablePointer<json_t>) -> Result<
        (String, UnsafeMutablePointer<json_t>), KeyPathFailure
    > {
        var path = "data"
        var value = data
        if keyPath.isEmpty { return .success((path, value)) }
        for (n, segment) in keyPath.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
            // key[i][j]…: the key may be empty only in "[0]…" at the start (data is an array)
            var rest = Substring(segment)
            let keyEnd = rest.firstIndex(of: "[") ?? rest.endIndex
            let key = rest[..<keyEnd]
            rest = rest[keyEnd...]
            if key.isEmpty && (n > 0 || rest.isEmpty) {
                return .failure(KeyPathFailure("\"\(keyPath)\" is not a key path: an empty key"))
            }
            if !key.isEmpty {
                path += "." + key
                guard value.pointee.type == JSON_OBJECT else {
                    return .failure(KeyPathFailure("\(path): expected object, found \(JSON.typeName(value))"))
                }
                guard let member = json_object_get(value, String(key)) else {
                    return .failure(KeyPathFailure("\(path): key not found"))
                }
                value = member
            }
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]"),
                    let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0
                else {
                    return .failure(KeyPathFailure("\"\(keyPath)\" is not a key path: write an index as [n]"))
                }
                path += "[\(index)]"
                guard value.pointee.type == JSON_ARRAY else {
                    return .failure(KeyPathFailure("\(path): expected array, found \(JSON.typeName(value))"))
                }
                guard index < json_array_size(value), let item = json_array_get(value, index) else {
                    return .failure(KeyPathFailure("\(path): index out of range (\(json_array_size(value)) items)"))
                }
                value = item
                rest = rest[rest.index(after: close)...]
            }
        }
        return .success((path, value))
    }

    /// Why a key path leads nowhere (its `description` is the message's part).
    struct KeyPathFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
