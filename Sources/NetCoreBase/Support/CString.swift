import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A NUL-terminated copy of a Swift string on malloc, for strings handed to C that
/// must outlive the call (borrowed from a handle).
package final class CString: @unchecked Sendable {
    package let pointer: UnsafePointer<CChar>
    package let count: Int
    /// The copy could not be allocated: `pointer` is an empty string instead.
    package let allocationFailed: Bool

    package init(_ string: String) {
        var s = string
        let (p, n): (UnsafeMutablePointer<CChar>?, Int) = s.withUTF8 { buf in
            guard let p = malloc(buf.count + 1)?.assumingMemoryBound(to: CChar.self) else { return (nil, 0) }
            if let src = buf.baseAddress { memcpy(p, src, buf.count) }
            p[buf.count] = 0
            return (p, buf.count)
        }
        if let p {
            pointer = UnsafePointer(p)
            count = n
            allocationFailed = false
        } else {
            pointer = CString.empty
            count = 0
            allocationFailed = true
        }
    }

    deinit {
        if pointer != CString.empty { free(UnsafeMutableRawPointer(mutating: pointer)) }
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()
}

/// A string computed on first use and kept as a C string (thread-safe).
package final class CStringCache: @unchecked Sendable {
    private let value = Mutex<CString?>(nil)

    package init() {}

    package func get(_ make: () -> String) -> CString {
        value.withLock { cached in
            if let cached { return cached }
            let made = CString(make())
            cached = made
            return made
        }
    }
}
