/// What a stored answer is found by (docs/caching.md#the-key): the method and the full
/// URL as sent, its query pairs sorted bytewise (so `?b=2&a=1` and `?a=1&b=2` are
/// one entry) and its fragment dropped. The request headers that the answer's
/// `Vary` names are the second half of the key: they are stored in the entry and
/// compared at lookup (CacheEntry.matches), so one URL holds one variant — the
/// latest — as most HTTP caches do.
///
/// Made once per resolved request (`PreparedRequest.cacheKey`, itself kept per
/// request value) and only when the client has a cache: a request sent again pays
/// nothing to find its key. An answer kept in a partition (CachePartition.swift)
/// is found by the key `inPartition` makes at each send.
final class CacheKey: Sendable {
    /// "GET http://host/path?a=1&b=2"; in a partition, "p=<64 hex> GET …".
    let text: String
    /// The URL part of `text` (what nc_client_cache_remove's prefix is matched against).
    let url: String
    /// FNV-1a 64 of `text`: the disk store's file name.
    let hash: UInt64

    init(method: String, url: String) {
        let sorted = CacheKey.sortedQuery(url)
        self.url = sorted
        self.text = method + " " + sorted
        self.hash = CacheKey.fnv1a(text)
    }

    private init(text: String, url: String) {
        self.text = text
        self.url = url
        self.hash = CacheKey.fnv1a(text)
    }

    /// This key in `partition` (itself when nil): the partition's id in front of
    /// the text, so the entry's key and its disk file's name differ from every
    /// other partition's; the URL is the same (nc_client_cache_remove's prefixes
    /// match in every partition).
    func inPartition(_ partition: CachePartition?) -> CacheKey {
        guard let partition else { return self }
        return CacheKey(text: "p=" + partition.id + " " + text, url: url)
    }

    /// `url` without its fragment and with its query's pairs sorted bytewise.
    static func sortedQuery(_ url: String) -> String {
        var head = Substring(url)
        if let hash = head.firstIndex(of: "#") { head = head[..<hash] }
        guard let q = head.firstIndex(of: "?") else { return String(head) }
        let query = head[head.index(after: q)...]
        // Nothing to sort: the URL as it is (the usual case costs one scan).
        guard query.contains("&") else { return String(head) }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return String(head[...q]) + pairs.joined(separator: "&")
    }

    /// 64-bit FNV-1a (a file name, not a defence: the entry stores its key and a
    /// collision is a miss).
    static func fnv1a<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    static func fnv1a(_ s: String) -> UInt64 { fnv1a(s.utf8) }
}
