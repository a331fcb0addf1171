import CJansson

/// "common_params" (docs/configuration.md#common_params): parameters added to every
/// request, placed where
/// the request's own parameters go — the query for a query-encoded request, body
/// members for a form or JSON one — and to the query when the request carries a
/// raw body (nc_request_set_body), which is never rewritten. A request's own
/// parameter of the same name (in its params, or its query) wins.
///
/// They are the first of the request adapters (common params, token, adapters,
/// signing). Being fixed by the configuration, they are applied once when the
/// request is resolved (PreparedRequest.make), which gives every attempt the same
/// result as applying them per attempt, and the later adapters see them.
enum CommonParams {
    /// The params to encode and the extra query pairs for `request`.
    static func place(_ common: JSONValue, _ request: Request, _ encoding: ParameterEncoding)
        -> (params: JSONValue?, query: [(name: String, value: String)])
    {
        let own = request.params
        // A raw body is sent as given: the common params go to its query.
        let toQuery = own == nil && request.body != nil && encoding != .query
        var missing: [(String, UnsafeMutablePointer<json_t>)] = []
        for (name, value) in JSON.members(common.raw) {
            if let own, json_object_get(own.raw, name) != nil { continue }
            if request.query.contains(where: { $0.name == name }) { continue }
            missing.append((name, value))
        }
        if missing.isEmpty { return (own, []) }
        if toQuery {
            guard let object = json_object() else { return (own, []) }
            let extra = JSONValue(owning: object)
            for (name, value) in missing { json_object_set(object, name, value) }
            return (own, ParameterEncoder.pairs(extra).map { (name: $0.0, value: $0.1) })
        }
        guard let merged = own?.deepCopy() ?? json_object().map({ JSONValue(owning: $0) }) else { return (own, []) }
        for (name, value) in missing { json_object_set(merged.raw, name, value) }
        return (merged, [])
    }
}
