import NetCoreBase

/// Reachability as an `AsyncSequence` (issue: an app watches the network as a
/// stream, as the Alamofire-based designs' `NetworkReachabilityManager` listener).
extension NetClient {
    /// `isReachable` now, then after each change of it: a `reachability` mode change
    /// that changes the answer, or (AUTO) the routing table gaining or losing its last
    /// route off the machine. Each iteration of the sequence is its own observer,
    /// removed when the iteration ends (a `break`, the task cancelled); the values are
    /// buffered (the newest kept) so a slow consumer sees the latest state.
    ///
    ///     for await online in client.reachabilityUpdates {
    ///         banner.isHidden = online
    ///     }
    ///
    /// A request waiting out a retry's delay when the network returns is sent at
    /// once, and its events say so (a `retry` event of delay 0 whose reason starts
    /// "network returned").
    public var reachabilityUpdates: ReachabilityUpdates { ReachabilityUpdates(client: self) }
}

/// The `AsyncSequence` of `NetClient.reachabilityUpdates`: `true` while a request
/// to a host other than loopback would be sent.
public struct ReachabilityUpdates: AsyncSequence, Sendable {
    /// `true`: reachable (`NetClient.isReachable`).
    public typealias Element = Bool
    let client: NetClient

    /// A new observer of the client: the state now, then each change, until the
    /// iteration ends.
    public func makeAsyncIterator() -> AsyncStream<Bool>.Iterator {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(16))
        // Observe first, then yield the state now: a change in between is not lost
        // (it may repeat the state just yielded, never skip one).
        let key = client.addReachabilityObserver { continuation.yield($0) }
        let client = self.client
        continuation.onTermination = { _ in client.removeReachabilityObserver(key) }
        continuation.yield(client.isReachable)
        return stream.makeAsyncIterator()
    }
}
