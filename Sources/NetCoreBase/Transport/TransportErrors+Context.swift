import CCurlShim

/// What a transport error's message needs to know beyond libcurl's code and
/// detail, so that its advice is true: the proxy the hop went through (a failed
/// connection is then the proxy's, not the server's), and whether HTTP/2 was
/// assumed without asking (an empty reply is then a protocol mismatch).
struct TransportContext {
    /// The proxy URL in force for the hop's scheme ("" or nil: none).
    var proxy: String? = nil
    /// "http_version": "2-prior-knowledge".
    var priorKnowledge = false

    /// `host:port` of the proxy, libcurl's default port 1080 when it names none;
    /// userinfo dropped. nil when there is no proxy.
    var proxyHostPort: (host: String, port: String)? {
        guard var rest = proxy, !rest.isEmpty else { return nil }
        let u = Array(rest.utf8)
        if let i = u.indices.first(where: { u[$0...].starts(with: "://".utf8) }) {
            rest = String(decoding: u[(i + 3)...], as: UTF8.self)
        }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            rest = String(rest[..<slash])
        }
        if let at = rest.lastIndex(of: "@") { rest = String(rest[rest.index(after: at)...]) }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            return (host, after.hasPrefix(":") ? String(after.dropFirst()) : "1080")
        }
        if let colon = rest.lastIndex(of: ":") {
            return (String(rest[..<colon]), String(rest[rest.index(after: colon)...]))
        }
        return (rest, "1080")
    }
}

extension TransportErrors {
    /// The advice for a failure the context explains, and whether it stays
    /// retryable; nil when the context changes nothing.
    static func contextAdvice(
        _ code: CURLcode, detail: String, _ context: TransportContext
    ) -> (what: String?, advice: String, retryable: Bool)? {
        if let (host, port) = context.proxyHostPort {
            let proxy = "\(host):\(port)"
            if detail.containsASCII("CONNECT tunnel failed") || detail.containsASCII("from proxy after CONNECT") {
                // The proxy answered, and refused the tunnel (403 forbidden, 407
                // credentials): the same request gets the same answer.
                return (
                    nil,
                    "The proxy \(proxy) refused to open a tunnel to the server (its CONNECT answer is above): check the proxy's rules for this host and port, and its credentials (Proxy-Authorization, or user:password in proxy.url). Retrying will not help.",
                    false
                )
            }
            if code == CURLE_COULDNT_RESOLVE_PROXY {
                return (
                    nil,
                    "The proxy's host name \(host) could not be resolved: check proxy.url or the environment's http_proxy/https_proxy/all_proxy.",
                    true
                )
            }
            let target = Array("to \(host) port \(port)".utf8)
            let d = Array(detail.utf8)
            if code == CURLE_COULDNT_CONNECT && d.indices.contains(where: { d[$0...].starts(with: target) }) {
                return (
                    nil,
                    "The connection to the proxy \(proxy) failed (the request went through a proxy, from proxy.url or the environment's http_proxy/https_proxy/all_proxy): check that the proxy is running, or configure \"proxy\": {\"url\": \"\"} for none.",
                    true
                )
            }
        }
        // An HTTP/1 server reading HTTP/2's preface closes or resets the connection:
        // the client sees nothing (52), a reset while receiving (56) or sending (55),
        // or a framing error (16), depending on timing.
        let mismatch = [CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_RECV_ERROR, CURLE_SEND_ERROR]
        if context.priorKnowledge && mismatch.contains(code) {
            return (
                nil,
                "This looks like a protocol mismatch: http_version \"2-prior-knowledge\" speaks HTTP/2 without asking, and the server does not (an HTTP/1 server closes the connection). Use \"2\" (HTTP/2 when the server offers it) or \"1.1\". Retrying will not help.",
                false
            )
        }
        return nil
    }
}
