import NetCore

/// Cancelling: a Swift task (its transfer is cancelled with it) and a group of
/// requests at once (a screen that closes).
func cancellation(_ base: String) async -> Bool {
    guard let client = client(#"{"base_url":"\#(base)","envelope":{}}"#) else { return false }
    defer { client.shutdown() }

    let slow = Task { await result(client, "GET", "/slow?ms=5000") }
    slow.cancel()   // cancels the transfer: the send throws NetError.cancelled
    let one = await slow.value
    if case .failure(NetError.cancelled) = one { print("task: cancelled") }

    // Two requests of the group "screen", then the screen closes.
    let screen = (6000...6001).map { ms in
        Task { () -> Result<Response, NetError> in
            do throws(NetError) {
                var r = try Request(method: "GET", target: "/slow?ms=\(ms)")
                try r.setGroup("screen")
                return .success(try await client.send(r))
            } catch {
                return .failure(error)
            }
        }
    }
    // A request is in its group once sent; cancel until both have been counted.
    var cancelled = 0
    for _ in 0..<500 where cancelled < 2 {
        cancelled += (try? client.cancelGroup("screen")) ?? 0   // throws only for an invalid name
        if cancelled < 2 { try? await Task.sleep(nanoseconds: 10_000_000) }
    }
    print("cancelGroup(\"screen\"): \(cancelled) request(s)")
    var allCancelled = true
    for task in screen {
        if case .failure(NetError.cancelled) = await task.value { continue }
        allCancelled = false
    }
    print("group requests cancelled: \(allCancelled)")
    if case .failure(NetError.cancelled) = one { return cancelled == 2 && allCancelled }
    return false
}
