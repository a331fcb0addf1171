import NetCoreBase

/// Token refresh with an async refresher (NetCoreBase's NetClient+Refresh.swift).
extension NetClient {
    /// The refresher as an async closure returning the new token (Swift's form of
    /// `setTokenRefresher`): run in a task of its own when requests find the login
    /// expired; what it returns is installed and the waiting requests go on; what it
    /// throws fails them with AUTH_REFRESH_FAILED and the error's description, as
    /// does a token the library refuses (empty, or with a control character). nil
    /// (the default): no refresh.
    public var refresher: (@Sendable (NetError) async throws -> String)? {
        get { asyncRefresher as? @Sendable (NetError) async throws -> String }
        set {
            asyncRefresher = newValue
            guard let newValue else { setTokenRefresher(nil); return }
            setTokenRefresher { [weak self] error in
                Task {
                    do {
                        let token = try await newValue(error)
                        do throws(RefreshDoneRefusal) {
                            try self?.refreshDone(token: token)
                        } catch {
                            // A token the library refuses (empty, a control character)
                            // fails the refresh: the waiting requests must not wait on.
                            try? self?.refreshDone(token: nil, message: "the refresher returned \(error)")
                        }
                    } catch {
                        try? self?.refreshDone(token: nil, message: "\(error)")
                    }
                }
            }
        }
    }
}
