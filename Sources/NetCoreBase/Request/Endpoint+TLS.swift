import CJansson

/// An endpoint's "tls": {"ca_file", "pinned_public_keys"}: for an API served by
/// another host than the rest of the client's, with its own private CA or pins.
/// Checked as the client's "tls" is (TLSOptions.swift): files must be readable
/// and pins well-formed when the endpoint is defined.
extension Endpoint {
    static let tlsKeys = ["ca_file", "pinned_public_keys"]

    /// The first problem of `tls` as (JSON member name, reason), or nil.
    static func problem(_ tls: EndpointTLS) -> (String, String)? {
        if let f = tls.caFile, let why = TLSChecks.readableFile(f) { return ("ca_file", why) }
        for p in tls.pinnedPublicKeys ?? [] {
            if let why = TLSChecks.pin(p) { return ("pinned_public_keys", why) }
        }
        return nil
    }

    static func parseTLS(
        _ v: UnsafeMutablePointer<json_t>,
        _ fail: (String, String) -> NetError
    ) throws(NetError) -> EndpointTLS {
        guard v.pointee.type == JSON_OBJECT else { throw fail("tls", "must be an object, got \(JSON.typeName(v)).") }
        var out = EndpointTLS()
        for (key, item) in JSON.members(v) {
            switch key {
            case "ca_file":
                guard item.pointee.type != JSON_NULL else { continue }
                guard let path = JSON.string(item) else {
                    throw fail("tls.ca_file", "must be a string or null, got \(JSON.typeName(item)).")
                }
                out.caFile = path
            case "pinned_public_keys":
                guard item.pointee.type == JSON_ARRAY else {
                    throw fail("tls.pinned_public_keys", "must be an array of strings, got \(JSON.typeName(item)).")
                }
                var pins: [String] = []
                for i in 0..<json_array_size(item) {
                    guard let p = json_array_get(item, i), let text = JSON.string(p) else {
                        throw fail("tls.pinned_public_keys", "must be an array of strings; item \(i) is not.")
                    }
                    pins.append(text)
                }
                out.pinnedPublicKeys = pins
            default:
                throw fail("tls.\(key)", "is unknown. Known: \(tlsKeys.joined(separator: ", ")).")
            }
        }
        if let (key, why) = problem(out) { throw fail("tls.\(key)", why) }
        return out
    }
}
