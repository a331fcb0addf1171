#include "ncsink.h"

#include "ncascii.h"
#include "ncshare.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Buffers up to this size are kept by the sink for the next transfer. */
#define NCSINK_KEEP (64 * 1024)

/* Whether the loaded libcurl unfolds a line onto a header line an earlier transfer
 * stored and freed (ncsink.h, `fold_guard`): 7.83.1 (lib/headers.c's unfold_value
 * and data->state.prevhead) to 8.0.1. 8.1.0 clears the pointer where the stored
 * lines are freed (headers_init; fixed upstream by curl commit cd1c611). Read once. */
static int fold_guard_needed;
static pthread_once_t fold_guard_once = PTHREAD_ONCE_INIT;
static void find_fold_guard(void) {
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    fold_guard_needed = v && v->version_num >= 0x075301 && v->version_num < 0x080100;
}

ncsink *ncsink_new(CURL *easy) {
    ncsink *s = calloc(1, sizeof *s);
    if (s) {
        s->easy = easy;
        s->out_fd = -1;
        s->to_file = -1;
        pthread_once(&fold_guard_once, find_fold_guard);
        s->fold_guard = fold_guard_needed;
    }
    return s;
}

/* The guard's look at one line through the write callback ends (ncsink.h). */
static void peek_end(ncsink *s) {
    s->peek = 0;
    curl_easy_setopt(s->easy, CURLOPT_HEADER, 0L);
}

void ncsink_free(ncsink *s) {
    if (!s) return;
    free(s->body);
    free(s->head);
    free(s);
}

void ncsink_reset(ncsink *s, curl_off_t max_body, size_t max_header_count, size_t max_header_bytes,
                  int out_fd) {
    if (s->body_cap > NCSINK_KEEP) {
        free(s->body);
        s->body = NULL;
        s->body_cap = 0;
    }
    if (s->head_cap > NCSINK_KEEP) {
        free(s->head);
        s->head = NULL;
        s->head_cap = 0;
    }
    s->body_len = 0;
    s->head_len = 0;
    s->head_lines = 0;
    s->head_bytes = 0;
    s->head_at_start = 1;
    s->head_ended = 0;
    s->max_body = max_body;
    s->max_header_count = max_header_count;
    s->max_header_bytes = max_header_bytes;
    s->abort_reason = NCSINK_OK;
    s->out_fd = out_fd;
    s->to_file = -1;
    s->out_errno = 0;
    s->out_bytes = 0;
    s->content_length[0] = 0;
    s->dl = NULL;
    s->out_fn = NULL;
    s->out_ud = NULL;
    s->paused = 0;
    s->head_fn = NULL;
    s->head_ud = NULL;
    s->head_called = 0;
    s->want_tls_version = 0;
    s->tls_version = NULL;
    s->stored = 0;
    if (s->peek) peek_end(s); /* a transfer that failed while the guard looked */
}

/* OpenSSL's SSL_get_version, looked up once in the process (libcurl's OpenSSL
 * backend loaded libssl); NULL when it is not there (another TLS backend). */
typedef const char *(*ssl_get_version_fn)(const void *ssl);
static ssl_get_version_fn ssl_get_version;
static pthread_once_t ssl_get_version_once = PTHREAD_ONCE_INIT;
static void find_ssl_get_version(void) {
    void *f = dlsym(RTLD_DEFAULT, "SSL_get_version");
    memcpy(&ssl_get_version, &f, sizeof f);
}

static void read_tls_version(ncsink *s) {
    s->want_tls_version = 0;
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(s->easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info) return;
    if (info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return;
    pthread_once(&ssl_get_version_once, find_ssl_get_version);
    if (ssl_get_version) s->tls_version = ssl_get_version(info->internals);
}

/* Writes all of `p` to the sink's descriptor; 0 and out_errno set on failure. */
static int write_out(ncsink *s, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(s->out_fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            s->out_errno = errno;
            return 0;
        }
        p += w;
        n -= (size_t)w;
        s->out_bytes += (unsigned long long)w;
    }
    return 1;
}

int ncsink_take(ncsink *s, unsigned char **block, size_t *body_len, size_t *head_off, size_t *head_len) {
    size_t bl = s->body ? s->body_len : 0, hl = s->head_len;
    if (bl == 0 && hl == 0) {
        *block = NULL;
        *body_len = *head_off = *head_len = 0;
        return 1;
    }
    if (hl > (size_t)-1 - bl - 2) return 0;
    size_t need = bl + 1 + hl + 1;
    unsigned char *p = s->body;
    if (!p || s->body_cap < need) {
        /* Rare: the body was sized from Content-Length with room for the header
         * lines (ncsink_write), so this only runs for bodies without one. */
        p = realloc(p, need);
        if (!p) return 0;
    }
    p[bl] = 0;
    if (hl) memcpy(p + bl + 1, s->head, hl);
    p[bl + 1 + hl] = 0;
    s->body = NULL;
    s->body_cap = s->body_len = 0;
    s->head_len = 0;
    if (s->head) s->head[0] = 0;
    *block = p;
    *body_len = bl;
    *head_off = bl + 1;
    *head_len = hl;
    return 1;
}

/* Room for `need` more bytes plus a NUL; 0 when out of memory or on overflow. */
static int grow(void **buf, size_t *cap, size_t len, size_t need) {
    if (need > (size_t)-1 - len - 1) return 0;
    size_t want = len + need + 1;
    if (want <= *cap) return 1;
    size_t c = *cap ? *cap : 256;
    while (c < want) c = c > ((size_t)-1) / 2 ? want : c * 2;
    void *p = realloc(*buf, c);
    if (!p) return 0;
    *buf = p;
    *cap = c;
    return 1;
}

size_t ncsink_write(char *ptr, size_t size, size_t nmemb, void *userdata) {
    ncsink *s = userdata;
    if (!s || (nmemb && size > (size_t)-1 / nmemb)) return 0;
    size_t n = size * nmemb;
    if (n == 0) return 0;
    if (s->peek) {
        /* The line after a status line, before libcurl stores it (the fold guard,
         * ncsink.h): a header line, never body bytes. Only its first piece is
         * looked at (libcurl hands a line over in pieces of 16 KB at most). RFC
         * 9112 §2.2 lets a recipient reject whitespace between the start-line and
         * the first header field. */
        if (s->peek == 1 && (ptr[0] == ' ' || ptr[0] == '\t')) {
            s->abort_reason = NCSINK_FOLDED_FIRST;
            return 0;
        }
        s->peek = 2;
        return n;
    }
    if (s->out_fd >= 0 || s->out_fn) {
        if (s->to_file < 0) {
            long status = 0;
            curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
            s->to_file = status >= 200 && status < 300;
            if (s->to_file && s->dl && !s->out_fn) {
                int err = 0;
                if (!ncdownload_begin(s->dl, s, status, &err)) {
                    s->out_errno = err;
                    s->abort_reason = NCSINK_FILE_ERROR;
                    return 0;
                }
            }
        }
        if (s->to_file && s->out_fn) {
            int answer = s->out_fn(ptr, n, s->out_ud);
            if (answer == NCSINK_BODY_PAUSE) {
                /* libcurl keeps these bytes and hands them over again on resume. */
                s->paused = 1;
                return CURL_WRITEFUNC_PAUSE;
            }
            if (answer != 0) {
                s->abort_reason = NCSINK_CALLBACK_ABORT;
                return 0;
            }
            s->out_bytes += (unsigned long long)n;
            return n;
        }
        if (s->to_file) {
            if (!write_out(s, ptr, n)) {
                s->abort_reason = NCSINK_FILE_ERROR;
                return 0;
            }
            return n;
        }
    }
    if (s->body_len == 0) {
        /* Size the buffer once from Content-Length (bounded by the limit). */
        curl_off_t expected = -1;
        if (curl_easy_getinfo(s->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected) == CURLE_OK &&
            expected > 0) {
            if (expected > s->max_body) {
                s->abort_reason = NCSINK_BODY_TOO_LARGE;
                return 0;
            }
            /* The header lines are complete by now: leave room for them after the
             * body and its NUL, so ncsink_take hands both over in this one block. */
            size_t room = (size_t)expected;
            if (s->head_len <= (size_t)-1 - room - 1) room += s->head_len + 1;
            if (!grow((void **)&s->body, &s->body_cap, 0, room)) {
                s->abort_reason = NCSINK_NO_MEMORY;
                return 0;
            }
        }
    }
    if (n > (size_t)-1 - s->body_len || (curl_off_t)(s->body_len + n) > s->max_body) {
        s->abort_reason = NCSINK_BODY_TOO_LARGE;
        return 0;
    }
    if (!grow((void **)&s->body, &s->body_cap, s->body_len, n)) {
        s->abort_reason = NCSINK_NO_MEMORY;
        return 0;
    }
    memcpy(s->body + s->body_len, ptr, n);
    s->body_len += n;
    s->body[s->body_len] = 0;
    return n;
}

/* Checks one Content-Length line's value (`p`, `n` bytes, after the colon) against
 * the response's earlier ones: 1 when every member of its list (RFC 9110 §8.6
 * allows "42, 42") is a decimal number equal to the first one seen, else 0. */
static int content_length_agrees(ncsink *s, const char *p, size_t n) {
    size_t i = 0;
    for (;;) {
        while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
        while (i < n && p[i] == '0' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') i++;
        size_t start = i;
        while (i < n && p[i] >= '0' && p[i] <= '9') i++;
        size_t len = i - start;
        if (len == 0 || len >= sizeof s->content_length) return 0;
        if (!s->content_length[0]) {
            memcpy(s->content_length, p + start, len);
            s->content_length[len] = 0;
        } else if (strlen(s->content_length) != len || memcmp(s->content_length, p + start, len) != 0) {
            return 0;
        }
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
        if (i == n) return 1;
        if (p[i++] != ',') return 0;
    }
}

/* 1 when the header line `p` (`n` bytes) names `name` (with its colon, `len` bytes).
 * By hand (ncascii.h), not strncasecmp: locale-free, and no library call on every line
 * of every response. */
static int names(const char *p, size_t n, const char *name, size_t len) {
    return n > len && ncascii_equal_n(p, name, len);
}

size_t ncsink_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
    ncsink *s = userdata;
    if (!s || (nmemb && size > (size_t)-1 / nmemb)) return 0;
    size_t n = size * nmemb;
    int first = s->head_bytes == 0;
    if (s->peek) peek_end(s); /* the line the write callback looked at */
    if (s->want_tls_version) read_tls_version(s);
    /* Every line of every block counts, so 1xx interim responses cannot reset
     * the limits (libcurl hands over lines of at most 100 KB: no overflow). */
    s->head_bytes += n;
    if (n == 0 || ptr[0] == '\r' || ptr[0] == '\n') {
        /* The blank line ending a block (libcurl's own test): a status line may
         * follow (the final response after a 1xx one). */
        s->head_at_start = 1;
        s->head_ended = 1;
        if (s->head_fn && !s->head_called) {
            /* A 2xx's head is complete: its body (if any) follows. A proxy's CONNECT
             * answer is not the response (CURLINFO_RESPONSE_CODE stays 0), a 1xx is
             * interim, other statuses are not streamed; trailers come after. */
            long status = 0;
            curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
            if (status >= 200 && status < 300) {
                s->head_called = 1;
                s->head_fn(s->head_ud);
            }
        }
        return n;
    }
    /* Counted whatever happens to the line next: libcurl keeps the cookie. */
    if (s->count_set_cookies && names(ptr, n, "set-cookie:", 11)) {
        s->set_cookies++;
        if (s->share) ncshare_note_change(s->share);
    }
    /* As libcurl: only the first line of a block is a status line. Trailer lines
     * (after the body of a chunked response) never begin a response. */
    int at_start = s->head_at_start;
    int status =
        at_start && s->body_len == 0 && s->out_bytes == 0 && n >= 5 && memcmp(ptr, "HTTP/", 5) == 0;
    s->head_at_start = 0;
    /* libcurl stored every line but a block's first before calling us (the fold
     * guard). Not inferred from the status line's text: over HTTP/1.1 libcurl 7.88
     * takes "HTTP/2 200" (even "HTTP/20 11") for a status line and stores nothing
     * before line 2 (the fuzzer found that, Tests/fuzz/known/response/3-*). */
    if (!at_start) s->stored = 1;
    if (status) {
        /* A new response: the headers kept are the final response's. */
        s->head_ended = 0;
        s->content_length[0] = 0;
        s->head_len = 0;
        if (s->head) s->head[0] = 0;
        if (!first) s->head_lines++; /* each response after the first is a line */
    } else {
        s->head_lines++;
    }
    if (s->head_lines > s->max_header_count || s->head_bytes > s->max_header_bytes) {
        s->abort_reason = NCSINK_HEADERS_TOO_LARGE;
        return 0;
    }
    if (at_start && !s->stored && s->fold_guard) {
        /* The next line goes to the write callback before libcurl stores it. */
        s->peek = 1;
        curl_easy_setopt(s->easy, CURLOPT_HEADER, 1L);
    }
    if (status) return n;
    if (names(ptr, n, "content-length:", 15) && !content_length_agrees(s, ptr + 15, n - 15)) {
        s->abort_reason = NCSINK_BAD_FRAMING;
        return 0;
    }
    if (!grow((void **)&s->head, &s->head_cap, s->head_len, n)) {
        s->abort_reason = NCSINK_NO_MEMORY;
        return 0;
    }
    memcpy(s->head + s->head_len, ptr, n);
    s->head_len += n;
    s->head[s->head_len] = 0;
    return n;
}

int ncsink_resume(ncsink *s) {
    if (!s || !s->paused) return CURLE_OK;
    s->paused = 0;
    return (int)curl_easy_pause(s->easy, CURLPAUSE_CONT);
}
