import NetCore

/// The three envelope shapes and raw mode: a business failure (HTTP 200 with a
/// failing envelope) throws an NCAPIErrorDomain error with the server's code,
/// message and trace id.
func envelopes(_ base: String) async -> Bool {
    let shapes = [
        ("A (code)", #"{"code":"code","ok_codes":[0],"message":"msg","data":"data"}"#, "/env/code"),
        (
            "B (success flag)",
            #"{"success":"success","code":"code","message":"msg","data":"data","trace_id":"traceId"}"#,
            "/env/success"
        ),
        (
            "C (status)",
            #"{"status":"status","ok_status":["OK"],"code":"errorCode","ok_codes":["0"],"message":"errorMsg","data":"content"}"#,
            "/env/status"
        )
    ]
    var ok = true
    for (name, envelope, prefix) in shapes {
        guard let client = client(#"{"base_url":"\#(base)","envelope":\#(envelope)}"#) else { return false }
        print("envelope \(name)")
        switch await result(client, "GET", prefix + "/ok") {
        case .success(let r): print("  ok: \(r.data?.text ?? "null")")
        case .failure(let e): print("  unexpected: \(e.message)"); ok = false
        }
        switch await result(client, "GET", prefix + "/fail") {
        case .success: ok = false
        case .failure(let e):
            print("  api error \(e.codeString): \(e.message)" + (e.traceID.map { " [trace \($0)]" } ?? ""))
            ok = ok && e.domain == .api
        }
        client.shutdown()
    }
    // Raw mode: no envelope; the body is the data, only HTTP errors fail.
    guard let raw = client(#"{"base_url":"\#(base)"}"#) else { return false }
    defer { raw.shutdown() }
    print("raw mode")
    if case .success(let r) = await result(raw, "GET", "/env/code/fail") {
        print("  ok: \(r.data?.text ?? "null")")
    } else {
        ok = false
    }
    return ok
}
