import CNetCore
import NetCoreBase

// Conversions shared by every nc_* function: C strings in, handles in and out,
// borrowed C strings out. No behaviour lives here.

/// A NUL-terminated C string as Swift text; nil for NULL or invalid UTF-8.
@inline(__always)
func text(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    return String(validatingCString: p)
}

/// A static C string (string literals are stored NUL-terminated).
@inline(__always)
func staticC(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Handle <-> object. Handles are Unmanaged references; `retained` gives the caller
/// a +1 reference, `borrow` reads one without touching the count.
@inline(__always)
func retained<T: AnyObject>(_ object: T) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

@inline(__always)
func unretained<T: AnyObject>(_ object: T) -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
}

@inline(__always)
func borrow<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) -> T? {
    guard let handle else { return nil }
    return Unmanaged<T>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

/// Runs `body` with the object behind `handle`, borrowed without a retain: only
/// where the caller's contract keeps it alive for the call and no user code runs
/// meanwhile (nc_client_send, the response readers).
@inline(__always)
func withBorrowed<T: AnyObject, R>(_ handle: OpaquePointer, as: T.Type, _ body: (T) -> R) -> R {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(handle))._withUnsafeGuaranteedRef(body)
}

@inline(__always)
func release<T: AnyObject>(_ handle: OpaquePointer?, as: T.Type) {
    guard let handle else { return }
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(handle)).release()
}

/// Applies one change to an nc_request builder (every nc_request_set_*): any
/// refusal is NC_ERR_INVALID_ARGUMENT and leaves the builder unchanged.
@inline(__always)
func edit(_ request: OpaquePointer?, _ change: (inout Request) throws(NetError) -> Void) -> nc_status {
    guard let box = borrow(request, as: RequestBox.self) else { return NC_ERR_INVALID_ARGUMENT }
    var copy = box.current.request
    do throws(NetError) {
        try change(&copy)
    } catch {
        return NC_ERR_INVALID_ARGUMENT
    }
    box.current = RequestBox.Snapshot(copy)
    return NC_OK
}

/// A jansson value owned by NetCore, as the header's `json_t *`.
@inline(__always)
func jsonPointer(_ p: OpaquePointer?) -> UnsafeMutablePointer<json_t>? {
    p.map { UnsafeMutablePointer<json_t>($0) }
}

// Status, domain and code numbers are the header's macros (NC_OK, NC_DOMAIN_*, ...),
// never re-declared here; NetCore's own numbers (NetError.Domain, ClientCode,
// ParseCode, ParameterEncoding) are checked against them by
// Tests/CAPITests/HeaderAgreementTests.swift.
