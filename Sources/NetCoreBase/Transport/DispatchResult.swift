/// What `NetClient.dispatch()` did (queue mode, CompletionQueue.swift).
public enum DispatchResult: Sendable {
    case ok
    /// The client is not in queue mode.
    case wrongMode
    /// Called from inside a completion that dispatch() is running.
    case nested
}
