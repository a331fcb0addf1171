import NetCore

/// Quick start: one client, one request, the envelope's data decoded.
func quickStart(_ base: String) async -> Bool {
    // "envelope": {} reads {"code": 0, "msg": "...", "data": ...}: code 0 is success.
    guard let client = client(#"{"base_url":"\#(base)","envelope":{}}"#) else { return false }
    defer { client.shutdown() }
    struct User: Decodable, Equatable { let id: Int; let name: String }
    do throws(NetError) {
        let user = try await client.decode(User.self, from: Request(method: "GET", target: "/env/code/ok"))
        print("user: \(user.id) \(user.name)")
        return user == User(id: 7, name: "Ada")
    } catch {
        print("error: \(error.message)")
        return false
    }
}
