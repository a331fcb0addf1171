#if canImport(Glibc)
import Glibc
#endif

/// What a request uploads when its body is not bytes in memory: a file streamed as
/// the body, or multipart/form-data parts (docs/uploads.md). Files are opened when
/// each attempt starts (a retry sends them as they are then), never when the
/// request is built, and are read as libcurl sends them: memory stays flat
/// whatever their size.
public enum Upload: Sendable, Equatable {
    /// The body is the file at `path`, its length the file's size when the attempt
    /// starts; `contentType` becomes the Content-Type header (nil: none is sent).
    case file(path: String, contentType: String?)
    /// A multipart/form-data body of these parts, in order (libcurl's MIME API
    /// writes the boundary, the Content-Type header and the part headers).
    case multipart([MultipartPart])
}

/// One part of a multipart/form-data body.
public struct MultipartPart: Sendable, Equatable {
    /// The form field name (Content-Disposition `name`).
    public var name: String
    /// The part's bytes (copied when the part is added); nil for a file part.
    public var data: [UInt8]?
    /// A file part: the file streamed as the part's content, opened at send.
    public var path: String?
    /// The Content-Disposition `filename` (for a file part, nil means the path's
    /// last component); nil on a data part: a plain form field.
    public var filename: String?
    /// The part's Content-Type; nil: none for a field, one from the file name's
    /// extension for a file or bytes with a file name (else application/octet-stream).
    public var contentType: String?
}

extension Request {
    /// Streams the body from the file at `path` (opened at send: a missing or
    /// unreadable file fails the request with CLIENT `invalidRequest` naming it,
    /// nothing sent), with `contentType` as its Content-Type. Replaces params, a raw
    /// body or parts. Throws `.invalidArgument` (nothing changed) for an empty path,
    /// one with NUL, or a content type with CR, LF or control characters.
    public mutating func setBodyFile(path: String, contentType: String?) throws(NetError) {
        try Request.checkPath(path, "body file path")
        if let contentType, !HTTPValidation.isHeaderValue(contentType) {
            throw NetError.invalidArgument("content type must not contain CR, LF or control characters")
        }
        upload = .file(path: path, contentType: contentType)
    }

    /// Appends a form field (or, with `filename`, an uploaded file whose bytes are
    /// `data`, copied) to the request's multipart/form-data body. The first part
    /// replaces params, a raw body or a body file. Throws `.invalidArgument`
    /// (nothing changed) for an empty name or values with NUL, CR, LF or control
    /// characters (a content type) or NUL (a name or file name).
    public mutating func addPart(
        name: String, data: some Collection<UInt8>, filename: String? = nil, contentType: String? = nil
    ) throws(NetError) {
        try append(
            MultipartPart(name: name, data: Array(data), path: nil, filename: filename, contentType: contentType))
    }

    /// Appends a file part streamed from `path` (opened at send, as `setBodyFile`),
    /// sent with `filename` (nil: the path's last component) and `contentType`.
    /// Throws `.invalidArgument` as `addPart`, and for an empty path.
    public mutating func addFilePart(
        name: String, path: String, filename: String? = nil, contentType: String? = nil
    ) throws(NetError) {
        try Request.checkPath(path, "file part path")
        try append(MultipartPart(name: name, data: nil, path: path, filename: filename, contentType: contentType))
    }

    private mutating func append(_ part: MultipartPart) throws(NetError) {
        guard !part.name.isEmpty, !part.name.utf8.contains(0) else {
            throw NetError.invalidArgument("a part name must be non-empty, without NUL")
        }
        if let f = part.filename, f.utf8.contains(0) {
            throw NetError.invalidArgument("a part file name must not contain NUL")
        }
        if let t = part.contentType, !HTTPValidation.isHeaderValue(t) {
            throw NetError.invalidArgument("content type must not contain CR, LF or control characters")
        }
        if case .multipart(var parts) = upload {
            parts.append(part)
            upload = .multipart(parts)
        } else {
            upload = .multipart([part])
        }
    }

    private static func checkPath(_ path: String, _ what: String) throws(NetError) {
        if path.isEmpty || path.utf8.contains(0) {
            throw NetError.invalidArgument("\(what) must be non-empty, without NUL")
        }
    }
}

extension Upload {
    /// The files this upload reads, in order (checked when the request is sent).
    var paths: [String] {
        switch self {
        case .file(let path, _): return [path]
        case .multipart(let parts): return parts.compactMap(\.path)
        }
    }

    /// Nil when every file can be read now, else the error to complete with
    /// (nothing was sent): CLIENT `invalidRequest` naming the file and why.
    func unreadableFile(method: String, url: String) -> NetError? {
        for path in paths {
            var st = stat()
            if stat(path, &st) != 0 || access(path, R_OK) != 0 {
                let reason = String(cString: strerror(errno))
                return .invalidRequest(
                    "\(method) \(url): cannot read the upload file '\(path)': \(reason); nothing was sent.")
            }
            if (st.st_mode & S_IFMT) != S_IFREG {
                return .invalidRequest(
                    "\(method) \(url): the upload file '\(path)' is not a regular file; nothing was sent.")
            }
        }
        return nil
    }
}

extension Upload {
    /// The file of the body (`part` 0) or of the `part`-th part (from 1), if a file.
    func path(ofPart part: Int) -> String? {
        switch self {
        case .file(let path, _): return part == 0 ? path : nil
        case .multipart(let parts): return part >= 1 && part <= parts.count ? parts[part - 1].path : nil
        }
    }
}

extension MultipartPart {
    /// The last component of a file's path: a file part's default file name.
    static func lastComponent(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// A file part's Content-Type when none is given: from the file name's
    /// extension for the few types a browser or libcurl would name (libcurl's own
    /// short list), else application/octet-stream, as browsers send an unknown file.
    static func contentType(forFileName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "gif": return "image/gif"
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "txt": return "text/plain"
        case "htm", "html": return "text/html"
        case "pdf": return "application/pdf"
        case "xml": return "application/xml"
        default: return "application/octet-stream"
        }
    }
}

extension Optional where Wrapped == Upload {
    /// A multipart body (libcurl writes its Content-Type, with the boundary).
    var isMultipart: Bool {
        if case .multipart? = self { return true }
        return false
    }
}
