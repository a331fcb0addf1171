import NetCoreBase

/// Token refresh with an async refresher (NetCoreBase's NetClient+Refresh.swift).
extension NetClient {
    /// The refresher as an async closure returning the new token (Swift's form of
    /// `setTokenRefresher`): run in a task of its own when requests find the login
    /// expired; what it returns is installed and the waiting requests go on; what it
    /// throws fails them with AUTH_REFRESH_FAILED and the error's description. nil
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
                        try? self?.refreshDone(token: token)
                    } catch {
                        try? self?.refreshDone(token: nil, message: "\(error)")
                    }
                }
            }
        }
    }
}
