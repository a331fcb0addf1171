/*
 * ncdownload — the C half of a resumable download (nc_request_set_output_file).
 *
 * The body of a 2xx response goes to `path.part` (the sink writes it, ncsink.c);
 * Transfer+Download.swift renames it to `path` on success. Before each hop the
 * Swift side sets `offset`: the bytes already in the .part it asks the server to
 * continue after (Range: bytes=<offset>- with If-Range: <validator>), 0 when it
 * asks for the whole body. When the first body byte of a 2xx response arrives the
 * sink calls ncdownload_begin, which decides what the bytes continue:
 *   - 206 to a Range request whose Content-Range starts at `offset`: appended;
 *   - 206 at another offset: refused (the .part is emptied, the sidecar removed,
 *     the transfer aborted: NCSINK_FILE_ERROR with out_errno ERANGE);
 *   - any other 2xx: the body starts over: the .part is truncated and the
 *     sidecar `path.part.meta` rewritten from this response's headers: one line,
 *     the validator (the ETag, else Last-Modified) followed by "\n", written only
 *     when the response also says "Accept-Ranges: bytes" and has no
 *     Content-Encoding (decoded bytes cannot be resumed by offset); otherwise the
 *     sidecar is removed, and so the .part is not resumable.
 *
 * Threads: used by the thread that drives the transfer's easy handle only.
 */
#ifndef NETCORE_NCDOWNLOAD_H
#define NETCORE_NCDOWNLOAD_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct ncdownload {
    int fd;                /* the .part, open for writing (owned by the Swift side) */
    long long offset;      /* bytes kept for this hop's Range request; 0: whole body */
    const char *meta_path; /* the sidecar (borrowed); NULL: written in place, no resume */
    int restarted;         /* set when a 2xx body started the .part over this hop */
    int appended;          /* set when a 206 body continued the .part this hop */
} ncdownload;

struct ncsink;
/* Called by the sink before the first body byte of a 2xx response goes to the
 * file; returns 0 to abort the transfer (errno-like reason in *err). */
int ncdownload_begin(ncdownload *d, const struct ncsink *s, long status, int *err);

/* The value of the header `name` (lower case, no colon) among the raw lines
 * `head` (len bytes): a pointer into them and its length in *len_out, trimmed;
 * NULL when absent. */
const char *ncdownload_header(const char *head, size_t len, const char *name, size_t *len_out);

#endif
