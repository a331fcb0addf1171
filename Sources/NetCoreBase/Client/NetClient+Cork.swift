/// Sends held together (nc_client_cork / nc_client_uncork, `corked(_:)`): while a
/// client is corked, a request sent does not wake its transfer thread; the last
/// uncork wakes it once for all of them. A caller that sends several requests in a
/// row — an event loop resuming the tasks one dispatch completed — thereby hands
/// the thread one batch instead of waking it (and, on a busy core, being preempted
/// by it) once a request. A request sent while corked still starts at the loop's
/// next pass if the loop is awake anyway (a completion, a timer); corking never
/// delays one past the uncork. Synchronous sends are not concerned.
extension NetClient {
    /// One more hold; false (nothing changed) at the count's limit (2^32 - 1). Any thread.
    package func cork() -> Bool {
        let inbox = loop.inbox
        return inbox.monitor.withLock {
            guard inbox.corks < UInt32.max else { return false }
            inbox.corks += 1
            return true
        }
    }

    /// Ends one hold; the last one wakes the transfer thread for the requests sent
    /// meanwhile, if it sleeps. False (nothing changed) when the client is not corked.
    package func uncork() -> Bool {
        let inbox = loop.inbox
        return inbox.monitor.withLock {
            guard inbox.corks > 0 else { return false }
            inbox.corks -= 1
            if inbox.corks == 0 && !inbox.pending.isEmpty { inbox.wake() }
            return true
        }
    }

    /// Runs `body` with the client corked: the requests it sends (`send`, from any
    /// thread meanwhile) reach the transfer thread together, with one wake-up, when
    /// it returns or throws.
    ///
    /// ```swift
    /// client.corked {
    ///     for request in screen { _ = client.send(request) { response, error in … } }
    /// }
    /// ```
    public func corked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let held = cork()
        defer { if held { _ = uncork() } }
        return try body()
    }
}
