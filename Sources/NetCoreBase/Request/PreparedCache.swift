/// The resolved form of one `Request` value, kept between sends of the same,
/// unchanged value to the same client (a caller that sends it many times — an
/// nc_request reused, a Swift `Request` in a loop — pays for URL building,
/// percent-encoding and the libcurl header list once). The cached form is
/// immutable and shared by the transfers that use it. A changed request gets a new
/// cache (Request's property observers); a cached form is ignored when the client's
/// settings change (environment, default headers) or another client sends.
///
/// Threads: any; guarded by a lock.
final class PreparedCache: @unchecked Sendable {
    private let lock = Lock()
    private var settings: ClientSettings?
    private var prepared: PreparedRequest?

    init() {}

    /// The form cached last, whatever settings it was made for (nil: never sent).
    var last: PreparedRequest? { lock.withLock { prepared } }

    /// The cached form for `settings`, or a new one (cached when it succeeds).
    func prepared(_ request: Request, _ settings: ClientSettings) -> Result<PreparedRequest, NetError> {
        if let hit = lock.withLock({ self.settings === settings ? prepared : nil }) { return .success(hit) }
        let made = PreparedRequest.make(request, settings)
        if case .success(let p) = made {
            lock.withLock {
                self.settings = settings
                prepared = p
            }
        }
        return made
    }
}
