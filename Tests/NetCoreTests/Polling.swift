/// Polls `condition` (every 10 ms, up to 10 s): for state another thread changes
/// (a loop's completion, a refresh), without asserting how long it takes.
func waitUntilAsync(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
