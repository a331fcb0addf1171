import NIOCore
import NIOHTTP1
// Every NIO name below is unqualified on purpose: if NetCore exported a type of the
// same name, this file would not compile ("'ByteBuffer' is ambiguous").
import NetCore

let allocator = ByteBufferAllocator()
var buffer: ByteBuffer = allocator.buffer(capacity: 16)
buffer.writeString("hello")
var headers = HTTPHeaders()
headers.add(name: "X-Trace", value: "1")
let method: HTTPMethod = .GET
let version: HTTPVersion = .http1_1
let head = HTTPRequestHead(version: version, method: method, uri: "/users/7", headers: headers)

// NetCore's own types beside them.
var request = try Request(method: .get, target: "/users/7")
try request.setHeader("X-Trace", head.headers.first(name: "X-Trace"))
let custom: Request.Method = "PROPFIND"
let fields: HeaderFields = request.headers
let body = NetBytes("{}")
let error: NetError = .cancelled
print(
    "ok \(buffer.readableBytes) \(head.method) \(request.method) \(custom) \(fields.entries.count) \(body.count) \(error.code)"
)
