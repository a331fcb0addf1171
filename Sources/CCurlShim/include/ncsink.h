/*
 * ncsink — where libcurl's write and header callbacks put a response's bytes.
 *
 * One sink belongs to one pooled easy handle (CURLOPT_WRITEDATA/HEADERDATA point
 * at it for the handle's whole life). The callbacks are plain C so that receiving a
 * response costs a memcpy per chunk and per header line, not a trip through Swift.
 * Headers are kept as the raw lines of the final response ("Name: value\r\n"
 * each, no status line, no blank line), handed over after the body in the same
 * block; the Swift HeaderStore indexes them on first use. As in libcurl, only the
 * first line of a header block is a status line: one that starts with "HTTP/"
 * there begins a new response (a 1xx interim one came before) and drops the lines
 * stored so far; an "HTTP/" line inside a block is an ordinary header line.
 * Limits are checked as bytes arrive, counted over every header block of the
 * transfer (interim responses included, so no number of them resets the count);
 * a breach aborts the transfer (the callback returns 0, libcurl ends with
 * CURLE_WRITE_ERROR) and records why. The sink also records whether the latest
 * header block ended (its blank line arrived): libcurl 7.88 reports success for
 * a response cut off inside its header block, the caller must not.
 *
 * A sink may also write the body to a file descriptor (nc_request_set_output_file):
 * then a 2xx body goes there as it arrives, never to memory, and the body limit does
 * not apply to it; bodies of other statuses (redirect hops, errors) stay in memory.
 * With `dl` set the file is a download's .part (ncdownload.h), which decides at the
 * first body byte whether the bytes continue it or start it over. A body callback
 * (`out_fn`) receives a 2xx body the same way, chunk by chunk, as libcurl hands it.
 *
 * Threads: a sink is used by the thread that drives its easy handle only.
 */
#ifndef NETCORE_NCSINK_H
#define NETCORE_NCSINK_H

#include <curl/curl.h>
#include <stddef.h>

#include "ncdownload.h"
#include "ncprogress.h"

enum {
    NCSINK_OK = 0,
    NCSINK_BODY_TOO_LARGE = 1,
    NCSINK_HEADERS_TOO_LARGE = 2,
    NCSINK_NO_MEMORY = 3,
    NCSINK_FILE_ERROR = 4,     /* writing to out_fd failed: see out_errno */
    NCSINK_BAD_FRAMING = 5,    /* Content-Length values that disagree (RFC 9112 §6.3) */
    NCSINK_CALLBACK_ABORT = 6, /* the body callback returned non-zero */
    NCSINK_FOLDED_FIRST = 7    /* the first line after a status line begins with SP or HTAB */
};

/* A body callback (nc_request_set_body_callback): chunks of a 2xx body; non-zero aborts,
 * except NCSINK_BODY_PAUSE (netcore.h's NC_BODY_PAUSE), which pauses the transfer:
 * libcurl keeps the chunk and hands it over again once resumed (ncsink_resume). */
typedef int (*ncsink_body_fn)(const void *chunk, size_t len, void *userdata);
#define NCSINK_BODY_PAUSE 0x10000001

/* The head callback (nc_request_set_head_callback): called by the header callback
 * when a 2xx response's header block has ended, before its first body byte. */
typedef void (*ncsink_head_fn)(void *userdata);

typedef struct ncsink {
    CURL *easy;          /* to read Content-Length (borrowed) */
    unsigned char *body; /* malloc'd, NUL-terminated when non-NULL */
    size_t body_len, body_cap;
    char *head; /* malloc'd raw header lines, NUL-terminated when non-NULL */
    size_t head_len, head_cap;
    size_t head_lines;   /* header lines of the transfer, every block's, plus
                                   one per response after the first (1xx interim) */
    size_t head_bytes;   /* bytes of every header block of the transfer */
    int head_at_start;   /* the next header line is the first of a block */
    int head_ended;      /* the latest header block ended with its blank line */
    curl_off_t max_body; /* limits of the running transfer */
    size_t max_header_count, max_header_bytes;
    int abort_reason; /* NCSINK_*: why a callback refused, else NCSINK_OK */
    int out_fd;       /* -1: the body goes to memory (borrowed descriptor) */
    int to_file;      /* -1 not decided yet, 0 memory, 1 out_fd (by status) */
    int out_errno;    /* errno of a failed write to out_fd */
    /* The response's Content-Length as its first such line gave it (digits, no
     * leading zeros; "" none yet): a later line or list member that differs ends
     * the transfer with NCSINK_BAD_FRAMING. libcurl 7.88 keeps the last line's
     * value and the first member of a list, which lets such a response choose its
     * own framing. */
    char content_length[24];
    unsigned long long out_bytes; /* bytes written to out_fd or given to out_fn */
    ncdownload *dl;               /* the download out_fd belongs to, if resumable (borrowed;
                                     ncsink_reset clears it, set after) */
    ncsink_body_fn out_fn;        /* a 2xx body goes to this callback (before out_fd) */
    void *out_ud;                 /* its userdata (borrowed) */
    /* out_fn answered NCSINK_BODY_PAUSE: libcurl holds the chunk and reads nothing
     * more until ncsink_resume (the idle watch does not count the wait). */
    int paused;
    /* Called once per hop when the header block of a 2xx response ends (trailers
     * and 1xx blocks do not call it): `head_called` set. ncsink_reset clears all
     * three; the owner sets head_fn/head_ud after it. */
    ncsink_head_fn head_fn;
    void *head_ud;
    int head_called;
    /* Set once for a handle that keeps cookies (its client has a jar): every
     * Set-Cookie line the header callback sees is counted in `set_cookies`, every
     * block's (1xx, a hop that fails after its headers), which the owner reads and
     * zeroes as each hop ends. ncsink_reset leaves both alone. */
    int count_set_cookies;
    size_t set_cookies;
    /* The client's share (borrowed; set with count_set_cookies): each Set-Cookie
     * line also counts as a change of its cookie store at once (ncshare_note_change),
     * which the response cache reads (docs/caching.md, "Partitions"). */
    struct ncshare *share;
    /* Set by the owner for a transfer whose attempt log is kept: at the first
     * header line of the hop, while its connection is still attached, the TLS
     * version negotiated is read (CURLINFO_TLS_SSL_PTR, OpenSSL's SSL_get_version
     * found in the process: libcurl loaded it) into `tls_version`, a static string
     * of OpenSSL's ("TLSv1.3"), NULL over http. ncsink_reset clears both. */
    int want_tls_version;
    const char *tls_version;
    /* The guard against libcurl 7.83.0 to 8.0.1's folded-first-line use-after-free
     * (docs/RELIABILITY.md, "libcurl's folded first header line"). libcurl keeps
     * a pointer to the last header line it stored (Curl_easy's state.prevhead)
     * and unfolds a line that begins with SP or HTAB onto it; the next transfer on
     * the handle frees the stored lines (Curl_pretransfer -> Curl_headers_cleanup)
     * but leaves the pointer, so such a line before any header of the new
     * transfer is stored reads and reallocates freed memory. Its header callback
     * runs after the store; its write callback, when CURLOPT_HEADER is on, before
     * it. So while no line of the transfer has been stored (`stored` 0), the
     * status line turns CURLOPT_HEADER on (`peek` 1), the write callback looks at
     * the next line's first byte and refuses SP/HTAB (NCSINK_FOLDED_FIRST,
     * before libcurl touches the pointer), and the header callback that follows
     * turns it off again. `fold_guard`: set at creation when the loaded libcurl
     * has the defect. ncsink_reset clears `stored` and ends a peek a failed
     * transfer left on. */
    int fold_guard;
    int stored;
    int peek;
} ncsink;

/* A new, empty sink for `easy` (NULL when out of memory). */
ncsink *ncsink_new(CURL *easy);
/* Frees the sink and any buffer it still owns. NULL is a no-op. */
void ncsink_free(ncsink *s);
/* Prepares for the next transfer: empties both buffers (keeping small ones for
 * reuse) and sets the limits; `out_fd` >= 0 sends a 2xx body there (borrowed: the
 * caller closes it), -1 keeps it in memory. */
void ncsink_reset(ncsink *s, curl_off_t max_body, size_t max_header_count, size_t max_header_bytes,
                  int out_fd);
/* Hands the response to the caller in one malloc'd block (free() it): the body
 * (*body_len bytes, then a NUL) followed by the header lines (*head_len bytes at
 * *head_off, then a NUL). *block is NULL when both are empty. One block rather than
 * two saves a malloc and a free per response (and the header buffer, which stays
 * with the sink, its regrowth). The sink starts a new body. Returns 0 when out of
 * memory (nothing taken, the out-params untouched), else 1. */
int ncsink_take(ncsink *s, unsigned char **block, size_t *body_len, size_t *head_off, size_t *head_len);

/* CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION with the sink as userdata. */
size_t ncsink_write(char *ptr, size_t size, size_t nmemb, void *userdata);
size_t ncsink_header(char *ptr, size_t size, size_t nmemb, void *userdata);

/* Lets a paused hop continue (curl_easy_pause(CURLPAUSE_CONT)), on the thread
 * driving it; libcurl may hand the held chunk to out_fn again before this returns,
 * which may pause again. CURLE_OK when the hop was not paused; otherwise libcurl's
 * answer (CURLE_WRITE_ERROR: the callback aborted on the chunk handed again). */
int ncsink_resume(ncsink *s);

#endif
