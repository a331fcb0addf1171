import CCurlShim
#if canImport(Glibc)
import Glibc
#endif

/// The transfer loop of one client: one libcurl multi handle driven by one thread
/// (`curl_multi_poll` + `curl_multi_wakeup`). Other threads only queue work
/// (submissions, cancels, shutdown) under `monitor` and wake the loop; every
/// libcurl call on the multi handle happens on the loop thread. No lock is held
/// while user code runs.
final class TransferLoop: @unchecked Sendable {
    let monitor = Monitor()
    let mode: Configuration.CallbackMode
    private let limits: Configuration.Limits

    // Guarded by monitor.
    private var multi: UnsafeMutableRawPointer?
    private var pending: [Transfer] = []
    private var cancels: [Transfer] = []
    private var shuttingDown = false
    private var completed: [Transfer] = []      // queue mode: waiting for dispatch()
    private var dispatchThread: pthread_t?      // queue mode: thread inside dispatch()

    // Loop thread only.
    private var thread: pthread_t?
    /// Transfers in the multi handle; each knows its slot (`activeSlot`).
    private var active: [Transfer] = []
    private var easyPool: [EasyHandle] = []
    private var messages: [(Transfer, UnsafeMutableRawPointer, CURLcode)] = []
    /// A callback queued a submission: skip the next poll (loop thread only).
    private var submittedFromLoop = false

    /// Queue mode's notification descriptor (eventfd), -1 in loop mode.
    let eventFD: Int32

    init?(mode: Configuration.CallbackMode, limits: Configuration.Limits) {
        CurlGlobal.ensureInitialized()
        guard let m = curl_multi_init() else { return nil }
        if mode == .queue {
            let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
            if fd < 0 { curl_multi_cleanup(m); return nil }
            eventFD = fd
        } else {
            eventFD = -1
        }
        self.mode = mode
        self.limits = limits
        multi = m
        _ = ncshim_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        // CURLMOPT_MAXCONNECTS stays libcurl's default (4 × the transfers added), so
        // the idle-connection cache grows with concurrency and keep-alive holds.
        guard let t = startThread({ [self] in run() }) else {
            curl_multi_cleanup(m)
            if eventFD >= 0 { close(eventFD) }
            return nil
        }
        thread = t
    }

    deinit {
        if eventFD >= 0 { close(eventFD) }
    }

    // MARK: called from any thread

    /// Queues a transfer. False if the client is shutting down.
    func submit(_ t: Transfer) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard !shuttingDown, let multi else { return false }
        let wasEmpty = pending.isEmpty
        pending.append(t)
        if isCurrentThread(thread) {
            // From a callback: the loop looks at the queue before it polls again.
            submittedFromLoop = true
        } else if wasEmpty {
            // A non-empty queue means a wake-up is already on its way.
            curl_multi_wakeup(multi)
        }
        return true
    }

    /// True when the caller runs inside one of this client's callbacks.
    var isCallbackThread: Bool {
        if isCurrentThread(thread) { return true }
        return monitor.withLock { isCurrentThread(dispatchThread) }
    }

    func cancel(_ t: Transfer) {
        if isCurrentThread(thread) { cancelOnLoopThread(t); return }
        monitor.lock()
        defer { monitor.unlock() }
        enqueueCancel(t)
        // In queue mode the completion runs at the next dispatch(): do not wait.
        // Inside dispatch() the transfer may be the one running: do not wait.
        if mode == .queue || isCurrentThread(dispatchThread) { return }
        while !t.done { monitor.wait() }
    }

    /// Asks the loop thread to cancel `t` and returns at once, from any thread
    /// (this loop's included): never waits, never runs the completion on the
    /// calling thread. For callers that hold a lock the completion may need, such
    /// as a Swift task-cancellation handler (see NetClient+Async.swift). Idempotent.
    func requestCancel(_ t: Transfer) {
        monitor.withLock { enqueueCancel(t) }
    }

    /// Queues `t` for the loop's cancel pass, once. Call with the monitor held.
    private func enqueueCancel(_ t: Transfer) {
        if t.done || t.cancelRequested { return }
        t.cancelRequested = true
        cancels.append(t)
        if let multi { curl_multi_wakeup(multi) }
    }

    /// Blocks until `t` has completed. Not from the loop thread.
    func wait(_ t: Transfer) {
        monitor.lock()
        while !t.done { monitor.wait() }
        monitor.unlock()
    }

    /// Stops the loop: every transfer completes with `NetError.shutdown`; returns
    /// after the loop thread has exited. Queued completions (queue mode) then run
    /// on the calling thread. False (nothing done) from inside a callback.
    func shutdown() -> Bool {
        if isCallbackThread { return false }
        monitor.lock()
        if shuttingDown {
            monitor.unlock()
            return true
        }
        shuttingDown = true
        if let multi { curl_multi_wakeup(multi) }
        monitor.unlock()
        if let thread { pthread_join(thread, nil) }
        if mode == .queue { _ = dispatch(force: true) }
        monitor.withLock {
            if let multi { curl_multi_cleanup(multi) }
            multi = nil
        }
        easyPool.removeAll()
        return true
    }

    func dispatch(force: Bool = false) -> DispatchResult {
        guard mode == .queue else { return .wrongMode }
        monitor.lock()
        if dispatchThread != nil && !force {
            monitor.unlock()
            return .nested
        }
        let batch = completed
        completed.removeAll()
        var counter: UInt64 = 0
        _ = read(eventFD, &counter, 8)
        dispatchThread = pthread_self()
        monitor.unlock()
        for t in batch {
            t.deliver(t.result.0, t.result.1)
            t.result = (nil, nil)
            markDone(t)
        }
        monitor.withLock { dispatchThread = nil }
        return .ok
    }

    // MARK: loop thread

    private func run() {
        guard let multi = monitor.withLock({ self.multi }) else { return }
        var running: Int32 = 0
        var newOnes: [Transfer] = []
        var cancelled: [Transfer] = []
        while true {
            monitor.lock()
            swap(&newOnes, &pending)
            swap(&cancelled, &cancels)
            let stopping = shuttingDown
            monitor.unlock()

            for t in newOnes { start(t, multi, stopping: stopping) }
            newOnes.removeAll(keepingCapacity: true)
            for t in cancelled {
                if let easy = t.easy, t.activeSlot >= 0 {
                    let sent = attempts(t, easy)
                    stop(t, easy, multi)
                    complete(t, nil, NetError.cancelled.attempted(sent))
                }
            }
            cancelled.removeAll(keepingCapacity: true)
            if stopping {
                for t in active.reversed() {
                    var sent: Int32 = 0
                    if let easy = t.easy {
                        sent = attempts(t, easy)
                        stop(t, easy, multi)
                    }
                    complete(t, nil, NetError.shutdown.attempted(sent))
                }
                return
            }

            _ = curl_multi_perform(multi, &running)
            drainMessages(multi)
            if submittedFromLoop {
                submittedFromLoop = false
                continue
            }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func start(_ t: Transfer, _ multi: UnsafeMutableRawPointer, stopping: Bool) {
        if stopping { complete(t, nil, .shutdown); return }
        if let e = t.presetError { complete(t, nil, e); return }
        if monitor.withLock({ t.cancelRequested }) { complete(t, nil, .cancelled); return }
        launch(t, multi)
    }

    /// Puts `t` (its current hop) into the multi handle.
    private func launch(_ t: Transfer, _ multi: UnsafeMutableRawPointer) {
        guard let prepared = t.prepared, let easy = easyPool.popLast() ?? EasyHandle() else {
            complete(t, nil, NetError.internalError("libcurl could not create a transfer (out of memory).").attempted(t.redirects > 0 ? 1 : 0))
            return
        }
        t.easy = easy
        configure(easy, for: t, prepared)
        guard curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
            t.easy = nil
            easyPool.append(easy)
            complete(t, nil, NetError.internalError("libcurl refused the transfer.").attempted(t.redirects > 0 ? 1 : 0))
            return
        }
        t.activeSlot = active.count
        active.append(t)
    }

    /// Sets what changes from one transfer to the next. Fixed options are set once
    /// per easy handle (EasyHandle.init); handles are reused without curl_easy_reset,
    /// so every option set here is set on every transfer.
    private func configure(_ easy: EasyHandle, for t: Transfer, _ p: PreparedRequest) {
        let h = easy.handle
        let me = Unmanaged.passUnretained(t).toOpaque()
        easy.errorBuffer[0] = 0
        easy.arm(p.limits)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_URL, p.url.pointer)
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_PRIVATE, me)
        _ = ncshim_easy_setopt_long(h, CURLOPT_TIMEOUT_MS, Int(clamping: p.timeoutMs))
        _ = ncshim_easy_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: p.connectTimeoutMs))
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_HTTPHEADER, p.headerList)
        if easy.decodesContent != p.decodesContent {
            // Decompression is on when Accept-Encoding is sent; the header line itself
            // comes from the request's list, which suppresses libcurl's own.
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_ACCEPT_ENCODING, p.decodesContent ? CurlGlobal.empty : nil)
            easy.decodesContent = p.decodesContent
        }
        // Back to a plain GET (HTTPGET also clears NOBODY and a previous POST),
        // then the method of this transfer.
        _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, nil)
        _ = ncshim_easy_setopt_long(h, CURLOPT_HTTPGET, 1)
        if p.method == "HEAD" {
            _ = ncshim_easy_setopt_long(h, CURLOPT_NOBODY, 1)
        } else if let body = p.body {
            // POSTFIELDS makes libcurl send POST; any other method is named explicitly.
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, body.pointer)
            if p.method != "POST" { _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer) }
        } else if p.method == "POST" {
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, CurlGlobal.empty)
        } else if p.method != "GET" {
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer)
        }
    }

    /// 1 if the request (or an earlier redirect hop) reached the network, else 0:
    /// a transfer may wait in the multi handle for a free connection.
    private func attempts(_ t: Transfer, _ easy: EasyHandle) -> Int32 {
        if t.redirects > 0 { return 1 }
        var sent: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_REQUEST_SIZE, &sent)
        return sent > 0 ? 1 : 0
    }

    /// Takes a transfer out of the multi handle and recycles its easy handle.
    private func stop(_ t: Transfer, _ easy: EasyHandle, _ multi: UnsafeMutableRawPointer) {
        _ = curl_multi_remove_handle(multi, easy.handle)
        let slot = t.activeSlot
        if slot >= 0 && slot < active.count {
            let last = active.removeLast()
            if slot < active.count {
                active[slot] = last
                last.activeSlot = slot
            }
        }
        t.activeSlot = -1
        t.easy = nil
        if easyPool.count < 64 { easyPool.append(easy) }
    }

    private func drainMessages(_ multi: UnsafeMutableRawPointer) {
        // Read every message (and whose transfer it is) before completing any: a
        // completion may remove or recycle other easy handles, which invalidates
        // libcurl's message storage and may hand a handle to another transfer.
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let h = msg.pointee.easy_handle else { continue }
            var priv: UnsafeMutableRawPointer? = nil
            guard ncshim_easy_getinfo_ptr(h, CURLINFO_PRIVATE, &priv) == CURLE_OK, let priv else { continue }
            messages.append((Unmanaged<Transfer>.fromOpaque(priv).takeUnretainedValue(), h, ncshim_msg_result(msg)))
        }
        for (t, h, code) in messages {
            // A callback earlier in this batch may have cancelled it already.
            guard t.activeSlot >= 0, let easy = t.easy, easy.handle == h else { continue }
            finish(t, easy, code, multi)
        }
        messages.removeAll(keepingCapacity: true)
    }

    private func finish(_ t: Transfer, _ easy: EasyHandle, _ code: CURLcode, _ multi: UnsafeMutableRawPointer) {
        guard let p = t.prepared else { return }
        var status: Int = 0
        _ = ncshim_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
        // libcurl follows no redirects here (see Redirect.swift): the URL that
        // answered is this hop's.
        if code != CURLE_OK {
            let detail = easy.errorDetail
            let reason = easy.abortReason
            stop(t, easy, multi)
            let error: NetError
            switch reason {
            case Int32(NCSINK_BODY_TOO_LARGE): error = NetError.responseTooLarge(limit: p.limits.maxResponseBytes).attempted(1)
            case Int32(NCSINK_HEADERS_TOO_LARGE): error = NetError.headersTooLarge(countLimit: p.limits.maxHeaderCount, byteLimit: p.limits.maxHeaderBytes).attempted(1)
            case Int32(NCSINK_NO_MEMORY): error = NetError.internalError("Out of memory while receiving the response.").attempted(1)
            default: error = TransportErrors.error(code: code, detail: detail, method: p.method, url: String(cString: p.url.pointer))
            }
            complete(t, nil, error)
            return
        }
        let body = easy.takeBody(), headers = easy.takeHeaders()
        stop(t, easy, multi)
        if Redirect.statuses.contains(status), p.limits.maxRedirects > 0,
           let location = headers.value("location"), !location.isEmpty {
            follow(t, p, location: location, status: status, multi)
            return
        }
        let (response, error) = Classifier.classify(.init(
            status: Int32(clamping: status), headers: headers, body: body,
            method: p.method, url: p.url, envelope: p.envelope))
        complete(t, response, error)
    }

    /// Sends the next hop of a redirect, or fails the transfer as libcurl would
    /// (47 too many redirects, 1 unsupported scheme, 3 malformed Location).
    private func follow(_ t: Transfer, _ p: PreparedRequest, location: String, status: Int,
                        _ multi: UnsafeMutableRawPointer) {
        func fail(_ code: CURLcode, _ detail: String) {
            complete(t, nil, TransportErrors.error(code: code, detail: detail, method: p.method,
                                                   url: String(cString: p.url.pointer)))
        }
        guard t.redirects < p.limits.maxRedirects else {
            fail(CURLE_TOO_MANY_REDIRECTS, "Maximum (\(p.limits.maxRedirects)) redirects followed")
            return
        }
        switch Redirect.resolve(location, from: p.url.pointer) {
        case .failure(.scheme(let scheme)):
            fail(CURLE_UNSUPPORTED_PROTOCOL, "redirect to a '\(scheme)' URL refused")
        case .failure(.malformed(let text)):
            fail(CURLE_URL_MALFORMAT, "redirect Location '\(text)' is not a valid URL")
        case .success(let next):
            t.redirects += 1
            t.prepared = p.redirected(to: next.url, status: status, crossOrigin: next.crossOrigin)
            launch(t, multi)
        }
    }

    /// Delivers the single completion: now (loop mode, inline transfers) or via the
    /// queue (queue mode).
    private func complete(_ t: Transfer, _ response: Response?, _ error: NetError?) {
        if mode == .queue && !t.deliversInline {
            t.result = (response, error)
            monitor.lock()
            let wasEmpty = completed.isEmpty
            completed.append(t)
            if wasEmpty {
                var one: UInt64 = 1
                _ = write(eventFD, &one, 8)
            }
            monitor.unlock()
            return
        }
        if t.deliversInline { t.result = (response, error) }
        t.deliver(response, error)
        markDone(t)
    }

    private func markDone(_ t: Transfer) {
        monitor.lock()
        t.done = true
        monitor.broadcast()
        monitor.unlock()
    }

    /// nc_task_cancel from inside a callback running on the loop thread: act now,
    /// since waiting for the loop would wait for ourselves.
    private func cancelOnLoopThread(_ t: Transfer) {
        guard let multi = monitor.withLock({ self.multi }) else { return }
        if let easy = t.easy, t.activeSlot >= 0 {
            let sent = attempts(t, easy)
            stop(t, easy, multi)
            complete(t, nil, NetError.cancelled.attempted(sent))
            return
        }
        let wasPending: Bool = monitor.withLock {
            guard !t.done, let i = pending.firstIndex(where: { $0 === t }) else { return false }
            pending.remove(at: i)
            return true
        }
        if wasPending { complete(t, nil, .cancelled) }
        // Otherwise it is completing (perhaps this very callback) or done.
    }
}

/// What `dispatch()` did.
public enum DispatchResult: Sendable {
    case ok
    /// The client is not in queue mode.
    case wrongMode
    /// Called from inside a completion that dispatch() is running.
    case nested
}

extension NetError {
    func attempted(_ n: Int32) -> NetError {
        var e = self
        e.attempts = n
        return e
    }
}

/// Process-wide libcurl state.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func ensureInitialized() { _ = initialized }

    private static let protocolsText = CString("http,https")
    private static let emptyText = CString("")
    static var protocols: UnsafePointer<CChar> { protocolsText.pointer }
    static var empty: UnsafePointer<CChar> { emptyText.pointer }
}
