/* raw_curl.c — the baseline peer: libcurl + jansson written by hand, the way a
 * careful C programmer would (bench/README.md).
 *   seq           one easy handle reused (keep-alive), body parsed with json_loadb,
 *                 envelope checked (object, integer code == 0, data member)
 *   conc          a multi handle with C easy handles, each re-added when it completes
 *   download      body to memory (no parse), realloc-doubling buffer
 *   download-file each body written to --out anew (fopen "wb", fwrite, fclose)
 *   slow          N easy handles added to one multi at once (all in flight)
 *   cancel        mid-transfer (first body bytes received), time curl_multi_remove_handle
 * --tuned on (peer raw-curl-tuned): the libcurl options libnetcore uses to save
 * per-transfer work, so that the comparison shows libnetcore's own cost: the URL
 * parsed once with libcurl's URL API (CURLOPT_CURLU; CURLOPT_URL is parsed again on
 * every transfer) and no proxy (CURLOPT_PROXY and CURLOPT_NOPROXY "": libcurl then
 * skips its per-transfer lookup of the proxy variables; the bench has none set).
 * The targets are judged against the default, the careful programmer's code.
 * --features signing (peer raw-curl-signed): every request signed the way libnetcore's
 * "signing" config signs it (docs/signing.md; the secret and header names of
 * nc_capi.c's SIGNING_CONFIG), as a careful C programmer would do it by hand. Before
 * each transfer starts (every perform, every add to the multi handle): the Unix time
 * in seconds, HMAC-SHA256 with libcrypto of "GET\n" PATH "\n" SORTED_QUERY "\n"
 * hex(sha256(body)) "\n" TIMESTAMP, a fresh curl_slist with the X-Timestamp and
 * X-Signature headers set as CURLOPT_HTTPHEADER, and the previous transfer's list freed
 * (that transfer has completed). What does not change is done once at start: the path
 * and sorted query of --url (curl_url), hex(sha256("")) (the bench's GETs have no body;
 * EVP_Digest), the string's constant prefix, and an HMAC context keyed with the secret,
 * which each signature re-initialises with the same key (EVP_MAC_init with a NULL key:
 * no key schedule and no allocation per request; duplicating the keyed context costs
 * about 3,600 instructions a signature more with OpenSSL 3.0). This is the floor of
 * signing, what any client pays for it (libcurl formatting two more headers, libcrypto's
 * HMAC), against which libnetcore's signing (nc-capi-signing) is read.
 * --features events (with signing: peer raw-curl-signed-events, workload 9 only; alone
 * for bench/corun.sh): for every request the three events libnetcore's event handler receives
 * (request_start before the transfer starts; attempt_end with libcurl's timings and
 * request_end with the elapsed time when it completes), written as the same compact
 * JSON (every key, the URL quoted in each, snprintf) and handed through a function
 * pointer to a function that counts them, as nc_capi.c's handler does: what an
 * application that wanted those events from raw libcurl would write.
 * --features timeouts (not a judged peer; bench/RESULTS.md reads it): every handle
 * sets the libcurl timeouts libnetcore sets by default since 0.4 (docs/configuration.md):
 * connect 10 s as CURLOPT_CONNECTTIMEOUT_MS, no total timeout; the plain peer leaves
 * libcurl's defaults (no armed connect timer). libnetcore's idle limit (15 s) is its
 * own work (IdleWatch.swift), which raw libcurl has no equivalent of. What libcurl
 * spends on the timer is part of what the C API pays and the plain peer does not.
 * (In 0.3 the defaults were total 15 s and connect 5 s: the results files of that
 * time name this peer for those.)
 * --features total-timeout / connect-timeout: one of the two alone (what each costs:
 * bench/RESULTS.md, "The C API against raw libcurl, closely").
 * --features thread (not a peer of `make bench`; bench/corun.sh reads it): one more
 * thread, idle all along, as a process that uses a library with a transfer thread
 * has. glibc then takes its multi-threaded paths (malloc's arena locks, the
 * cancellation points' bookkeeping), which this single-threaded program otherwise
 * skips: the cost of having a thread at all, paid by the C API and not by raw-curl.
 * User-Agent: every peer sends "User-Agent: rawcurl/<ver> libcurl/<ver>" through
 * CURLOPT_USERAGENT, the libcurl way to send one: a line as long as the one libnetcore
 * sends by default ("netcore/<ver> libcurl/<ver>", docs/configuration.md), so both
 * clients make the same exchange. libcurl 7.88 formats every request header byte by
 * byte (its printf into the request buffer), about 100 instructions a byte: a 40-byte
 * line is ~5k instructions a request, which the bar must not credit to either side.
 * --features no-user-agent (peer raw-curl-no-ua, not judged): no User-Agent line,
 * libcurl's default and this peer's before 0.4.
 * Bodies go to a buffer reserved from the Content-Length when known (else grown by
 * doubling), reused across requests on the same handle except for downloads.
 * Prints one JSON line. */
#include "common.h"
#include <curl/curl.h>
#include <jansson.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <pthread.h>
#include <unistd.h>

static const char *PEER = "raw-curl";
static CURLU *url_handle; /* --tuned on: the URL, parsed once */

/* --features signing: what nc_capi.c's SIGNING_CONFIG configures (keep them in step) */
static const char SIGNING_SECRET[] = "bench-secret";
static const char SIGNATURE_HEADER[] = "X-Signature";
static const char TIMESTAMP_HEADER[] = "X-Timestamp";
static int signing;
/* --features timeouts: libnetcore's default libcurl timeouts (connect, since 0.4);
   total-timeout and connect-timeout one each */
static int default_timeouts;
static int total_timeout;
static int connect_timeout;
static int extra_thread;    /* --features thread */
static int events;          /* --features events */
static int no_user_agent;   /* --features no-user-agent */
static const char *ca_file; /* --ca-file (https) */
static int http2;           /* --http-version 2: HTTP/2 over TLS, transfers wait to share a connection */
static char user_agent[64]; /* "rawcurl/0.3.0 libcurl/X.Y.Z", as long as libnetcore's */
static const char *event_url;

static void *idle_thread(void *arg) {
    (void)arg;
    for (;;) pause();
    return NULL;
}
static EVP_MAC *hmac;         /* fetched once */
static EVP_MAC_CTX *hmac_ctx; /* keyed once; re-initialised with the same key per request */
static char *sign_prefix;     /* "GET\n" PATH "\n" SORTED_QUERY "\n" hex(sha256("")) "\n" */
static size_t sign_prefix_len;

typedef struct {
    char *p;
    size_t len, cap;
    FILE *file;  /* download-file: write here instead */
    size_t seen; /* bytes seen (also for files) */
    CURL *easy;  /* to read the Content-Length */
    /* signing: the headers of the handle's current (or last) transfer */
    struct curl_slist *headers;
    /* events: the request's number and when it started (bench_now) */
    unsigned long long id;
    double started;
} buf_t;

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    buf_t *b = ud;
    size_t n = size * nmemb;
    b->seen += n;
    if (b->file) return fwrite(data, 1, n, b->file) == n ? n : 0;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        curl_off_t cl = -1;
        if (b->len == 0 && b->easy &&
            curl_easy_getinfo(b->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl > 0 &&
            (size_t)cl + 1 > cap)
            cap = (size_t)cl + 1; /* the whole body at once when its size is known */
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) return 0; /* CURLE_WRITE_ERROR */
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return n;
}

static char first_error[512];
static void note_error(const char *fmt, const char *detail) {
    if (!first_error[0]) snprintf(first_error, sizeof first_error, fmt, detail);
}

/* 1 if the body is an ok envelope; the parse a careful C programmer writes */
static int check_envelope(const char *p, size_t len) {
    json_error_t jerr;
    json_t *root = json_loadb(p, len, 0, &jerr);
    if (!root) {
        note_error("body is not JSON: %s", jerr.text);
        return 0;
    }
    int ok = 0;
    json_t *code = json_object_get(root, "code"); /* NULL when root is not an object */
    if (!json_is_object(root)) note_error("%s", "body is not an object");
    else if (!json_is_integer(code)) note_error("%s", "no integer code");
    else if (json_integer_value(code) != 0) note_error("%s", "business code is not 0");
    else if (!json_object_get(root, "data")) note_error("%s", "no data member");
    else ok = 1;
    json_decref(root);
    return ok;
}

static CURL *new_easy(const char *url, buf_t *b) {
    CURL *e = curl_easy_init();
    if (!e) {
        fprintf(stderr, "curl_easy_init failed\n");
        exit(1);
    }
    if (url_handle) {
        curl_easy_setopt(e, CURLOPT_CURLU, url_handle);
        curl_easy_setopt(e, CURLOPT_PROXY, "");
        curl_easy_setopt(e, CURLOPT_NOPROXY, "");
    } else {
        curl_easy_setopt(e, CURLOPT_URL, url);
    }
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, b);
    if (!no_user_agent) curl_easy_setopt(e, CURLOPT_USERAGENT, user_agent);
    if (total_timeout) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
    if (connect_timeout) curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    if (ca_file) curl_easy_setopt(e, CURLOPT_CAINFO, ca_file);
    /* HTTP/2 as a careful libcurl program asks for it: ALPN, and a transfer that finds the
     * connection still being set up waits to multiplex on it (libnetcore does the same) */
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                     http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1);
    if (http2) curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    b->easy = e;
    return e;
}

/* ---------------------------------------------------------------- --features signing */

static void to_hex(const unsigned char *in, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 0x0f];
    }
    out[2 * n] = 0;
}

typedef struct {
    const char *p; /* the piece as sent (still percent-encoded) */
    size_t len;
    size_t name_len; /* the bytes before the first '=' (all of them without one) */
    size_t index;    /* position in the query: equal pieces keep their order */
} query_piece;

static int cmp_bytes(const char *a, size_t a_len, const char *b, size_t b_len) {
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    return c ? c : (a_len > b_len) - (a_len < b_len);
}

/* bytewise by name, then by value (the bytes after the first '='; none without one) */
static int cmp_piece(const void *x, const void *y) {
    const query_piece *a = x, *b = y;
    int c = cmp_bytes(a->p, a->name_len, b->p, b->name_len);
    if (c) return c;
    size_t a_value = a->name_len < a->len ? a->name_len + 1 : a->len;
    size_t b_value = b->name_len < b->len ? b->name_len + 1 : b->len;
    c = cmp_bytes(a->p + a_value, a->len - a_value, b->p + b_value, b->len - b_value);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* SORTED_QUERY of docs/signing.md: `query` (as sent, without '?') split on '&', empty
 * pieces dropped, sorted, joined by '&'; "" for "". The caller frees it. */
static char *sorted_query(const char *query) {
    size_t len = strlen(query), n = 0;
    /* non-empty pieces: at most (len + 1) / 2 */
    query_piece *pieces = calloc(len / 2 + 1, sizeof *pieces);
    char *out = malloc(len + 1);
    if (!pieces || !out) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (const char *p = query; *p;) {
        size_t piece_len = strcspn(p, "&");
        if (piece_len) {
            const char *eq = memchr(p, '=', piece_len);
            pieces[n] = (query_piece){p, piece_len, eq ? (size_t)(eq - p) : piece_len, n};
            n++;
        }
        p += piece_len;
        if (*p) p++;
    }
    qsort(pieces, n, sizeof *pieces, cmp_piece);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) out[o++] = '&';
        memcpy(out + o, pieces[i].p, pieces[i].len);
        o += pieces[i].len;
    }
    out[o] = 0;
    free(pieces);
    return out;
}

/* What every signature shares, done once: the string to sign up to its timestamp
 * (GET of --url's path and sorted query, no body) and the HMAC context keyed with the
 * secret. */
static void signing_setup(const char *url) {
    CURLU *u = curl_url();
    char *path = NULL, *query = NULL;
    CURLUcode qrc = CURLUE_OK;
    if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK ||
        ((qrc = curl_url_get(u, CURLUPART_QUERY, &query, 0)) != CURLUE_OK && qrc != CURLUE_NO_QUERY)) {
        fprintf(stderr, "signing: cannot take the path and query of %s\n", url);
        exit(1);
    }
    char *sorted = sorted_query(query ? query : "");
    unsigned char body_hash[EVP_MAX_MD_SIZE];
    unsigned int body_hash_len = 0;
    char body_hex[2 * EVP_MAX_MD_SIZE + 1];
    if (EVP_Digest("", 0, body_hash, &body_hash_len, EVP_sha256(), NULL) != 1) {
        fprintf(stderr, "signing: libcrypto failed\n");
        exit(1);
    }
    to_hex(body_hash, body_hash_len, body_hex);
    int len = asprintf(&sign_prefix, "GET\n%s\n%s\n%s\n", *path ? path : "/", sorted, body_hex);
    if (len < 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    sign_prefix_len = (size_t)len;
    free(sorted);
    curl_free(query);
    curl_free(path);
    curl_url_cleanup(u);

    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    hmac_ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    if (!hmac_ctx || EVP_MAC_init(hmac_ctx, (const unsigned char *)SIGNING_SECRET,
                                  sizeof SIGNING_SECRET - 1, params) != 1) {
        fprintf(stderr, "signing: cannot key HMAC-SHA256\n");
        exit(1);
    }
}

static void signing_cleanup(void) {
    EVP_MAC_CTX_free(hmac_ctx);
    EVP_MAC_free(hmac);
    free(sign_prefix);
}

/* With --features signing: signs the transfer `e` is about to start (call it before
 * each curl_easy_perform / curl_multi_add_handle). Its two headers replace those of
 * the handle's previous transfer, which has completed (performed, or removed from the
 * multi handle): libcurl no longer reads that list, so it is freed here. */
static void sign_transfer(CURL *e, buf_t *b) {
    if (!signing) return;
    char ts[24], hex[65], line[96];
    int ts_len = snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
    unsigned char mac[32];
    size_t mac_len = 0;
    if (EVP_MAC_init(hmac_ctx, NULL, 0, NULL) != 1 || /* the same key, nothing absorbed */
        EVP_MAC_update(hmac_ctx, (const unsigned char *)sign_prefix, sign_prefix_len) != 1 ||
        EVP_MAC_update(hmac_ctx, (const unsigned char *)ts, (size_t)ts_len) != 1 ||
        EVP_MAC_final(hmac_ctx, mac, &mac_len, sizeof mac) != 1 || mac_len != sizeof mac) {
        fprintf(stderr, "signing: libcrypto failed\n");
        exit(1);
    }
    to_hex(mac, sizeof mac, hex);
    snprintf(line, sizeof line, "%s: %s", TIMESTAMP_HEADER, ts);
    struct curl_slist *headers = curl_slist_append(NULL, line);
    snprintf(line, sizeof line, "%s: %s", SIGNATURE_HEADER, hex);
    struct curl_slist *both = headers ? curl_slist_append(headers, line) : NULL;
    if (!both) {
        curl_slist_free_all(headers);
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, both);
    curl_slist_free_all(b->headers);
    b->headers = both;
}

/* ---------------------------------------------------------------- --features events */

/* The application's handler, called through a pointer as a library calls it. */
static void (*volatile event_fn)(const char *, size_t, void *) = bench_count_event;

/* `s` as a JSON string into `out` (at least 6 bytes an input byte, plus 3) */
static size_t json_quote(char *out, const char *s) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    out[o++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            out[o++] = '\\';
            out[o++] = (char)*p;
        } else if (*p < 0x20) {
            memcpy(out + o, "\\u00", 4);
            out[o + 4] = hex[*p >> 4];
            out[o + 5] = hex[*p & 15];
            o += 6;
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o++] = '"';
    out[o] = 0;
    return o;
}

/* One event: `timings` and the numbers are JSON text ("null" where they do not apply). */
static void emit_event(const char *kind, const buf_t *b, int attempt, long status, const char *timings,
                       const char *bytes, const char *elapsed_us) {
    char url[6 * 2048 + 3], json[1024 + sizeof url];
    if (strlen(event_url) > 2048) return;
    json_quote(url, event_url);
    int n = snprintf(json, sizeof json,
                     "{\"event\":\"%s\",\"id\":%llu,\"method\":\"GET\",\"url\":%s,\"attempt\":%d,"
                     "\"status\":%ld,\"domain\":null,\"code\":null,\"delay_ms\":null,\"reason\":null,"
                     "\"timings\":%s,\"bytes\":%s,\"from_cache\":false,\"not_modified\":false,"
                     "\"cache\":null,\"elapsed_us\":%s}",
                     kind, b->id, url, attempt, status, timings, bytes, elapsed_us);
    if (n > 0 && (size_t)n < sizeof json) event_fn(json, (size_t)n, NULL);
}

/* Before a request's transfer starts. */
static void event_start(buf_t *b) {
    if (!events) return;
    static unsigned long long next_id;
    b->id = ++next_id;
    b->started = bench_now();
    emit_event("request_start", b, 0, 0, "null", "null", "null");
}

/* When the request's transfer has completed (status 0 when it failed). */
static void event_end(CURL *e, const buf_t *b, long status) {
    if (!events) return;
    curl_off_t dns = 0, connect = 0, tls = 0, first_byte = 0, total = 0, bytes = 0;
    curl_easy_getinfo(e, CURLINFO_NAMELOOKUP_TIME_T, &dns);
    curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect);
    curl_easy_getinfo(e, CURLINFO_APPCONNECT_TIME_T, &tls);
    curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &first_byte);
    curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &total);
    curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &bytes);
    char timings[160], bytes_text[24], elapsed[24];
    snprintf(timings, sizeof timings,
             "{\"dns\":%" CURL_FORMAT_CURL_OFF_T ",\"connect\":%" CURL_FORMAT_CURL_OFF_T
             ",\"tls\":%" CURL_FORMAT_CURL_OFF_T ",\"first_byte\":%" CURL_FORMAT_CURL_OFF_T
             ",\"total\":%" CURL_FORMAT_CURL_OFF_T "}",
             dns, connect, tls, first_byte, total);
    snprintf(bytes_text, sizeof bytes_text, "%" CURL_FORMAT_CURL_OFF_T, bytes);
    snprintf(elapsed, sizeof elapsed, "%lld", (long long)((bench_now() - b->started) * 1e6));
    emit_event("attempt_end", b, 1, status, timings, bytes_text, "null");
    emit_event("request_end", b, 1, status, "null", "null", elapsed);
}

/* What precedes every transfer: its signature and its first event. */
static void begin(CURL *e, buf_t *b) {
    sign_transfer(e, b);
    event_start(b);
}

/* result of one finished transfer: 1 ok, 0 failed */
static int finish(CURL *e, CURLcode rc, buf_t *b, int parse) {
    if (events) {
        long st = 0;
        if (rc == CURLE_OK) curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &st);
        event_end(e, b, st);
    }
    if (rc != CURLE_OK) {
        note_error("transfer failed: %s", curl_easy_strerror(rc));
        return 0;
    }
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        note_error("HTTP status %s", status == 404 ? "404" : "not 200");
        return 0;
    }
    if (parse) return check_envelope(b->p ? b->p : "", b->len);
    return 1;
}

/* seq / download / download-file: one reused easy handle; `out_path`: each body
 * to that file (download-file, no warm-up) */
static void run_sequential(const bench_args *a, int parse, const char *out_path) {
    buf_t b = {0};
    FILE *file = NULL;
    CURL *e = new_easy(a->url, &b);
    int fresh_buffer = !parse; /* downloads: a new buffer per body, freed after use */
    for (long i = 0; i < a->warmup; i++) {
        b.len = 0;
        begin(e, &b);
        finish(e, curl_easy_perform(e), &b, parse);
        if (fresh_buffer) {
            struct curl_slist *headers = b.headers; /* still set on the handle */
            free(b.p);
            b = (buf_t){0};
            b.file = file;
            b.easy = e;
            b.headers = headers;
        }
    }
    first_error[0] = 0;
    long ok = 0, errors = 0;
    long long bytes = 0;
    double deadline = bench_now() + a->time_limit;
    bench_slicer sl = bench_slicer_for(a);
    long slice_end = bench_slice_start(&sl, 0), slice_at = 0;
    double cpu0 = bench_cpu(), t0 = bench_now();
    for (long i = 0; i < a->n && bench_now() < deadline; i++) {
        if (i == slice_end) {
            bench_slice_finish(&sl, i - slice_at);
            slice_at = i;
            slice_end = bench_slice_start(&sl, i);
        }
        b.len = 0;
        b.seen = 0;
        /* Each download writes a new file: created/truncated, written, closed (what
         * a download does, and what libnetcore's output file does). */
        if (out_path) {
            b.file = fopen(out_path, "wb");
            if (!b.file) {
                note_error("%s", "cannot open --out");
                errors++;
                continue;
            }
        }
        begin(e, &b);
        int good = finish(e, curl_easy_perform(e), &b, parse);
        if (out_path && fclose(b.file) != 0) good = 0;
        if (good) {
            ok++;
            bytes += (long long)b.seen;
        } else errors++;
        if (fresh_buffer) {
            struct curl_slist *headers = b.headers;
            free(b.p);
            b = (buf_t){0};
            b.file = file;
            b.easy = e;
            b.headers = headers;
        }
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    if (sl.slices) {
        bench_slice_finish(&sl, ok + errors - slice_at);
        secs = sl.secs;
        cpu = sl.cpu;
    }
    if (ok + errors < a->n) note_error("%s", "time limit reached");
    bench_emit(PEER, a, ok, errors + (a->n - ok - errors), bytes, secs, cpu,
               first_error[0] ? first_error : NULL, "");
    curl_easy_cleanup(e);
    curl_slist_free_all(b.headers);
    free(b.p);
}

/* takes `n` easy handles out of `m`, frees them, their buffers and `m` */
static void free_handles(CURLM *m, CURL **easy, buf_t *bufs, long n) {
    for (long i = 0; i < n; i++) {
        curl_multi_remove_handle(m, easy[i]);
        curl_easy_cleanup(easy[i]);
        curl_slist_free_all(bufs[i].headers);
        free(bufs[i].p);
    }
    free(easy);
    free(bufs);
}

/* conc: C easy handles in one multi; each is re-added until N have completed */
/* `m`: the multi handle, whose connections the warm-up leaves open for the timed window
 * (a TLS handshake per connection otherwise lands in the timed window; libnetcore keeps
 * its connections too). `sl`: the timed window's slices (--slices), NULL for the
 * warm-up; each slice drains before the next one starts, as nc_capi's do */
static void run_window(CURLM *m, const bench_args *a, long n, long c, long *ok_out, long *err_out,
                       long long *bytes_out, double deadline, bench_slicer *sl) {
    long handles = c < n ? c : n;
    CURL **easy = calloc((size_t)(handles ? handles : 1), sizeof *easy);
    buf_t *bufs = calloc((size_t)(handles ? handles : 1), sizeof *bufs);
    long started = 0, done = 0, limit = sl ? bench_slice_start(sl, 0) : n, slice_at = 0;
    for (long i = 0; i < handles; i++) easy[i] = new_easy(a->url, &bufs[i]);
    for (long i = 0; i < handles && started < limit; i++) {
        begin(easy[i], &bufs[i]);
        curl_multi_add_handle(m, easy[i]);
        started++;
    }
    int running = 1;
    while (done < started) {
        if (bench_now() > deadline) {
            note_error("%s", "time limit reached");
            break;
        }
        curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *e = msg->easy_handle;
            CURLcode rc = msg->data.result;
            buf_t *b;
            curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&b);
            if (finish(e, rc, b, 1)) {
                (*ok_out)++;
                *bytes_out += (long long)b->len;
            } else (*err_out)++;
            done++;
            curl_multi_remove_handle(m, e);
            if (started < limit) {
                b->len = 0;
                begin(e, b);
                curl_multi_add_handle(m, e);
                started++;
            }
        }
        if (sl && done == started && started < n) { /* the slice has drained: the next one */
            bench_slice_finish(sl, done - slice_at);
            slice_at = done;
            limit = bench_slice_start(sl, done);
            for (long i = 0; i < handles && started < limit; i++) {
                bufs[i].len = 0;
                begin(easy[i], &bufs[i]);
                curl_multi_add_handle(m, easy[i]);
                started++;
            }
        }
        if (done < started) curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    if (sl) bench_slice_finish(sl, done - slice_at);
    free_handles(m, easy, bufs, handles);
}

static void run_conc(const bench_args *a) {
    CURLM *m = curl_multi_init();
    long ok = 0, errors = 0;
    long long bytes = 0;
    double deadline = bench_now() + a->time_limit;
    if (a->warmup > 0)
        run_window(m, a, a->warmup > a->c ? a->warmup : a->c, a->c, &ok, &errors, &bytes, deadline,
                   NULL);
    ok = errors = 0;
    bytes = 0;
    first_error[0] = 0;
    bench_slicer sl = bench_slicer_for(a);
    double cpu0 = bench_cpu(), t0 = bench_now();
    run_window(m, a, a->n, a->c, &ok, &errors, &bytes, deadline, sl.slices ? &sl : NULL);
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    if (sl.slices) {
        secs = sl.secs;
        cpu = sl.cpu;
    }
    bench_emit(PEER, a, ok, errors + (a->n - ok - errors), bytes, secs, cpu,
               first_error[0] ? first_error : NULL, "");
    curl_multi_cleanup(m);
}

/* slow: N transfers in flight at once; RSS growth per in-flight request */
static void run_slow(const bench_args *a) {
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, 0L); /* no cap (the default) */
    long base = bench_status_kb("VmRSS");
    bench_reset_peak();
    double cpu0 = bench_cpu(), t0 = bench_now(), deadline = t0 + a->time_limit;
    CURL **easy = calloc((size_t)a->n + 1, sizeof *easy);
    buf_t *bufs = calloc((size_t)a->n + 1, sizeof *bufs);
    for (long i = 0; i < a->n; i++) {
        easy[i] = new_easy(a->url, &bufs[i]);
        sign_transfer(easy[i], &bufs[i]);
        curl_multi_add_handle(m, easy[i]);
    }
    long ok = 0, errors = 0, done = 0, max_running = 0;
    long long bytes = 0;
    int running = 1;
    while (done < a->n) {
        if (bench_now() > deadline) {
            note_error("%s", "time limit reached");
            break;
        }
        curl_multi_perform(m, &running);
        if (running > max_running) max_running = running;
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            buf_t *b;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&b);
            if (finish(msg->easy_handle, msg->data.result, b, 1)) {
                ok++;
                bytes += (long long)b->len;
            } else errors++;
            done++;
            free(b->p); /* a finished request gives its memory back */
            b->p = NULL;
            b->cap = b->len = 0;
        }
        if (done < a->n) curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    long peak = bench_status_kb("VmHWM");
    bench_emit(PEER, a, ok, a->n - ok, bytes, secs, cpu, first_error[0] ? first_error : NULL,
               ",\"rss_base_kb\":%ld,\"rss_per_req_kb\":%.3f,\"max_in_flight\":%ld", base,
               (double)(peak > base ? peak - base : 0) / (double)(a->n ? a->n : 1), max_running);
    free_handles(m, easy, bufs, a->n);
    curl_multi_cleanup(m);
}

/* cancel: start a transfer of a rate-limited body, wait for its first bytes, then
 * time curl_multi_remove_handle (libcurl's cancellation; synchronous). */
static void run_cancel(const bench_args *a) {
    CURLM *m = curl_multi_init();
    buf_t b = {0};
    CURL *e = new_easy(a->url, &b);
    double *lat = calloc((size_t)a->n + 1, sizeof *lat);
    long samples = 0, not_mid = 0;
    double deadline = bench_now() + a->time_limit;
    double cpu0 = bench_cpu(), t0 = bench_now();
    for (long i = 0; i < a->n && bench_now() < deadline; i++) {
        b.len = 0;
        b.seen = 0;
        sign_transfer(e, &b);
        curl_multi_add_handle(m, e);
        int running = 1, finished = 0;
        double give_up = bench_now() + 10;
        while (b.seen == 0 && bench_now() < give_up) {
            curl_multi_perform(m, &running);
            int left;
            CURLMsg *msg;
            while ((msg = curl_multi_info_read(m, &left)))
                if (msg->msg == CURLMSG_DONE) finished = 1;
            if (finished) break;
            if (b.seen == 0) curl_multi_poll(m, NULL, 0, 10, NULL);
        }
        if (finished || b.seen == 0) not_mid++;
        double c0 = bench_now();
        curl_multi_remove_handle(m, e);
        double c1 = bench_now();
        if (!finished && b.seen > 0) lat[samples++] = (c1 - c0) * 1e6;
        free(b.p);
        b.p = NULL;
        b.cap = 0;
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    qsort(lat, (size_t)samples, sizeof *lat, bench_cmp_double);
    bench_emit(PEER, a, samples, a->n - samples, 0, secs, cpu,
               not_mid ? "some samples finished or received nothing before the cancel" : NULL,
               ",\"samples\":%ld,\"p50_us\":%.2f,\"p99_us\":%.2f,\"max_us\":%.2f", samples,
               bench_percentile(lat, samples, 50), bench_percentile(lat, samples, 99),
               samples ? lat[samples - 1] : 0.0);
    free(lat);
    curl_easy_cleanup(e);
    curl_slist_free_all(b.headers);
    curl_multi_cleanup(m);
}

int main(int argc, char **argv) {
    bench_args a = bench_parse_args(argc, argv);
    ca_file = a.ca_file;
    http2 = !strcmp(a.http_version, "2");
    /* --features LIST (comma-separated): this peer has "signing", "events", "timeouts"
       (libnetcore's defaults: "connect-timeout"), "total-timeout", "connect-timeout" and
       "thread" */
    for (const char *p = a.features; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == strlen("signing") && !strncmp(p, "signing", len)) signing = 1;
        else if (len == strlen("timeouts") && !strncmp(p, "timeouts", len))
            default_timeouts = connect_timeout = 1;
        else if (len == strlen("total-timeout") && !strncmp(p, "total-timeout", len)) total_timeout = 1;
        else if (len == strlen("connect-timeout") && !strncmp(p, "connect-timeout", len))
            connect_timeout = 1;
        else if (len == strlen("thread") && !strncmp(p, "thread", len)) extra_thread = 1;
        else if (len == strlen("events") && !strncmp(p, "events", len)) events = 1;
        else if (len == strlen("no-user-agent") && !strncmp(p, "no-user-agent", len)) no_user_agent = 1;
        else if (len) {
            fprintf(stderr,
                    "raw_curl: unknown feature '%.*s' (it has: signing, events, timeouts, "
                    "total-timeout, connect-timeout, thread, no-user-agent)\n",
                    (int)len, p);
            return 2;
        }
        p += len;
        if (*p) p++;
    }
    if (extra_thread) {
        pthread_t t;
        if (pthread_create(&t, NULL, idle_thread, NULL) != 0) {
            fprintf(stderr, "raw_curl: cannot start the idle thread\n");
            return 1;
        }
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
    snprintf(user_agent, sizeof user_agent, "rawcurl/0.3.0 libcurl/%s",
             curl_version_info(CURLVERSION_NOW)->version);
    if (no_user_agent && !strcmp(PEER, "raw-curl")) PEER = "raw-curl-no-ua";
    if (!strcmp(a.tuned, "on")) {
        PEER = signing ? "raw-curl-tuned-signed" : "raw-curl-tuned";
        url_handle = curl_url();
        if (!url_handle || curl_url_set(url_handle, CURLUPART_URL, a.url, 0) != CURLUE_OK) {
            fprintf(stderr, "curl_url_set refused %s\n", a.url);
            return 1;
        }
    } else if (signing) PEER = "raw-curl-signed";
    if (default_timeouts && !strcmp(PEER, "raw-curl"))
        PEER = extra_thread ? "raw-curl-timeouts-thread" : "raw-curl-timeouts";
    else if ((total_timeout || connect_timeout) && !strcmp(PEER, "raw-curl"))
        PEER = total_timeout ? "raw-curl-total-timeout" : "raw-curl-connect-timeout";
    else if (extra_thread && !strcmp(PEER, "raw-curl")) PEER = "raw-curl-thread";
    if (signing) signing_setup(a.url);
    event_url = a.url;
    if (events && !strcmp(PEER, signing ? "raw-curl-signed" : "raw-curl"))
        PEER = signing ? "raw-curl-signed-events" : "raw-curl-events";
    if (!strcmp(a.workload, "seq")) run_sequential(&a, 1, NULL);
    else if (!strcmp(a.workload, "conc")) run_conc(&a);
    else if (!strcmp(a.workload, "download")) run_sequential(&a, 0, NULL);
    else if (!strcmp(a.workload, "download-file")) {
        if (!a.out) {
            fprintf(stderr, "download-file needs --out\n");
            return 1;
        }
        a.warmup = 0;
        run_sequential(&a, 0, a.out);
    } else if (!strcmp(a.workload, "slow")) run_slow(&a);
    else if (!strcmp(a.workload, "cancel")) run_cancel(&a);
    else bench_skip(PEER, &a, "unknown workload");
    if (signing) signing_cleanup();
    curl_url_cleanup(url_handle);
    curl_global_cleanup();
    return 0;
}
