#if canImport(Glibc)
import Glibc
#endif

extension Transfer {
    /// Opens the request's body file, and checks that every file of a multipart
    /// body can be read, once per attempt (beginAttempt closes the file), before
    /// the attempt sends anything (Upload). Nil on success or when there is no
    /// upload, else the error to complete with: CLIENT `invalidRequest` naming the
    /// file, attempts the earlier ones.
    func openInput() -> NetError? {
        guard inputFD < 0, let p = prepared, let upload = p.upload else { return nil }
        let url = String(cString: p.url.pointer)
        if var e = upload.unreadableFile(method: p.method, url: url) {
            e.attempts = max(0, attempt - 1)
            return e
        }
        guard case .file(let path, _) = upload else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            var e = NetError.invalidRequest(
                "\(p.method) \(url): cannot read the upload file '\(path)': \(reason); nothing was sent.")
            e.attempts = max(0, attempt - 1)
            return e
        }
        inputFD = fd
        inputSize = Int64(st.st_size)
        return nil
    }

    /// Closes the body file, if open (at the completion).
    func closeInput() {
        guard inputFD >= 0 else { return }
        close(inputFD)
        inputFD = -1
    }
}
