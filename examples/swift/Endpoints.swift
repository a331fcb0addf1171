import NetCore

/// Endpoints: name an API's calls once in the configuration, call them by name.
func endpoints(_ base: String) async -> Bool {
    let config = #"""
        {"base_url":"\#(base)","envelope":{},
         "endpoints":{"user.login":{"method":"POST","path":"/login","encoding":"json"},
                      "user.get":{"method":"GET","path":"/users/{id}"}}}
        """#
    guard let client = client(config) else { return false }
    defer { client.shutdown() }
    struct Login: Decodable { let token: String }
    do throws(NetError) {
        let login = try await client.call("user.login", params: json(#"{"username":"ada","password":"secret"}"#))
        let token = try login.decode(Login.self).token
        print("token: \(token)")
        try client.setToken(token)   // Authorization: Bearer … on every later request
        let user = try await client.call("user.get", params: json(#"{"id":7}"#))
        print("user 7: \(user.data?.text ?? "null")")
        do {
            _ = try await client.call("user.get", params: json(#"{"id":99}"#))
            return false
        } catch {
            print("user 99: business error \(error.code): \(error.message)")
        }
        return token == "tok-ada" && user.data?.text == #"{"id":7,"name":"Ada"}"#
    } catch {
        print("error: \(error.message)")
        return false
    }
}

/// JSON text as a JSONValue (the examples' params are constants).
func json(_ text: String) throws(NetError) -> JSONValue {
    switch JSONValue.parse(text) {
    case .success(let v): return v
    case .failure(let f): throw NetError.invalidArgument("bad JSON: \(f.reason)")
    }
}
