#if canImport(Glibc)
import Glibc
#endif

extension RetryPolicy {
    /// The wait before retry `n` (after attempt `n` failed), ms: immediate 0,
    /// constant `initialMs`, exponential `initialMs × multiplier^(n−1)`; capped by
    /// `maxDelayMs`; with `jitter`, scaled by `random` (0..<1: "full jitter", a
    /// uniform draw from 0 up to the wait).
    func delayMs(beforeRetry n: Int32, random: Double) -> Int64 {
        let cap = Double(max(maxDelayMs, 0))
        var wait: Double
        switch backoff {
        case .immediate: return 0
        case .constant: wait = Double(initialMs)
        case .exponential: wait = Double(initialMs) * pow(multiplier, Double(max(n, 1) - 1))
        }
        // pow overflows to +inf for long series: the cap holds it (NaN cannot occur:
        // multiplier ≥ 1, initialMs ≥ 0).
        if !(wait <= cap) { wait = cap }
        if jitter { wait *= min(max(random, 0), 1) }
        return Int64(wait)
    }
}
