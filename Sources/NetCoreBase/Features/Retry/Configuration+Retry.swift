import CJansson

extension Configuration {
    /// "retry": an object of RetryPolicy keys over the defaults (RetryPolicy.swift);
    /// `false` or `null` = no retry (one attempt), as when the key is absent.
    static func parseRetry(_ value: UnsafeMutablePointer<json_t>) throws -> RetryPolicy? {
        if value.pointee.type == JSON_NULL || value.pointee.type == JSON_FALSE { return nil }
        guard value.pointee.type == JSON_OBJECT else {
            throw ConfigError(
                message: "Configuration key 'retry' must be an object, false or null, got \(JSON.typeName(value)).")
        }
        do throws(NetError) {
            let patch = try RetryPolicy.parsePatch(value) { key in
                "Configuration key 'retry\(key.isEmpty ? "" : ".")\(key)'"
            }
            return RetryPolicy().merged(patch)
        } catch {
            throw ConfigError(message: error.message)
        }
    }
}
