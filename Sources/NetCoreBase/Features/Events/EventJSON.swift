/// A `RequestEvent` as the JSON object of nc_client_set_event_handler
/// (docs/contract.md#events): every key is present, null when it does not apply.
///
/// `{"event":"request_start|attempt_end|retry|cache_hit|request_end","id","method","url","endpoint","label",
///   "attempt","status","domain","code","delay_ms","reason",
///   "timings":{"dns","connect","tls","first_byte","total"} (µs) | null,
///   "bytes","from_cache","not_modified","cache":{"hits","misses",…} (cache_hit) | null,
///   "elapsed_us","stubbed"}`
///
/// `url` is redacted (Redaction.swift): no userinfo, no value of a secret-looking
/// query parameter. `domain` is the error domain's name (NCTransportErrorDomain…)
/// and `code` its numeric code, both null on success. `elapsed_us` (request_end)
/// is the time from the start of the first attempt to the completion.
extension RequestEvent {
    /// The event as the JSON text C and Python handlers receive.
    public var json: String {
        JSONText.withLentBuffer { o in
            write(into: &o)
            return o.finished()
        }
    }

    /// The JSON lent as NUL-terminated text with its length (what a C event
    /// handler receives: no String is made, and the text is on the stack).
    /// (Not generic: a generic body would be called unspecialised from the C API's
    /// module, looking up type metadata on every event.)
    package func withJSON(_ body: (UnsafePointer<CChar>, Int) -> Void) {
        JSONText.withLentBuffer { o in
            write(into: &o)
            return o.withText(body)
        }
    }

    /// Every member, into the object `o` (opened, not yet closed).
    private func write(into o: inout JSONText) {
        o.literal("event", kind.jsonName)
        o.int("id", id)
        // A request that could not be resolved (an unknown endpoint, a missing
        // placeholder) has neither: null, as every key that does not apply.
        o.string("method", method.isEmpty ? nil : method)
        o.string("url", url.isEmpty ? nil : urlIsRedacted ? url : Redaction.url(url))
        o.string("endpoint", endpoint)
        o.string("label", label)
        o.int("attempt", attempt)
        o.int("status", status)
        o.string("domain", error?.domain.name)
        o.int("code", error?.code)
        o.int("delay_ms", delayMs)
        o.string("reason", reason)
        if let t = timings {
            o.beginObject("timings")
            t.write(into: &o)
            o.endObject()
            o.int("bytes", t.bytes)
        } else {
            o.null("timings")
            o.null("bytes")
        }
        o.bool("from_cache", fromCache)
        o.bool("not_modified", notModified)
        if let c = cache {
            o.beginObject("cache")
            c.write(into: &o)
            o.endObject()
        } else {
            o.null("cache")
        }
        o.int("elapsed_us", elapsedUs)
        o.bool("stubbed", stubbed)
    }
}

extension RequestEvent.Kind {
    /// The raw value as static text, written without an escape check.
    var jsonName: StaticString {
        switch self {
        case .requestStart: "request_start"
        case .attemptEnd: "attempt_end"
        case .retry: "retry"
        case .requestEnd: "request_end"
        case .cacheHit: "cache_hit"
        }
    }
}

extension AttemptTimings {
    /// `{"dns","connect","tls","first_byte","total"}` in microseconds.
    var json: String {
        var o = JSONText()
        write(into: &o)
        return o.finished()
    }

    /// The five members, into an object being written.
    func write(into o: inout JSONText) {
        o.int("dns", dnsUs)
        o.int("connect", connectUs)
        o.int("tls", tlsUs)
        o.int("first_byte", firstByteUs)
        o.int("total", totalUs)
    }
}
