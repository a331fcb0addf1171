import CCurlShim

#if canImport(Glibc)
import Glibc
#endif

/// A download (Request.outputPath) on disk: the body goes to `path.part`, which is
/// renamed to `path` when the request succeeds, so a failed or cancelled download
/// never leaves a file at `path`. The sidecar `path.part.meta` holds one line, the
/// validator (ETag, else Last-Modified) of the response that started the .part; it
/// exists only when that response also said `Accept-Ranges: bytes` (ncdownload.c
/// writes it), and then a later send — or a retry of this one — continues the .part
/// with `Range: bytes=<size>-` and `If-Range: <validator>`: a 206 appends, a 200
/// starts it over. A .part without a sidecar is started over, never resumed.
///
/// A path that exists and is not a regular file (a device, a FIFO) is written in
/// place: no .part, no resume, no rename.
///
/// Threads: the thread that drives the transfer only.
final class Download {
    let path: String
    let partPath: String
    let metaPath: CString
    /// The descriptor and resume state the sink reads (ncdownload.h).
    let state: UnsafeMutablePointer<ncdownload>
    /// Written in place (see above): the sink gets no `state`.
    let inPlace: Bool
    /// `If-Range: <validator>` after the request's own headers, for a hop that resumes.
    private var resumeHeaders: UnsafeMutablePointer<curl_slist>?
    /// The request header list `resumeHeaders` copies (rebuilt when the hop's differs).
    private var resumeBase: UnsafeMutablePointer<curl_slist>?
    /// "<offset>-" for CURLOPT_RANGE (libcurl copies it).
    private(set) var rangeText = ""

    var fd: Int32 { state.pointee.fd }

    private init(path: String, fd: Int32, inPlace: Bool) {
        self.path = path
        partPath = path + ".part"
        metaPath = CString(path + ".part.meta")
        self.inPlace = inPlace
        state = .allocate(capacity: 1)
        state.initialize(to: ncdownload(fd: fd, offset: 0, meta_path: nil, restarted: 0, appended: 0))
        state.pointee.meta_path = inPlace ? nil : metaPath.pointer
    }

    deinit {
        if state.pointee.fd >= 0 { close(state.pointee.fd) }
        state.deinitialize(count: 1)
        state.deallocate()
        if let resumeHeaders { curl_slist_free_all(resumeHeaders) }
    }

    /// Opens the download's file for `path`: Result.failure carries the reason text.
    static func open(_ path: String) -> Result<Download, DownloadError> {
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return .failure(DownloadError(path: path, reason: errnoText())) }
            return .success(Download(path: path, fd: fd, inPlace: true))
        }
        let part = path + ".part"
        let fd = Glibc.open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return .failure(DownloadError(path: part, reason: errnoText())) }
        // Two downloads into one .part would interleave their bytes.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return .failure(DownloadError(path: part, reason: "another download is writing it"))
        }
        return .success(Download(path: path, fd: fd, inPlace: false))
    }

    /// Before each hop: what the .part holds decides the request. With bytes and a
    /// sidecar naming a validator, ask for the rest (`offset` > 0); otherwise start
    /// over (an empty .part, no sidecar).
    func beginHop() {
        state.pointee.restarted = 0
        state.pointee.appended = 0
        state.pointee.offset = 0
        guard !inPlace else { return }
        let size = lseek(fd, 0, SEEK_END)
        if size > 0, let validator = readValidator() {
            state.pointee.offset = Int64(size)
            rangeText = "\(size)-"
            setValidator(validator)
            return
        }
        if size != 0 {
            _ = ftruncate(fd, 0)
            _ = lseek(fd, 0, SEEK_SET)
        }
        unlink(metaPath.pointer)
    }

    /// The header list a resuming hop sends: the request's own, then If-Range.
    func headers(after base: UnsafeMutablePointer<curl_slist>?) -> UnsafeMutablePointer<curl_slist>? {
        if resumeBase != base, let old = resumeHeaders {
            curl_slist_free_all(old)
            resumeHeaders = nil
        }
        if resumeHeaders == nil {
            var list: UnsafeMutablePointer<curl_slist>? = nil
            var node = base
            while let n = node {
                if let line = n.pointee.data, let next = curl_slist_append(list, line) { list = next }
                node = n.pointee.next
            }
            if let next = curl_slist_append(list, "If-Range: \(validator)") { list = next }
            resumeHeaders = list
            resumeBase = base
        }
        return resumeHeaders
    }

    private var validator = ""

    private func setValidator(_ v: String) {
        if v != validator, let old = resumeHeaders {
            curl_slist_free_all(old)
            resumeHeaders = nil
        }
        validator = v
    }

    /// The sidecar's validator: its first line, if it has one that can be sent.
    private func readValidator() -> String? {
        let fd = Glibc.open(metaPath.pointer, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1100)
        let n = read(fd, &buffer, buffer.count)
        guard n > 1, let end = buffer[0..<n].firstIndex(of: 0x0A), end > 0 else { return nil }
        let line = buffer[0..<end]
        guard line.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    /// Ends the download: on success the .part becomes `path` (and the sidecar goes);
    /// on failure `path` is not touched, and the .part is kept only when it can be
    /// resumed (bytes and a sidecar), else removed. Nil, or why finishing failed.
    func finish(succeeded: Bool, status: Int32) -> String? {
        let fdToClose = state.pointee.fd
        state.pointee.fd = -1
        if succeeded && !inPlace && status != 206 && state.pointee.offset > 0 && state.pointee.restarted == 0 {
            // A 2xx without a body byte (nothing started the .part over): the old
            // bytes are not this response's.
            _ = ftruncate(fdToClose, 0)
        }
        let closed = close(fdToClose) == 0 ? nil : errnoText()
        guard !inPlace else { return succeeded ? closed.map { "closing '\(path)': \($0)" } : nil }
        if succeeded {
            if let closed {
                discard()
                return "closing '\(partPath)': \(closed)"
            }
            if rename(partPath, path) != 0 {
                let reason = errnoText()
                discard()
                return "renaming '\(partPath)' to '\(path)': \(reason)"
            }
            unlink(metaPath.pointer)
            return nil
        }
        // 416 to a resumed request: the server has no bytes past the .part (it is
        // complete, or the resource shrank): resuming again would fail the same way.
        let unsatisfiable = status == 416 && state.pointee.offset > 0
        var st = stat()
        let resumable =
            closed == nil && !unsatisfiable && stat(partPath, &st) == 0 && st.st_size > 0
            && access(metaPath.pointer, F_OK) == 0
        if !resumable { discard() }
        return nil
    }

    private func discard() {
        unlink(partPath)
        unlink(metaPath.pointer)
    }
}

/// Why a download's file could not be opened.
struct DownloadError: Error {
    let path: String
    let reason: String
}

private func errnoText() -> String { String(cString: strerror(errno)) }

extension Transfer {
    /// Opens the request's download once per transfer, then readies it for this hop
    /// (resume or start over). Nil on success or when there is none, else the error
    /// to complete with (nothing was sent).
    func openOutput() -> NetError? {
        guard let p = prepared, let path = p.outputPath else { return nil }
        if download == nil {
            switch Download.open(path) {
            case .success(let d): download = d
            case .failure(let f):
                var e = TransportErrors.error(
                    code: CURLE_WRITE_ERROR, detail: "cannot open '\(f.path)' for writing: \(f.reason)",
                    method: p.method, url: String(cString: p.url.pointer))
                e.attempts = 0
                return e
            }
        }
        download?.beginHop()
        return nil
    }

    /// The completion's result once the download is finished (renamed or not): a
    /// successful download whose file could not be closed or renamed fails with
    /// TRANSPORT 23.
    func closingOutput(_ response: Response?, _ error: NetError?) -> (Response?, NetError?) {
        extras?.finish()   // the last progress call, before the completion
        guard let d = download else { return (response, error) }
        download = nil
        let succeeded = error == nil && response != nil
        let status = response?.status ?? (error?.domain == .http ? Int32(clamping: error?.code ?? 0) : 0)
        guard let reason = d.finish(succeeded: succeeded, status: status), succeeded,
            let p = prepared
        else { return (response, error) }
        return (
            nil,
            TransportErrors.error(
                code: CURLE_WRITE_ERROR, detail: reason, method: p.method, url: String(cString: p.url.pointer))
        )
    }
}

extension EasyHandle {
    /// Points the sink at the transfer's download and, when the hop resumes one,
    /// sets the Range and If-Range it sends. Called after configure's options.
    func applyDownload(_ d: Download, _ p: PreparedRequest) {
        guard !d.inPlace else { return }
        sink.pointee.dl = d.state
        guard d.state.pointee.offset > 0 else { return }
        _ = ncshim_easy_setopt_ptr(handle, CURLOPT_RANGE, d.rangeText)
        _ = ncshim_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, d.headers(after: p.headerList))
        // The next transfer on this handle sets its options again (headers, range).
        configuredFor = nil
        hasTransferExtras = true
    }
}

extension EasyHandle {
    /// Clears what applyDownload and applyProgress set, so a pooled handle's next
    /// transfer sends no Range and reports no progress.
    func clearTransferExtras() {
        _ = ncshim_easy_setopt_ptr(handle, CURLOPT_RANGE, nil)
        _ = ncshim_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 1)
        _ = ncshim_easy_setopt_ptr(handle, CURLOPT_XFERINFODATA, nil)
        configuredFor = nil
        hasTransferExtras = false
    }
}
