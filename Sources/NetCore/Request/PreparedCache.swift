/// The resolved form of one request builder, kept between sends of the same,
/// unchanged request to the same client (the C API's nc_request: a caller that
/// sends it many times pays for URL building, percent-encoding and the libcurl
/// header list once). The cached form is immutable and shared by the transfers
/// that use it; it is dropped when the builder changes (`reset()`) and ignored
/// when the client's settings change (environment, default headers) or another
/// client sends.
///
/// Threads: any; guarded by a lock.
public final class PreparedCache: @unchecked Sendable {
    private let lock = Lock()
    private var settings: ClientSettings?
    private var prepared: PreparedRequest?

    public init() {}

    /// Forgets the cached form: call after every change to the request.
    public func reset() {
        lock.withLock {
            settings = nil
            prepared = nil
        }
    }

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
