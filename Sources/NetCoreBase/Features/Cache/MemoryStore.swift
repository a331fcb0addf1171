/// The in-memory store: entries by key, in a recency list, bounded in bytes
/// (`CacheEntry.size` summed). A lookup moves its entry to the front; a store
/// that crosses the bound evicts from the back, least recently used first.
///
/// Threads: not thread-safe; ResponseCache holds its lock around every call.
struct MemoryStore {
    let limit: Int
    private(set) var bytes = 0
    private var entries: [Key: CacheEntry] = [:]

    /// A key with its FNV hash made once (CacheKey.hash): the dictionary hashes 8
    /// bytes rather than the whole URL, and equal keys of one request are one string.
    struct Key: Hashable {
        let text: String
        let hash: UInt64
        init(_ k: CacheKey) { (text, hash) = (k.text, k.hash) }
        init(_ e: CacheEntry) { (text, hash) = (e.key, e.keyHash) }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.text == b.text }
    }
    /// Most and least recently used.
    private var newest: CacheEntry?
    private var oldest: CacheEntry?

    init(limit: Int) { self.limit = max(limit, 0) }

    var count: Int { entries.count }

    /// The entry for `key`, made the most recently used.
    mutating func get(_ key: CacheKey) -> CacheEntry? {
        guard let e = entries[Key(key)] else { return nil }
        unlink(e)
        pushFront(e)
        return e
    }

    /// Stores `e` (replacing the entry of its key); returns how many entries were
    /// evicted to stay within `limit`. An entry larger than the whole bound is not
    /// kept (and whatever it replaces is removed).
    mutating func put(_ e: CacheEntry) -> Int {
        let key = Key(e)
        guard e.size <= limit else {
            if let old = entries.removeValue(forKey: key) { drop(old) }
            return 0
        }
        if let old = entries.updateValue(e, forKey: key) { drop(old) }
        pushFront(e)
        bytes += e.size
        var evicted = 0
        while bytes > limit, let victim = oldest, victim !== e {
            entries.removeValue(forKey: Key(victim))
            drop(victim)
            evicted += 1
        }
        return evicted
    }

    mutating func remove(_ key: CacheKey) {
        if let old = entries.removeValue(forKey: Key(key)) { drop(old) }
    }

    /// Removes every entry whose URL starts with `prefix`; returns how many.
    mutating func remove(urlPrefix prefix: String) -> Int {
        let doomed = entries.values.filter { $0.url.hasPrefix(prefix) }
        for e in doomed {
            entries.removeValue(forKey: Key(e))
            drop(e)
        }
        return doomed.count
    }

    mutating func removeAll() {
        // Break the list's links (both directions are strong).
        var e = newest
        while let current = e {
            e = current.older
            current.newer = nil
            current.older = nil
        }
        newest = nil
        oldest = nil
        entries.removeAll()
        bytes = 0
    }

    private mutating func drop(_ e: CacheEntry) {
        unlink(e)
        bytes -= e.size
    }

    private mutating func unlink(_ e: CacheEntry) {
        if let n = e.newer { n.older = e.older } else if newest === e { newest = e.older }
        if let o = e.older { o.newer = e.newer } else if oldest === e { oldest = e.newer }
        e.newer = nil
        e.older = nil
    }

    private mutating func pushFront(_ e: CacheEntry) {
        e.older = newest
        e.newer = nil
        newest?.newer = e
        newest = e
        if oldest == nil { oldest = e }
    }
}
