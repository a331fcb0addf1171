import CCurlShim

/// Uploads on an easy handle (Upload, docs/uploads.md): a body read from a file by
/// the body reader (ncbody.c), or a multipart body built with libcurl's MIME API.
extension EasyHandle {
    /// Per transfer, before the same-request shortcut of `configure`: the body
    /// reader reads this transfer's file from its start; a handle whose last
    /// transfer uploaded forgets it (the file descriptor and the MIME body).
    func setUpload(for t: Transfer, _ p: PreparedRequest) {
        // What a short or unreadable file reports (ncbody.h, ncmimefile.h).
        body.pointee.file_short = 0
        body.pointee.file_errno = 0
        body.pointee.file_part = 0
        if case .file? = p.upload {
            body.pointee.fd = t.inputFD
            body.pointee.file_size = curl_off_t(t.inputSize)
            body.pointee.file_offset = 0
            // An idempotent request's file may be read again from the start
            // (libcurl's resend on a dead kept-alive connection, as for an
            // in-memory body, which it keeps); a POST's may not (ncbody.h).
            body.pointee.rewindable = p.guardsResend ? 0 : 1
            // The file's size now (configure may keep the rest of the options).
            _ = ncshim_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(t.inputSize))
        } else {
            body.pointee.fd = -1
        }
        // A multipart body is built again by every transfer of its request (each
        // attempt, each redirect hop): its file parts are sent as they are then,
        // with their sizes then, as a body file is (Transfer+Upload.swift).
        if p.upload.isMultipart { configuredFor = nil }
        if !p.upload.isMultipart, let old = mime {
            _ = ncshim_easy_setopt_ptr(handle, CURLOPT_MIMEPOST, nil)
            curl_mime_free(old)
            mime = nil
            if configuredFor === (p.adaptedFrom ?? p) { configuredFor = nil }
        }
    }

    /// Sets the method and body options of an upload (in `configure`, after the
    /// method was reset to GET).
    func configureUpload(_ upload: Upload, _ p: PreparedRequest) {
        let h = handle
        switch upload {
        case .file:
            // The body through the read callback, its length announced up front.
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_POSTFIELDS, nil)
            _ = ncshim_easy_setopt_long(h, CURLOPT_POST, 1)
            _ = ncshim_easy_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, body.pointee.file_size)
        case .multipart(let parts):
            if let old = mime {
                _ = ncshim_easy_setopt_ptr(h, CURLOPT_MIMEPOST, nil)
                curl_mime_free(old)
                mime = nil
            }
            guard let m = curl_mime_init(h) else { return }
            for (index, part) in parts.enumerated() {
                guard let mp = curl_mime_addpart(m) else { continue }
                _ = curl_mime_name(mp, part.name)
                // A field has a type only if given; a file (on disk or bytes with a
                // file name) the given one, else one from its name's extension.
                var type = part.contentType
                if let path = part.path {
                    // Streamed from the file (checked readable at send) by our reader,
                    // which aborts if the file ends before the size announced
                    // (ncmimefile.h); libcurl's own file reader if it cannot be
                    // opened now (it then fails the transfer reading it: TRANSPORT 26).
                    let filename = part.filename ?? MultipartPart.lastComponent(of: path)
                    if ncmimefile_attach(mp, path, body, Int32(clamping: index + 1)) != CURLE_OK {
                        _ = curl_mime_filedata(mp, path)
                    }
                    _ = curl_mime_filename(mp, filename)
                    type = type ?? MultipartPart.contentType(forFileName: filename)
                } else {
                    // libcurl copies the bytes.
                    let data = part.data ?? []
                    _ = data.withUnsafeBytes { raw -> CURLcode in
                        guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else {
                            return curl_mime_data(mp, "", 0)
                        }
                        return curl_mime_data(mp, base, raw.count)
                    }
                    if let f = part.filename {
                        _ = curl_mime_filename(mp, f)
                        type = type ?? MultipartPart.contentType(forFileName: f)
                    }
                }
                if let type { _ = curl_mime_type(mp, type) }
            }
            mime = m
            _ = ncshim_easy_setopt_ptr(h, CURLOPT_MIMEPOST, UnsafeRawPointer(m))
            // libcurl can rewind a MIME body and resend it by itself on a dead
            // kept-alive connection; a non-idempotent one goes on a connection of
            // its own instead, so that never happens silently (ncbody.h).
            if p.guardsResend { _ = ncshim_easy_setopt_long(h, CURLOPT_FRESH_CONNECT, 1) }
        }
        if p.method != "POST" { _ = ncshim_easy_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, p.methodC.pointer) }
    }
}
