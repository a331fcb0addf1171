import NetCoreBase

/// Batches for Swift concurrency (Batch.swift): several requests, one await, the
/// results in the order given. Cancelling the calling task cancels the members
/// still running (they report `NetError.cancelled`). Friendly with `TaskGroup`:
/// each group task may await a batch of its own.
extension NetClient {
    /// Sends `requests` together and returns each one's result, in order. With
    /// `.failFast` the first failure cancels the others. A client shutting down
    /// fails every one with `NetError.shutdown`; an empty list returns `[]`.
    public func batch(_ requests: [Request], policy: Batch.Policy = .settle) async -> [Result<Response, NetError>] {
        if requests.isEmpty { return [] }
        if Task.isCancelled { return requests.map { _ in .failure(.cancelled) } }
        let b = Batch(client: self, policy: policy)
        for r in requests { b.add(r) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                guard case .success = b.send(completion: { _ in done.resume() }) else {
                    done.resume()
                    return
                }
                // A cancel that came before the members existed.
                if Task.isCancelled { b.cancel(wait: false) }
            }
        } onCancel: {
            // Never waits: cancellation handlers run under the task's lock.
            b.cancel(wait: false)
        }
        guard b.isCompleted else { return requests.map { _ in .failure(.shutdown) } }
        return b.allResults.map { NetClient.outcome($0.response, $0.error) }
    }
}
