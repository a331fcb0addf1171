extension Configuration {
    /// The HTTP version a client asks for ("http_version", CURLOPT_HTTP_VERSION).
    public enum HTTPVersion: String, Sendable, CaseIterable {
        /// HTTP/1.1 only (CURL_HTTP_VERSION_1_1). The default.
        case http1_1 = "1.1"
        /// HTTP/2 over https when the server offers it (ALPN), HTTP/1.1 otherwise and
        /// for http:// URLs (CURL_HTTP_VERSION_2TLS).
        case http2 = "2"
        /// HTTP/2 without asking first, for http:// too (CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE):
        /// only for servers known to speak HTTP/2; an HTTP/1 server fails the request.
        case http2PriorKnowledge = "2-prior-knowledge"
    }
}
