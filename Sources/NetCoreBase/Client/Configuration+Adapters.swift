import CJansson

// The configuration keys of the request adapters (docs/configuration.md): "common_params"
// and "signing". One self-contained reader per key, called from ConfigReader.read;
// errors name the key and never echo a secret.

extension Configuration {
    /// "signing": every request is signed with HMAC-SHA256 (Signing.swift).
    public struct Signing: Sendable, Equatable {
        /// The shared secret (HMAC key, its UTF-8 bytes). Required. Never logged.
        public var secret: String
        /// The header that carries the signature (lowercase hex). Default "X-Signature".
        public var header: String = "X-Signature"
        /// The header that carries the timestamp (Unix seconds). Default "X-Timestamp".
        public var timestampHeader: String = "X-Timestamp"

        /// HMAC-SHA256 signing with `secret`, the signature in `header` and the Unix time in `timestampHeader` (defaults as in the "signing" key).
        public init(secret: String, header: String = "X-Signature", timestampHeader: String = "X-Timestamp") {
            self.secret = secret
            self.header = header
            self.timestampHeader = timestampHeader
        }
    }

    /// "common_params": an object of strings, numbers and booleans; null = none.
    static func parseCommonParams(_ value: UnsafeMutablePointer<json_t>) throws -> JSONValue? {
        if value.pointee.type == JSON_NULL { return nil }
        guard value.pointee.type == JSON_OBJECT else {
            throw ConfigError(
                message:
                    "Configuration key 'common_params' must be an object of names to strings, numbers or booleans, got \(JSON.typeName(value))."
            )
        }
        for (name, v) in JSON.members(value) {
            guard !name.isEmpty, !name.utf8.contains(0) else {
                throw ConfigError(
                    message:
                        "Configuration key 'common_params' has an empty parameter name or one with a NUL character.")
            }
            switch v.pointee.type {
            case JSON_STRING:
                guard let s = JSON.string(v), !s.utf8.contains(0) else {
                    throw ConfigError(message: "Configuration key 'common_params.\(name)' contains a NUL character.")
                }
            case JSON_INTEGER, JSON_REAL, JSON_TRUE, JSON_FALSE:
                break
            default:
                throw ConfigError(
                    message:
                        "Configuration key 'common_params.\(name)' must be a string, number or boolean, got \(JSON.typeName(v))."
                )
            }
        }
        if json_object_size(value) == 0 { return nil }
        guard let copy = JSONValue(borrowing: value).deepCopy() else {
            throw ConfigError(message: "Configuration key 'common_params' could not be copied (out of memory).")
        }
        return copy
    }

    /// "signing": {"secret", "header", "timestamp_header"}; null = off.
    static func parseSigning(_ value: UnsafeMutablePointer<json_t>) throws -> Signing? {
        if value.pointee.type == JSON_NULL { return nil }
        guard value.pointee.type == JSON_OBJECT else {
            throw ConfigError(
                message:
                    "Configuration key 'signing' must be an object {\"secret\", \"header\", \"timestamp_header\"} or null, got \(JSON.typeName(value))."
            )
        }
        var secret: String?
        var header = "X-Signature"
        var timestampHeader = "X-Timestamp"
        for (key, v) in JSON.members(value) {
            let full = "signing.\(key)"
            switch key {
            case "secret":
                // The value is never echoed: it is a secret.
                guard let s = JSON.string(v), !s.isEmpty, !s.utf8.contains(0) else {
                    throw ConfigError(
                        message: "Configuration key 'signing.secret' must be a non-empty string without NUL characters."
                    )
                }
                secret = s
            case "header", "timestamp_header":
                guard let s = JSON.string(v), HTTPValidation.isToken(s) else {
                    throw ConfigError(
                        message:
                            "Configuration key '\(full)' must be a header name (an HTTP token), got \(JSON.typeName(v))."
                    )
                }
                if key == "header" { header = s } else { timestampHeader = s }
            default:
                throw ConfigError(
                    message: "Unknown configuration key '\(full)'. Known: secret, header, timestamp_header.")
            }
        }
        guard let secret else {
            throw ConfigError(message: "Configuration key 'signing.secret' is required when 'signing' is set.")
        }
        guard !HeaderFields.same(header, timestampHeader) else {
            throw ConfigError(
                message:
                    "Configuration keys 'signing.header' and 'signing.timestamp_header' must name different headers.")
        }
        return Signing(secret: secret, header: header, timestampHeader: timestampHeader)
    }
}
