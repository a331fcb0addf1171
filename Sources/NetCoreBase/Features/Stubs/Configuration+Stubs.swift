import CJansson

#if canImport(Glibc)
import Glibc
#endif

extension Configuration {
    /// "stubs" (docs/configuration.md, "Stubs"): routes answered without the
    /// network, a directory of route files replayed (a recording), what a request no
    /// route answers does, and where the network's answers are recorded.
    public struct Stubs: Sendable {
        /// What a request no route answers does.
        public enum Mode: String, Sendable, CaseIterable {
            /// Fails with CLIENT `noStub` (NC_CLIENT_NO_STUB), nothing sent. The default.
            case only
            /// Goes to the network. The default with `record`.
            case fallback
        }

        /// The routes, tried in order before those of `dir` and those added later.
        public var routes: [Stub]
        /// A directory of route files (`*.json`, each a route or an array of routes,
        /// read in name order when the client is made): what `record` wrote.
        public var dir: String?
        /// What a request no route answers does (default: only; fallback with `record`).
        public var mode: Mode
        /// A directory where every answer from the network is written as a route
        /// file (StubRecorder.swift), made if missing.
        public var record: String?

        /// The "stubs" of a configuration; `mode` nil: only, or fallback with `record`.
        public init(routes: [Stub] = [], dir: String? = nil, mode: Mode? = nil, record: String? = nil) {
            self.routes = routes
            self.dir = dir
            self.mode = mode ?? (record == nil ? .only : .fallback)
            self.record = record
        }

        static let keys = ["routes", "dir", "mode", "record"]

        static func parse(_ v: UnsafeMutablePointer<json_t>) throws(NetError) -> Stubs {
            let label = "Configuration key 'stubs"
            func fail(_ key: String, _ why: String) -> NetError {
                NetError.invalidConfig("\(label)\(key.isEmpty ? "" : "." + key)' \(why)")
            }
            guard v.pointee.type == JSON_OBJECT else {
                throw fail("", "must be an object {routes, dir, mode, record}, got \(JSON.typeName(v)).")
            }
            var dir: String? = nil
            var mode: Mode? = nil
            var record: String? = nil
            var routeValues: UnsafeMutablePointer<json_t>? = nil
            for (key, x) in JSON.members(v) {
                switch key {
                case "routes":
                    guard x.pointee.type == JSON_ARRAY else {
                        throw fail(key, "must be an array of routes, got \(JSON.typeName(x)).")
                    }
                    routeValues = x
                case "dir", "record":
                    guard let s = JSON.string(x), !s.isEmpty, !s.utf8.contains(0) else {
                        throw fail(key, "must be a non-empty directory path, got \(JSON.typeName(x)).")
                    }
                    if key == "dir" { dir = s } else { record = s }
                case "mode":
                    guard let s = JSON.string(x), let m = Mode(rawValue: s) else {
                        throw fail(key, "must be \"only\" or \"fallback\".")
                    }
                    mode = m
                default:
                    throw NetError.invalidConfig(
                        "Unknown configuration key 'stubs.\(key)'. Known: \(keys.joined(separator: ", ")).")
                }
            }
            if mode == .only && record != nil {
                throw fail("mode", "\"only\" records nothing: 'stubs.record' needs \"fallback\" (its default).")
            }
            var routes: [Stub] = []
            if let routeValues {
                for i in 0..<json_array_size(routeValues) {
                    guard let r = json_array_get(routeValues, i) else { continue }
                    do throws(NetError) {
                        routes.append(try Stub.parse(r, label: "\(label).routes[\(i)]'", dir: dir))
                    } catch {
                        throw NetError.invalidConfig(error.message)
                    }
                }
            }
            return Stubs(routes: routes, dir: dir, mode: mode, record: record)
        }
    }
}

extension StubTable {
    /// The table of a client made with `stubs`: its routes, then those of its
    /// directory; the recording directory made if missing. Throws
    /// `invalidConfig` naming the file or directory that cannot be used.
    static func make(_ s: Configuration.Stubs, credentialHeaders: [String]) throws(NetError) -> StubTable {
        var routes: [Stub] = []
        for (i, r) in s.routes.enumerated() {
            do throws(NetError) {
                routes.append(try r.validated(label: "Configuration key 'stubs.routes[\(i)]'"))
            } catch {
                throw NetError.invalidConfig(error.message)
            }
        }
        if s.mode == .only && s.record != nil {
            throw NetError.invalidConfig(
                "Configuration key 'stubs.mode' \"only\" records nothing: 'stubs.record' needs \"fallback\" (its default)."
            )
        }
        if let dir = s.dir {
            switch StubFiles.jsonFiles(in: dir) {
            case .failure(let why):
                throw NetError.invalidConfig("Configuration key 'stubs.dir' \"\(dir)\" cannot be read: \(why).")
            case .success(let names):
                for name in names { routes += try fileRoutes(dir + "/" + name, dir: dir) }
            }
        }
        var recorder: StubRecorder? = nil
        if let record = s.record {
            if !StubFiles.isWritableDirectory(record) { _ = mkdir(record, 0o700) }
            guard StubFiles.isWritableDirectory(record) else {
                throw NetError.invalidConfig(
                    "Configuration key 'stubs.record' \"\(record)\" is not a directory this process can write.")
            }
            recorder = StubRecorder(dir: record, credentialHeaders: credentialHeaders)
        }
        return StubTable(routes: routes, mode: s.mode, recorder: recorder)
    }

    /// The routes of one file of "stubs.dir": a route object or an array of them.
    private static func fileRoutes(_ path: String, dir: String) throws(NetError) -> [Stub] {
        let label = "stubs.dir file \"\(path)\""
        let bytes: [UInt8]
        switch StubFiles.read(path) {
        case .success(let b): bytes = b
        case .failure(let why): throw NetError.invalidConfig("\(label) cannot be read: \(why).")
        }
        let root: JSONValue
        switch bytes.withUnsafeBytes({ JSONValue.parse($0) }) {
        case .success(let v): root = v
        case .failure(let f):
            throw NetError.invalidConfig("\(label) is not JSON (line \(f.line), column \(f.column): \(f.reason)).")
        }
        var values: [UnsafeMutablePointer<json_t>] = []
        if root.raw.pointee.type == JSON_ARRAY {
            for i in 0..<json_array_size(root.raw) { if let r = json_array_get(root.raw, i) { values.append(r) } }
        } else {
            values.append(root.raw)
        }
        var out: [Stub] = []
        for (i, v) in values.enumerated() {
            do throws(NetError) {
                out.append(try Stub.parse(v, label: values.count == 1 ? label : "\(label) [\(i)]", dir: dir))
            } catch {
                throw NetError.invalidConfig(error.message)
            }
        }
        return out
    }
}
