import CJansson

#if canImport(Glibc)
import Glibc
#endif

/// "stubs.record": every answer that comes from the network is written as a route
/// file of the directory, which "stubs.dir" replays (a cassette). One file per
/// method, path and query, named `METHOD_path_hash.json`, holding the route and
/// its answers in the order they came ("responses": replayed in turn, the last one
/// repeating); the first answer of a file in this client replaces what an earlier
/// recording left there.
///
/// What is never written (the redaction rules of events, Redaction.swift): the
/// request's headers, userinfo and fragment; the value of a secret-looking query
/// parameter (its name is kept, with `null`: any value matches on replay); the value
/// of a credential response header (Set-Cookie, Authorization, the configured
/// "credential_headers", a secret-looking name such as X-Api-Key) — "REDACTED"; and
/// in a JSON body, the value of every member with a secret-looking name
/// ("access_token", "password") — "REDACTED", the body then written compact.
/// Content-Length, Content-Encoding, Transfer-Encoding and Connection describe the
/// bytes on the wire, not the decoded body: not written either.
final class StubRecorder: @unchecked Sendable {
    let dir: String
    private let credentialHeaders: Set<String>
    private let lock = Lock()
    // Guarded by lock: the route objects written so far (+1 references), by file.
    private var files: [String: UnsafeMutablePointer<json_t>] = [:]
    private var writes: UInt64 = 0
    /// Why the last write failed, for the log (nil: none failed).
    private(set) var lastFailure: String? = nil

    init(dir: String, credentialHeaders: [String]) {
        self.dir = dir
        self.credentialHeaders = Set(credentialHeaders.map { $0.lowercased() })
    }

    deinit {
        for (_, v) in files { json_decref(v) }
    }

    static let wireHeaders: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"
    ]
    static let credentialNames: Set<String> = [
        "set-cookie", "set-cookie2", "cookie", "authorization", "proxy-authorization", "proxy-authenticate-info"
    ]

    /// Whether a response header's value is a credential.
    func isCredential(header name: String) -> Bool {
        let n = name.lowercased()
        return StubRecorder.credentialNames.contains(n) || credentialHeaders.contains(n) || Redaction.isSecret(name: n)
    }

    /// Records the answer `status`, `headers`, `body` to `method` `url`.
    func record(method: String, url: String, status: Int, headers: HeaderStore, body: NetBytes) {
        let (path, query) = StubMatch.split(url)
        var key = method + " " + path
        for (name, value) in query.sorted(by: { $0.0 < $1.0 }) {
            key += "&" + name + "=" + (Redaction.isSecret(name: name) ? "" : value)
        }
        let file = StubRecorder.fileName(method: method, path: path, key: key)
        guard let answer = json_object() else { return }
        json_object_set_new(answer, "status", json_integer(json_int_t(status)))
        if let h = json_object() {
            for (name, value) in headers.all where !StubRecorder.wireHeaders.contains(name.lowercased()) {
                let v = isCredential(header: name) ? "REDACTED" : value
                if let old = json_object_get(h, name), let s = JSON.string(old) {
                    json_object_set_new(h, name, json_string(s + ", " + v))
                } else {
                    json_object_set_new(h, name, json_string(v))
                }
            }
            json_object_set_new(answer, "headers", h)
        }
        let bytes = StubRecorder.redactedBody(body.array)
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0) {
            json_object_set_new(answer, "body", json_stringn(text, text.utf8.count))
        } else {
            json_object_set_new(answer, "body_base64", json_string(StubBase64.encode(bytes)))
        }
        lock.withLock {
            let route: UnsafeMutablePointer<json_t>
            if let r = files[file] {
                route = r
            } else {
                guard let r = json_object(), let q = json_object(), let list = json_array() else {
                    json_decref(answer)
                    return
                }
                json_object_set_new(r, "method", json_string(method))
                json_object_set_new(r, "path", json_string(path))
                for (name, value) in query {
                    json_object_set_new(q, name, Redaction.isSecret(name: name) ? json_null() : json_string(value))
                }
                if json_object_size(q) > 0 { json_object_set_new(r, "query", q) } else { json_decref(q) }
                json_object_set_new(r, "responses", list)
                files[file] = r
                route = r
            }
            json_array_append_new(json_object_get(route, "responses"), answer)
            guard let text = json_dumps(route, 2 | Int(JSON_PRESERVE_ORDER)) else { return }
            var out = Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
            free(text)
            out.append(UInt8(ascii: "\n"))
            writes &+= 1
            lastFailure = StubFiles.write(out, to: dir + "/" + file, tempTag: writes)
        }
    }

    /// `METHOD_path_xxxxxxxx.json`: the path's characters outside [A-Za-z0-9.-]
    /// as "_", and the FNV-1a hash of the whole key (method, path, query) so that
    /// two requests never share a file.
    static func fileName(method: String, path: String, key: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for b in key.utf8 {
            hash ^= UInt32(b)
            hash = hash &* 16_777_619
        }
        var name = ""
        for c in path.unicodeScalars.prefix(80) {
            let ok =
                (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "." || c == "-"
            name.unicodeScalars.append(ok ? c : "_")
        }
        let hex = String(hash, radix: 16)
        return "\(method)\(name)_\(String(repeating: "0", count: 8 - hex.count))\(hex).json"
    }

    /// `body`, or when it is JSON holding a member with a secret-looking name, the
    /// JSON with those values "REDACTED" (compact).
    static func redactedBody(_ body: [UInt8]) -> [UInt8] {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return body }
        let parsed = body.withUnsafeBytes { JSONValue.parseOwned($0) }
        guard case .success(let root) = parsed else { return body }
        defer { json_decref(root) }
        guard redact(root) else { return body }
        guard let text = json_dumps(root, Int(JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER)) else {
            return body
        }
        defer { free(text) }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    /// Replaces the secret members' values under `v`; whether any was.
    private static func redact(_ v: UnsafeMutablePointer<json_t>) -> Bool {
        var changed = false
        switch v.pointee.type {
        case JSON_OBJECT:
            for (name, x) in JSON.members(v) {
                if Redaction.isSecret(name: name), x.pointee.type != JSON_OBJECT, x.pointee.type != JSON_ARRAY,
                    x.pointee.type != JSON_NULL
                {
                    json_object_set_new(v, name, json_string("REDACTED"))
                    changed = true
                } else if redact(x) {
                    changed = true
                }
            }
        case JSON_ARRAY:
            for i in 0..<json_array_size(v) {
                if let x = json_array_get(v, i), redact(x) { changed = true }
            }
        default: break
        }
        return changed
    }
}
