import CJansson
import Synchronization

/// Texts for people ("messages", docs/errors.md#messages-for-people): an error's
/// `userMessage` is the text of the most specific key that matches it —
/// "DOMAIN.code" ("API.1001", "TRANSPORT.28", "HTTP.404", "CLIENT.3"; an API code
/// exactly as the server sent it), then for HTTP the status class ("HTTP.5xx"),
/// then "DOMAIN" ("TRANSPORT") — or nil when none does. The developer message
/// (`NetError.message`) is never changed.
public struct MessageTable: Sendable, Equatable {
    /// Key → text.
    public let texts: [String: String]

    /// The domain names keys start with.
    public static let domains: [(String, NetError.Domain)] = [
        ("CLIENT", .client), ("TRANSPORT", .transport), ("HTTP", .http), ("API", .api), ("PARSE", .parse),
    ]

    /// Throws `invalidArgument` naming a key that is not DOMAIN, DOMAIN.code or
    /// HTTP.Nxx, or a text that is empty or has a NUL.
    public init(_ texts: [String: String]) throws(NetError) {
        for (key, text) in texts {
            guard MessageTable.isKey(key) else {
                throw NetError.invalidArgument(
                    "'\(key)' is not a message key: write DOMAIN, DOMAIN.code or HTTP.Nxx, with DOMAIN one of CLIENT, TRANSPORT, HTTP, API, PARSE (e.g. \"TRANSPORT.28\", \"API.1001\", \"HTTP.5xx\").")
            }
            guard !text.isEmpty, !text.utf8.contains(0) else {
                throw NetError.invalidArgument("the text of '\(key)' must be a non-empty string without NUL.")
            }
        }
        self.texts = texts
    }

    static func isKey(_ key: String) -> Bool {
        let parts = key.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, domains.contains(where: { $0.0 == first }) else { return false }
        if parts.count == 1 { return true }
        return !parts[1].isEmpty && !parts[1].utf8.contains(where: { $0 < 0x20 || $0 == 0x7f })
    }

    /// The text for `error`, nil when no key matches.
    public func text(for error: NetError) -> String? {
        guard let domain = MessageTable.domains.first(where: { $0.1 == error.domain })?.0 else { return nil }
        let code = error.domain == .api ? error.codeString : String(error.code)
        if let t = texts["\(domain).\(code)"] { return t }
        if error.domain == .http, (100...999).contains(error.code) {
            if let t = texts["HTTP.\(error.code / 100)xx"] { return t }
        }
        return texts[domain]
    }

    /// Parses {"KEY": "text", …}; `label` names the key in messages.
    static func parse(_ v: UnsafeMutablePointer<json_t>, label: String) throws(NetError) -> MessageTable {
        guard v.pointee.type == JSON_OBJECT else {
            throw NetError.invalidArgument("\(label) must be an object of keys to texts, got \(JSON.typeName(v)).")
        }
        var texts: [String: String] = [:]
        for (key, x) in JSON.members(v) {
            guard let s = JSON.string(x) else {
                throw NetError.invalidArgument("\(label): '\(key)' must be a string, got \(JSON.typeName(x)).")
            }
            texts[key] = s
        }
        do throws(NetError) {
            return try MessageTable(texts)
        } catch {
            throw NetError.invalidArgument("\(label): \(error.message)")
        }
    }

    /// Parses the JSON text of nc_client_set_messages_json(); "null" gives nil.
    public static func parse(json text: String) throws(NetError) -> MessageTable? {
        switch JSONValue.parse(text) {
        case .failure(let f):
            throw NetError.invalidArgument(
                "The messages are not valid JSON (line \(f.line), column \(f.column): \(f.reason)).")
        case .success(let v):
            if v.isNull { return nil }
            return try parse(v.raw, label: "The messages")
        }
    }
}

/// The table a client's completions read now: replaced as a whole at run time
/// (a locale switch), read when an error completes. `installed` is read by every
/// send without the lock: one atomic load when no messages are configured.
final class MessageBox: @unchecked Sendable {
    private let lock = Lock()
    private var table: MessageTable?
    let installed = Atomic<Bool>(false)

    init(_ table: MessageTable?) { set(table) }

    func set(_ new: MessageTable?) {
        lock.withLock {
            table = new
            installed.store(new != nil && !(new?.texts.isEmpty ?? true), ordering: .releasing)
        }
    }

    var current: MessageTable? { lock.withLock { table } }

    /// `error` with its user message from the table installed now.
    func apply(_ error: NetError) -> NetError {
        guard installed.load(ordering: .acquiring), let text = current?.text(for: error) else { return error }
        var e = error
        e.userMessage = text
        return e
    }
}
