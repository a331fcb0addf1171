/// Which request an error belongs to (`NetError.request`; `nc_error_json`'s
/// "request", the `nc_error_request_*` readers): what a global error handler needs
/// to say which call failed.
///
/// Cost: nothing on a success. An error is given its request when it is delivered
/// (`Transfer.identify`), from what the transfer already holds — the resolved
/// request's strings are shared, not copied, and the URL is redacted only when it
/// is read.
extension NetError {
    /// The request an error belongs to (`NetError.request`), or a response answers
    /// (`Response.request`): method, redacted URL, endpoint, label and task id.
    public struct RequestIdentity: Sendable, Equatable {
        /// The HTTP method; nil when the request could not be resolved (an unknown
        /// endpoint, a parameter refused by its declaration).
        public let method: String?
        /// The catalog endpoint the request named, if any.
        public let endpoint: String?
        /// The caller's label (`Request.setLabel`), if any.
        public let label: String?
        /// The request's task id (`Transfer.id`, nc_task_id, the `id` of its events);
        /// 0 for a request that was never submitted.
        public internal(set) var taskID: UInt64
        /// The URL as resolved at send (before redirects), unredacted; or the
        /// target as written when the request could not be resolved.
        private let rawURL: String?

        init(method: String?, rawURL: String?, endpoint: String?, label: String?, taskID: UInt64) {
            self.method = method
            self.rawURL = rawURL
            self.endpoint = endpoint
            self.label = label
            self.taskID = taskID
        }

        /// The request's URL as events show it: no userinfo or fragment, secret query
        /// values REDACTED (Redaction.swift). nil when the request could not be resolved
        /// into one.
        public var url: String? { rawURL.map(Redaction.url) }

        /// `{"method","url","endpoint","label","id"}`, each null when absent.
        func write(into o: inout JSONText) {
            o.string("method", method)
            o.string("url", url)
            o.string("endpoint", endpoint)
            o.string("label", label)
            o.int("id", taskID)
        }

        /// The members as one compact JSON object.
        public var json: String {
            var o = JSONText()
            write(into: &o)
            return o.finished()
        }
    }
}

extension Request {
    /// Who this request is before it is resolved (an error raised while resolving
    /// it: unknown endpoint, a refused parameter): no method or URL for an
    /// endpoint, the target as written for a plain request.
    var identity: NetError.RequestIdentity {
        let plain = endpoint == nil
        return NetError.RequestIdentity(
            method: plain ? method.rawValue : nil, rawURL: plain ? target : nil, endpoint: endpoint, label: label,
            taskID: 0)
    }
}

extension Request {
    /// Who this request was when it got `response` (a decoding failure of its data):
    /// its resolved form cached when this value was sent, and the response's task
    /// id; nothing was kept on the success path but that id.
    package func identity(answeredBy response: Response) -> NetError.RequestIdentity {
        var known = identity
        if let p = prepared.last {
            known = NetError.RequestIdentity(
                method: p.method, rawURL: p.urlText, endpoint: p.endpointName, label: p.label, taskID: 0)
        }
        known.taskID = response.taskID
        return known
    }
}

extension Transfer {
    /// Who this transfer's request is: from the request as resolved at send, or,
    /// when it could not be resolved, what its preset error already says.
    var identity: NetError.RequestIdentity {
        if let p = original {
            return NetError.RequestIdentity(
                method: p.method, rawURL: p.urlText, endpoint: p.endpointName, label: p.label, taskID: id)
        }
        var known =
            presetError?.request
            ?? NetError.RequestIdentity(
                method: nil, rawURL: nil, endpoint: nil, label: nil, taskID: id)
        known.taskID = id
        return known
    }

    /// `error` given this transfer's request (`NetError.request`), unless it has it
    /// already: where a send's failure reaches its caller or the error handler.
    /// Failures only: a success never comes here.
    @inline(never)
    package func identify(_ error: NetError) -> NetError {
        if let known = error.request, known.taskID == id { return error }
        var e = error
        e.request = identity
        return e
    }

    /// `identify` for an optional error (one branch on a success).
    @inline(__always)
    package func identify(_ error: NetError?) -> NetError? {
        guard let error else { return nil }
        return identify(error)
    }
}
