// netcore-call: one request through the Swift API (`try await NetClient.send`),
// described by a JSON object given as the only argument, its outcome printed as one
// JSON object on standard output. The conformance suite (Tests/conformance/
// test_swift.py) runs the same calls through it as through Python and ncurl.
//
//   netcore-call '{"config":{…},"method":"GET","url":"http://…","params":{…},
//                  "json":{…},"form":{…},"headers":{…},"idle_timeout_ms":500}'
//   -> {"status":200,"headers":{"content-type":"…",…},"body":"…","http_version":"HTTP/1.1"}
//   -> {"error":{"domain":"NCTransportErrorDomain","code":28,"http_status":0,
//               "timeout":"idle","message":"…"}}
import Foundation
import NetCore

@main
struct NetCoreCall {
    static func text(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func fail(_ why: String) -> Never {
        FileHandle.standardError.write(Data("netcore-call: \(why)\n".utf8))
        exit(2)
    }

    /// The request the spec describes.
    static func request(_ spec: [String: Any]) throws(NetError) -> Request {
        var request = try Request(method: spec["method"] as? String ?? "GET", target: spec["url"] as? String ?? "")
        for (name, value) in spec["headers"] as? [String: String] ?? [:] { try request.setHeader(name, value) }
        for (key, encoding) in [("params", ParameterEncoding.query), ("form", .form), ("json", .json)] {
            guard let params = spec[key] else { continue }
            request.encoding = encoding
            guard case .success(let value) = JSONValue.parse(text(params)) else {
                throw NetError.invalidArgument("\(key) is not JSON")
            }
            try request.setParams(value)
        }
        if let ms = spec["idle_timeout_ms"] as? Int { try request.setIdleTimeout(ms: Int64(ms)) }
        if let ms = spec["timeout_ms"] as? Int { try request.setTimeout(ms: Int64(ms)) }
        return request
    }

    static func send(_ client: NetClient, _ request: Request) async -> Result<Response, NetError> {
        do { return .success(try await client.send(request)) } catch { return .failure(error) }
    }

    static func printError(_ e: NetError) {
        print(
            text([
                "error": [
                    "domain": e.domain.name, "code": Int(e.code), "http_status": Int(e.httpStatus),
                    "timeout": e.timeout?.rawValue as Any, "message": e.message,
                ]
            ]))
    }

    static func main() async {
        let args = CommandLine.arguments
        guard args.count == 2, let spec = try? JSONSerialization.jsonObject(with: Data(args[1].utf8)) as? [String: Any]
        else { fail("usage: netcore-call '<request as JSON>'") }
        let client: NetClient
        let request: Request
        switch Result(catching: { () throws(NetError) in
            (try NetClient(json: text(spec["config"] ?? [String: Any]())), try Self.request(spec))
        }) {
        case .failure(let e):
            printError(e)
            return
        case .success(let made): (client, request) = made
        }
        defer { client.shutdown() }
        switch await send(client, request) {
        case .failure(let e):
            printError(e)
        case .success(let response):
            var headers: [String: String] = [:]
            for (name, value) in response.headers.all { headers[name.lowercased()] = value }
            print(
                text([
                    "status": Int(response.status), "headers": headers, "body": response.body.text,
                    "http_version": response.httpVersion?.text as Any,
                ]))
        }
    }
}
