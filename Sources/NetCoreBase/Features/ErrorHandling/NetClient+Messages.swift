import CJansson

/// Texts for people (docs/errors.md#messages-for-people) and the common params,
/// changed at run time.
extension NetClient {
    /// The texts for people errors completing from now on get (`NetError.userMessage`).
    public var messages: MessageTable? { messageBox.current }

    /// Replaces the messages table (nil: none) for errors completing from now on,
    /// a locale switch. Requests already sent when no table was installed get none.
    public func setMessages(_ table: MessageTable?) {
        messageBox.set(table)
    }

    /// `setMessages(_:)` from JSON text ({"KEY": "text", …}, or "null"). A bad
    /// table throws `invalidArgument` naming the key, and changes nothing.
    public func setMessages(json text: String) throws(NetError) {
        setMessages(try MessageTable.parse(json: text))
    }

    /// Sets (nil: removes) one of the "common_params" for requests sent from now
    /// on. `value` must be a string, number or boolean (JSON); anything else, an
    /// empty name or a NUL throws `invalidArgument` and changes nothing.
    public func setCommonParam(_ name: String, _ value: JSONValue?) throws(NetError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw NetError.invalidArgument("a common param's name must be non-empty, without NUL")
        }
        if let value {
            switch value.raw.pointee.type {
            case JSON_STRING:
                guard let s = JSON.string(value.raw), !s.utf8.contains(0) else {
                    throw NetError.invalidArgument("the common param '\(name)' contains a NUL character")
                }
            case JSON_INTEGER, JSON_REAL, JSON_TRUE, JSON_FALSE: break
            default:
                throw NetError.invalidArgument(
                    "the common param '\(name)' must be a string, number or boolean, got \(JSON.typeName(value.raw))")
            }
        }
        var failed = false
        changeConfiguration { config in
            // A new object each time: snapshots already made keep theirs.
            guard let object = config.commonParams?.deepCopy() ?? JSONValue.emptyObject() else {
                failed = true
                return
            }
            if let value { json_object_set(object.raw, name, value.raw) } else { json_object_del(object.raw, name) }
            config.commonParams = json_object_size(object.raw) > 0 ? object : nil
        }
        if failed { throw NetError.internalError("Out of memory while setting a common param.") }
    }

    /// `setCommonParam(_:_:)` with the value as JSON text (nil: removes).
    public func setCommonParam(_ name: String, json text: String?) throws(NetError) {
        guard let text else { return try setCommonParam(name, nil) }
        switch JSONValue.parse(text) {
        case .success(let v): try setCommonParam(name, v)
        case .failure(let f):
            throw NetError.invalidArgument(
                "the common param '\(name)' is not valid JSON (line \(f.line), column \(f.column): \(f.reason))")
        }
    }
}
