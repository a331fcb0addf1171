/*
 * fault_driver.c — the fault-injection suite (docs/RELIABILITY.md): one table of hostile
 * server behaviours, each sent through the public C API (include/netcore.h)
 * against the loopback mock server's misbehaving routes
 * (Tests/Support/mock_routes_fault.py and the older raw routes of
 * mock_server.py), a second mock server (another port) and the TLS test server
 * (Tests/Support/tls_server.py).
 *
 *   usage: fault_driver --base http://127.0.0.1:P/api --other http://127.0.0.1:Q/api
 *                       [--tls FILE] [--full] [--sync] [--markdown] [--only NAME]
 *
 *   --tls FILE   the JSON line tls_server.py printed (ports, files, pins); without
 *                it the TLS cases are skipped (and say so)
 *   --full       also the cases marked FULL (the default body cap, large bombs)
 *   --sync       also send every case with nc_client_send_sync()
 *   --markdown   print the scenario table (docs/RELIABILITY.md) from the results
 *
 * Every case asserts: the exact domain and code (0/0 = success) and, where a
 * user relies on it, a part of the message; exactly one completion callback
 * (counted again after the next request and after nc_client_free()); no
 * response with a TRANSPORT or CLIENT error, one with a PARSE error; attempts 1;
 * and that the same client then serves GET /fault/ok. A case that does not
 * complete within FAULT_WAIT_S seconds (default 30) fails as a hang.
 * Prints one line per case and "N passed, M failed" last; exits 1 on a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>
#include <dlfcn.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcore.h"

/* ---- the table -------------------------------------------------------------- */

/* FULL: only with --full. TLS: needs the TLS server. WARM: the client first serves
 * GET /fault/ok the same way (async or sync), so the case's transfer runs on a
 * reused easy handle. FOLD: expects the fold guard (ncsink.h), which the library
 * arms only on a libcurl with the defect (7.83.1 to 8.0.1); skipped on others. */
enum { FULL = 1, TLS = 2, WARM = 4, FOLD = 8, RAW = 16 /* nc_request_set_envelope(0) */ };

typedef int (*check_fn)(const nc_response *resp, char *why, size_t n);

typedef struct {
    const char *name;   /* the scenario */
    const char *url;    /* %B base, %O other port, %L localhost, %T<profile> https port, %P plain port */
    const char *config; /* extra members of the client's configuration, or NULL */
    int domain;         /* 0: success expected */
    long code;          /* the code (domain != 0) */
    const char *message; /* a part of the message a user relies on, or NULL */
    check_fn check;      /* more checks of a success, or NULL */
    const char *headers; /* request headers "Name: value\n"…, or NULL */
    unsigned flags;
} fault_case;

#define CRED_HEADERS                                                                                    \
  "Authorization: Bearer secret-token\nCookie: session=s3cret\n"                                        \
  "Proxy-Authorization: Basic cHJveHk6cGFzcw==\nX-Api-Key: k3y\nX-Plain: visible\n"
#define CRED_CONFIG "\"credential_headers\":[\"X-Api-Key\"]"

static int check_fault_ok(const nc_response *resp, char *why, size_t n);
static int check_depth_2048(const nc_response *resp, char *why, size_t n);
static int check_keys_100k(const nc_response *resp, char *why, size_t n);
static int check_duplicates(const nc_response *resp, char *why, size_t n);
static int check_creds_kept(const nc_response *resp, char *why, size_t n);
static int check_creds_dropped(const nc_response *resp, char *why, size_t n);
static int check_tls_ok(const nc_response *resp, char *why, size_t n);

#define T         NC_DOMAIN_TRANSPORT
#define C         NC_DOMAIN_CLIENT
#define P         NC_DOMAIN_PARSE
#define SMALL_CAP "\"limits\":{\"max_response_bytes\":1048576}"

static const fault_case CASES[] = {
    /* time */
    {"never answers", "%B/fault/never-answers", "\"timeout_ms\":500", T, 28,
     "timeout_ms (500 ms) ran out", 0, 0, 0},
    {"slowloris headers (a byte every 50 ms)", "%B/fault/slowloris", "\"timeout_ms\":500", T, 28,
     "timeout_ms (500 ms) ran out", 0, 0, 0},
    {"slow body (a byte every 50 ms)", "%B/fault/slow-body", "\"timeout_ms\":500", T, 28,
     "timeout_ms (500 ms) ran out", 0, 0, 0},
    /* size */
    {"endless body, close-delimited", "%B/fault/endless-body", SMALL_CAP, C,
     NC_CLIENT_RESPONSE_TOO_LARGE, "max_response_bytes", 0, 0, 0},
    {"endless body, chunked", "%B/fault/endless-chunked", SMALL_CAP, C, NC_CLIENT_RESPONSE_TOO_LARGE,
     "max_response_bytes", 0, 0, 0},
    {"endless body, default cap (100 MiB)", "%B/fault/endless-chunked", 0, C,
     NC_CLIENT_RESPONSE_TOO_LARGE, "max_response_bytes", 0, 0, FULL},
    {"endless headers", "%B/fault/endless-headers", 0, C, NC_CLIENT_HEADERS_TOO_LARGE,
     "limits.max_header", 0, 0, 0},
    {"huge header line (1 MiB)", "%B/raw/huge-header-line?bytes=1048576", 0, C,
     NC_CLIENT_HEADERS_TOO_LARGE, "header line is longer", 0, 0, 0},
    {"10k headers", "%B/headers/many?n=10000", 0, C, NC_CLIENT_HEADERS_TOO_LARGE,
     "limits.max_header_count", 0, 0, 0},
    {"10k headers, every 50th an HTTP/ line", "%B/raw/headers-http-lines?n=10000&every=50", 0, C,
     NC_CLIENT_HEADERS_TOO_LARGE, "limits.max_header_count", 0, 0, 0},
    {"1xx flood (1000 interim responses)", "%B/raw/1xx-flood?n=1000", 0, C, NC_CLIENT_HEADERS_TOO_LARGE,
     "limits.max_header", 0, 0, 0},
    {"gzip bomb (64 MiB of zeros, 64 KiB sent)", "%B/fault/gzip-bomb?mb=64", SMALL_CAP, C,
     NC_CLIENT_RESPONSE_TOO_LARGE, "max_response_bytes", 0, 0, 0},
    {"gzip bomb past the default cap (128 MiB)", "%B/fault/gzip-bomb?mb=128", 0, C,
     NC_CLIENT_RESPONSE_TOO_LARGE, "max_response_bytes", 0, 0, FULL},
    /* framing */
    {"reset mid-headers", "%B/fault/reset-mid-headers", 0, T, 56, 0, 0, 0, 0},
    {"reset mid-body", "%B/reset", 0, T, 56, 0, 0, 0, 0},
    {"EOF before Content-Length", "%B/close-early", 0, T, 18, "closed with 990 bytes remaining", 0, 0,
     0},
    {"truncated header block", "%B/raw/truncated-headers?lines=2", 0, T, 18, 0, 0, 0, 0},
    {"truncated header block after a 100 Continue", "%B/raw/truncated-headers?lines=2&interim=1", 0, T,
     18, 0, 0, 0, 0},
    {"conflicting Content-Length (two lines)", "%B/fault/conflicting-length?mode=lines", 0, T, 8,
     "Content-Length", 0, 0, 0},
    {"conflicting Content-Length (one list)", "%B/fault/conflicting-length?mode=list", 0, T, 8,
     "Content-Length", 0, 0, 0},
    {"conflicting Content-Length (names in other cases)", "%B/fault/conflicting-length?mode=cases", 0, T,
     8, "Content-Length", 0, 0, 0},
    {"repeated identical Content-Length", "%B/fault/conflicting-length?mode=same", 0, 0, 0, 0,
     check_fault_ok, 0, 0},
    {"Content-Length + chunked (chunked wins)", "%B/fault/length-and-chunked", 0, 0, 0, 0,
     check_fault_ok, 0, 0},
    {"bad chunk size (\"zz\")", "%B/fault/chunk?size=zz", 0, T, 56, 0, 0, 0, 0},
    {"huge chunk size (20 hex digits)", "%B/fault/chunk?size=fffffffffffffffffffff", 0, T, 56, 0, 0, 0,
     0},
    {"chunk size 2^63-1, then close", "%B/fault/chunk?size=7fffffffffffffff", 0, T, 18, 0, 0, 0, 0},
    {"truncated final chunk", "%B/fault/truncated-final-chunk", 0, T, 18, 0, 0, 0, 0},
    {"garbage status line", "%B/raw/garbage-status", 0, T, 1, "not HTTP", 0, 0, 0},
    /* encodings */
    {"stacked encodings (gzip, gzip)", "%B/fault/encoding?stack=gzip,gzip", 0, 0, 0, 0, check_fault_ok,
     0, 0},
    {"stacked encodings (deflate, gzip)", "%B/fault/encoding?stack=deflate,gzip", 0, 0, 0, 0,
     check_fault_ok, 0, 0},
    {"unknown encoding", "%B/fault/encoding?stack=x-fault", 0, T, 61, 0, 0, 0, 0},
    /* redirects */
    {"redirect loop", "%B/redirect/loop", 0, T, 47, "redirects", 0, 0, 0},
    {"redirect to file://", "%B/redirect?to=file:///etc/passwd", 0, T, 1, "Only http and https", 0, 0,
     0},
    {"redirect to ftp://", "%B/redirect?to=ftp://127.0.0.1/x", 0, T, 1, "Only http and https", 0, 0, 0},
    {"redirect to gopher://", "%B/redirect?to=gopher://127.0.0.1/x", 0, T, 1, "Only http and https", 0,
     0, 0},
    /* credentials on redirects */
    {"credentials, same origin", "%B/redirect?to=/api/echo", CRED_CONFIG, 0, 0, 0, check_creds_kept,
     CRED_HEADERS, 0},
    {"credentials, other port", "%B/redirect?to=%O/echo", CRED_CONFIG, 0, 0, 0, check_creds_dropped,
     CRED_HEADERS, 0},
    {"credentials, other host (127.0.0.1 -> localhost)", "%B/redirect?to=%L/echo", CRED_CONFIG, 0, 0, 0,
     check_creds_dropped, CRED_HEADERS, 0},
    {"credentials, https -> http", "%Tgood/redirect?to=%B/echo",
     CRED_CONFIG ",\"tls\":{\"ca_file\":\"%Fca\"}", 0, 0, 0, check_creds_dropped, CRED_HEADERS, TLS},
    /* TLS */
    {"TLS self-signed", "%Tselfsigned/x", 0, T, 60, 0, 0, 0, TLS},
    {"TLS expired", "%Texpired/x", "\"tls\":{\"ca_file\":\"%Fca\"}", T, 60, 0, 0, 0, TLS},
    {"TLS wrong host", "%Twronghost/x", "\"tls\":{\"ca_file\":\"%Fca\"}", T, 60, 0, 0, 0, TLS},
    {"TLS untrusted CA", "%Tuntrusted/x", "\"tls\":{\"ca_file\":\"%Fca\"}", T, 60, 0, 0, 0, TLS},
    {"TLS private CA in ca_file", "%Tgood/x", "\"tls\":{\"ca_file\":\"%Fca\"}", 0, 0, 0, check_tls_ok, 0,
     TLS},
    {"TLS wrong pin", "%Tgood/x", "\"tls\":{\"ca_file\":\"%Fca\",\"pinned_public_keys\":[\"%Nother\"]}",
     T, 90, 0, 0, 0, TLS},
    {"TLS right pin", "%Tgood/x", "\"tls\":{\"ca_file\":\"%Fca\",\"pinned_public_keys\":[\"%Nserver\"]}",
     0, 0, 0, check_tls_ok, 0, TLS},
    {"https to a plain-HTTP port", "%P/fault/ok", 0, T, 35, "did not answer in TLS", 0, 0, 0},
    /* a folded first header line (libcurl 7.83.1 to 8.0.1: a use-after-free on a
     * reused handle; docs/RELIABILITY.md) */
    {"folded first header line (space), reused handle", "%B/fault/folded-first-line", 0, T, 8,
     "begins with whitespace", 0, 0, WARM | FOLD},
    {"folded first header line (tab), reused handle", "%B/fault/folded-first-line?ws=tab", 0, T, 8,
     "begins with whitespace", 0, 0, WARM | FOLD},
    {"folded first header line after a 100 Continue, reused handle",
     "%B/fault/folded-first-line?interim=1", 0, T, 8, "begins with whitespace", 0, 0, WARM | FOLD},
    {"folded first header line after an \"HTTP/2 200\" status line over HTTP/1.1, reused handle",
     "%B/fault/folded-first-line?version=2", 0, T, 8, "begins with whitespace", 0, 0, WARM | FOLD},
    {"folded first header line, new handle", "%B/fault/folded-first-line", 0, T, 8,
     "begins with whitespace", 0, 0, FOLD},
    /* JSON torture */
    {"JSON truncated", "%B/fault/json/truncated", 0, P, NC_PARSE_INVALID_JSON, "line 1", 0, 0, 0},
    {"JSON depth 2048 (jansson's limit)", "%B/fault/json/depth-2048", 0, 0, 0, 0, check_depth_2048, 0,
     0},
    {"JSON depth 2049", "%B/fault/json/depth-2049", 0, P, NC_PARSE_INVALID_JSON, "maximum parsing depth",
     0, 0, 0},
    {"JSON depth 100,000", "%B/fault/json/depth-100000", 0, P, NC_PARSE_INVALID_JSON,
     "maximum parsing depth", 0, 0, 0},
    {"JSON NaN", "%B/fault/json/nan", 0, P, NC_PARSE_INVALID_JSON, 0, 0, 0, 0},
    {"JSON 1e999", "%B/fault/json/huge-number", 0, P, NC_PARSE_INVALID_JSON, "overflow", 0, 0, 0},
    {"JSON invalid UTF-8", "%B/fault/json/invalid-utf8", 0, P, NC_PARSE_INVALID_JSON, 0, 0, 0, 0},
    {"JSON lone surrogate (\\ud800)", "%B/fault/json/lone-surrogate", 0, P, NC_PARSE_INVALID_JSON, 0, 0,
     0, 0},
    {"JSON surrogate as UTF-8 bytes", "%B/fault/json/surrogate-bytes", 0, P, NC_PARSE_INVALID_JSON, 0, 0,
     0, 0},
    {"JSON duplicate keys", "%B/fault/json/duplicate-keys", 0, P, NC_PARSE_DUPLICATE_KEY,
     "the key \"code\" twice", 0, 0, 0},
    {"JSON duplicate envelope code (7, then 0)", "%B/fault/json/duplicate-code", 0, P,
     NC_PARSE_DUPLICATE_KEY, "the key \"code\" twice", 0, 0, 0},
    {"JSON duplicate key spelled with an escape (co\\u0064e)", "%B/fault/json/duplicate-escaped", 0, P,
     NC_PARSE_DUPLICATE_KEY, "the key \"code\" twice", 0, 0, 0},
    {"JSON duplicate key inside data", "%B/fault/json/duplicate-nested", 0, P, NC_PARSE_DUPLICATE_KEY,
     "the key \"id\" twice", 0, 0, 0},
    {"JSON duplicate keys, raw mode (the last wins)", "%B/fault/json/duplicate-keys", 0, 0, 0, 0,
     check_duplicates, 0, RAW},
    {"JSON 100k keys", "%B/fault/json/keys-100k", 0, 0, 0, 0, check_keys_100k, 0, 0},
};
#define NCASES (sizeof CASES / sizeof CASES[0])

/* ---- state ------------------------------------------------------------------ */

static const char *g_base, *g_other;
static char g_local[256], g_plain[256];
static json_t *g_tls; /* tls_server.py's line, or NULL */
static int g_passed, g_failed, g_wait_s = 30;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Expands the placeholders of a URL or configuration; 0 when one is unknown. */
static int expand(const char *in, char *out, size_t cap) {
    size_t len = 0;
    out[0] = 0;
    for (const char *p = in; *p; p++) {
        char piece[1024];
        if (*p != '%') {
            piece[0] = *p;
            piece[1] = 0;
        } else {
            char kind = *++p;
            if (kind == 'B' || kind == 'O' || kind == 'L' || kind == 'P') {
                snprintf(piece, sizeof piece, "%s",
                         kind == 'B'   ? g_base
                         : kind == 'O' ? g_other
                         : kind == 'L' ? g_local
                                       : g_plain);
            } else if (kind == 'T' || kind == 'F' || kind == 'N') {
                char name[64];
                size_t k = 0;
                while (p[1] >= 'a' && p[1] <= 'z' && k < sizeof name - 1) name[k++] = *++p;
                name[k] = 0;
                if (!g_tls) return 0;
                const char *table = kind == 'T' ? "ports" : kind == 'F' ? "files" : "pins";
                json_t *v = json_object_get(json_object_get(g_tls, table), name);
                if (!v) return 0;
                if (kind == 'T')
                    snprintf(piece, sizeof piece, "https://127.0.0.1:%lld",
                             (long long)json_integer_value(v));
                else snprintf(piece, sizeof piece, "%s", json_string_value(v));
            } else {
                return 0;
            }
        }
        size_t n = strlen(piece);
        if (len + n >= cap) return 0;
        memcpy(out + len, piece, n + 1);
        len += n;
    }
    return 1;
}

/* Whether the loaded libcurl (libnetcore's, found at run time: the driver does not
 * link it) has the folded-first-line defect the library guards against. */
static int libcurl_has_fold_defect(void) {
    typedef curl_version_info_data *(*version_fn)(CURLversion);
    version_fn f = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "curl_version_info");
    if (!sym) return 1; /* cannot tell: expect the guard */
    memcpy(&f, &sym, sizeof f);
    unsigned v = f(CURLVERSION_NOW)->version_num;
    return v >= 0x075301 && v < 0x080100;
}

/* ---- one case ------------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    int domain;
    long code;
    int attempts;
    int had_response;
    char message[2048];
    char why[512];
    check_fn check;
} slot;

static void record(slot *s, const nc_response *resp, const nc_error *err) {
    s->domain = err ? (int)nc_error_domain(err) : 0;
    s->code = err ? (long)nc_error_code(err) : 0;
    s->attempts = err ? nc_error_attempts(err) : 1;
    s->had_response = resp != NULL;
    snprintf(s->message, sizeof s->message, "%s", err ? nc_error_message(err) : "");
    s->why[0] = 0;
    if (!err && s->check && !s->check(resp, s->why, sizeof s->why) && !s->why[0])
        snprintf(s->why, sizeof s->why, "the response's check failed");
}

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    slot *s = userdata;
    pthread_mutex_lock(&s->lock);
    if (s->calls++ == 0) record(s, resp, err);
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static void fail(const char *name, const char *mode, const char *what) {
    g_failed++;
    printf("FAIL - %s [%s]: %s\n", name, mode, what);
}

static nc_request *make_request(const char *url, const char *headers) {
    nc_request *req = NULL;
    if (nc_request_new("GET", url, &req) != NC_OK) return NULL;
    for (const char *h = headers; h && *h;) {
        const char *nl = strchr(h, '\n'), *colon = strchr(h, ':');
        char name[128], value[256];
        snprintf(name, sizeof name, "%.*s", (int)(colon - h), h);
        snprintf(value, sizeof value, "%.*s", (int)(nl - colon - 2), colon + 2);
        nc_request_set_header(req, name, value);
        h = nl + 1;
    }
    return req;
}

/* GET /fault/ok on `client` with nc_client_send (sync 0) or nc_client_send_sync:
 * the easy handle the next request of the same kind gets is then a used one. */
static void warm_up(nc_client *client, int sync, char *why, size_t n) {
    char url[512];
    snprintf(url, sizeof url, "%s/fault/ok", g_base);
    nc_request *req = make_request(url, NULL);
    slot s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.cond, NULL);
    s.check = check_fault_ok;
    if (sync) {
        nc_response *resp = NULL;
        nc_error *err = NULL;
        nc_client_send_sync(client, req, &resp, &err);
        record(&s, resp, err);
        nc_response_free(resp);
        nc_error_free(err);
    } else if (nc_client_send(client, req, on_done, &s, NULL) == NC_OK) {
        pthread_mutex_lock(&s.lock);
        while (s.calls == 0) pthread_cond_wait(&s.cond, &s.lock);
        pthread_mutex_unlock(&s.lock);
    } else {
        snprintf(s.why, sizeof s.why, "nc_client_send refused it");
    }
    if (s.domain || s.why[0]) snprintf(why, n, "the warm-up request failed: %s%s", s.message, s.why);
    nc_request_free(req);
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.cond);
}

/* Results for --markdown: the first mode's outcome of each case. */
static char g_result[NCASES][512];

static void run_case(size_t index, int sync) {
    const fault_case *fc = &CASES[index];
    const char *mode = sync ? "sync" : "async";
    char url[2048], extra[2048] = "", config[4096], what[3072];
    if (!expand(fc->url, url, sizeof url) || (fc->config && !expand(fc->config, extra, sizeof extra))) {
        printf("skip - %s [%s]: no TLS server (--tls)\n", fc->name, mode);
        snprintf(g_result[index], sizeof g_result[index], "skipped (no TLS server)");
        return;
    }
    snprintf(
        config, sizeof config,
        "{\"base_url\":\"%s\",\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
        "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}%s%s}",
        g_base, extra[0] ? "," : "", extra);
    nc_client *client = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &client, &err) != NC_OK) {
        snprintf(what, sizeof what, "nc_client_new(%.1500s): %.1000s", config, nc_error_message(err));
        nc_error_free(err);
        {
            fail(fc->name, mode, what);
            return;
        }
    }
    nc_request *req = make_request(url, fc->headers);
    if (req && (fc->flags & RAW)) nc_request_set_envelope(req, 0);
    if (!req) {
        nc_client_free(client);
        {
            fail(fc->name, mode, "nc_request_new refused the URL");
            return;
        }
    }
    if (fc->flags & WARM) {
        char why[1024] = "";
        warm_up(client, sync, why, sizeof why);
        if (why[0]) {
            nc_request_free(req);
            nc_client_free(client);
            fail(fc->name, mode, why);
            return;
        }
    }
    slot s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.cond, NULL);
    s.check = fc->check;
    double start = now_ms();
    if (sync) {
        nc_response *resp = NULL;
        nc_status st = nc_client_send_sync(client, req, &resp, &err);
        s.calls = 1;
        record(&s, resp, err);
        if ((st == NC_OK) != (err == NULL))
            snprintf(s.why, sizeof s.why, "status %d disagrees with the error", st);
        nc_response_free(resp);
        nc_error_free(err);
        err = NULL;
    } else {
        if (nc_client_send(client, req, on_done, &s, NULL) != NC_OK) {
            nc_request_free(req);
            nc_client_free(client);
            {
                fail(fc->name, mode, "nc_client_send refused the request");
                return;
            }
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += g_wait_s;
        pthread_mutex_lock(&s.lock);
        while (s.calls == 0)
            if (pthread_cond_timedwait(&s.cond, &s.lock, &until) != 0) break;
        int calls = s.calls;
        pthread_mutex_unlock(&s.lock);
        if (calls == 0) {
            /* A hang: leave the client (freeing it would wait for the transfer). */
            nc_request_free(req);
            snprintf(g_result[index], sizeof g_result[index], "HANG (no callback in %d s)", g_wait_s);
            snprintf(what, sizeof what, "no callback within %d s", g_wait_s);
            {
                fail(fc->name, mode, what);
                return;
            }
        }
    }
    double took = now_ms() - start;
    nc_request_free(req);

    /* The same client serves the next request. */
    nc_request *next = NULL;
    nc_response *next_resp = NULL;
    nc_error *next_err = NULL;
    char next_url[512];
    snprintf(next_url, sizeof next_url, "%s/fault/ok", g_base);
    nc_request_new("GET", next_url, &next);
    nc_status next_st = nc_client_send_sync(client, next, &next_resp, &next_err);
    char next_why[1024] = "";
    if (next_st != NC_OK)
        snprintf(next_why, sizeof next_why, "the next request on the same client failed: %s",
                 nc_error_message(next_err));
    else check_fault_ok(next_resp, next_why, sizeof next_why);
    nc_response_free(next_resp);
    nc_error_free(next_err);
    nc_request_free(next);
    int calls_before_free = s.calls;
    nc_client_free(client);

    /* The verdict. */
    char got[64];
    if (s.domain)
        snprintf(got, sizeof got, "%s %ld",
                 s.domain == 1   ? "CLIENT"
                 : s.domain == 2 ? "TRANSPORT"
                 : s.domain == 3 ? "HTTP"
                 : s.domain == 4 ? "API"
                                 : "PARSE",
                 s.code);
    else snprintf(got, sizeof got, "success");
    what[0] = 0;
    if (s.domain != fc->domain || (fc->domain && s.code != fc->code))
        snprintf(what, sizeof what, "got %s, want %d %ld", got, fc->domain, fc->code);
    else if (fc->message && !strstr(s.message, fc->message))
        snprintf(what, sizeof what, "message lacks \"%s\"", fc->message);
    else if (fc->domain && !s.message[0]) snprintf(what, sizeof what, "empty message");
    else if (s.why[0]) snprintf(what, sizeof what, "%s", s.why);
    else if (fc->domain && s.attempts != 1)
        snprintf(what, sizeof what, "attempts %d, want 1", s.attempts);
    else if ((fc->domain == T || fc->domain == C) && s.had_response)
        snprintf(what, sizeof what, "a response came with a %s error", got);
    else if (fc->domain == P && !s.had_response)
        snprintf(what, sizeof what, "no response with a PARSE error");
    else if (calls_before_free != 1 || s.calls != 1)
        snprintf(what, sizeof what, "%d callbacks before nc_client_free, %d after (want 1)",
                 calls_before_free, s.calls);
    else if (next_why[0]) snprintf(what, sizeof what, "%s", next_why);
    if (!g_result[index][0] || what[0])
        snprintf(g_result[index], sizeof g_result[index], "%s%s%s%.400s", what[0] ? "**FAIL** " : "",
                 got, s.message[0] ? ": " : "", s.message);
    if (what[0]) {
        fail(fc->name, mode, what);
        if (s.message[0]) printf("       message: %s\n", s.message);
    } else {
        g_passed++;
        printf("ok   - %s [%s]: %s (%.0f ms)%s%.300s\n", fc->name, mode, got, took,
               s.message[0] ? " — " : "", s.message);
    }
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.cond);
}

/* ---- checks of a success ------------------------------------------------------------ */

static int why_not(char *why, size_t n, const char *fmt, const char *detail) {
    snprintf(why, n, fmt, detail);
    return 0;
}

static int check_fault_ok(const nc_response *resp, char *why, size_t n) {
    json_t *data = resp ? nc_response_data(resp) : NULL;
    json_t *want = json_pack("{s:s}", "fault", "ok");
    int ok = data && json_equal(data, want);
    json_decref(want);
    if (!ok) {
        char *text = data ? json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        why_not(why, n, "data is %s, want {\"fault\":\"ok\"}", text ? text : "NULL");
        free(text);
    }
    return ok;
}

static int check_depth_2048(const nc_response *resp, char *why, size_t n) {
    json_t *v = resp ? nc_response_data(resp) : NULL;
    int depth = 1; /* the envelope */
    while (json_is_array(v)) {
        depth++;
        v = json_array_size(v) ? json_array_get(v, 0) : NULL;
    }
    if (depth != 2048) {
        char d[32];
        snprintf(d, sizeof d, "%d", depth);
        return why_not(why, n, "depth %s, want 2048", d);
    }
    return 1;
}

static int check_keys_100k(const nc_response *resp, char *why, size_t n) {
    json_t *data = resp ? nc_response_data(resp) : NULL;
    if (!json_is_object(data) || json_object_size(data) != 100000 ||
        json_integer_value(json_object_get(data, "k99999")) != 99999)
        return why_not(why, n, "%s", "data is not the object of 100000 keys");
    return 1;
}

/* Raw mode: the whole body, each key's last value. */
static int check_duplicates(const nc_response *resp, char *why, size_t n) {
    json_t *body = resp ? nc_response_data(resp) : NULL;
    json_t *data = json_object_get(body, "data");
    const char *msg = json_string_value(json_object_get(body, "msg"));
    if (json_integer_value(json_object_get(body, "code")) != 0 || !msg || strcmp(msg, "ok") != 0 ||
        json_integer_value(json_object_get(data, "a")) != 2 || json_object_size(data) != 1)
        return why_not(why, n, "%s", "data is not {\"code\":0,\"msg\":\"ok\",\"data\":{\"a\":2}}");
    return 1;
}

/* The echoed request headers of /echo behind the redirect. */
static json_t *echoed(const nc_response *resp) {
    return json_object_get(resp ? nc_response_data(resp) : NULL, "headers");
}

static const char *CREDS[] = {"authorization", "cookie", "proxy-authorization", "x-api-key"};

static int check_creds_kept(const nc_response *resp, char *why, size_t n) {
    json_t *h = echoed(resp);
    if (!json_is_object(h)) return why_not(why, n, "%s", "no echoed headers");
    for (size_t i = 0; i < sizeof CREDS / sizeof CREDS[0]; i++)
        if (!json_object_get(h, CREDS[i]))
            return why_not(why, n, "%s was dropped on a same-origin redirect", CREDS[i]);
    if (!json_object_get(h, "x-plain")) return why_not(why, n, "%s", "X-Plain was dropped");
    return 1;
}

static int check_creds_dropped(const nc_response *resp, char *why, size_t n) {
    json_t *h = echoed(resp);
    if (!json_is_object(h)) return why_not(why, n, "%s", "no echoed headers");
    for (size_t i = 0; i < sizeof CREDS / sizeof CREDS[0]; i++)
        if (json_object_get(h, CREDS[i])) return why_not(why, n, "%s reached another origin", CREDS[i]);
    /* The control: the echo works, and an ordinary header is kept. */
    if (!json_object_get(h, "x-plain")) return why_not(why, n, "%s", "X-Plain was dropped too");
    return 1;
}

static int check_tls_ok(const nc_response *resp, char *why, size_t n) {
    json_t *data = resp ? nc_response_data(resp) : NULL;
    if (!json_string_value(json_object_get(data, "tls_version")))
        return why_not(why, n, "%s", "no TLS version in the answer");
    return 1;
}

/* ---- main ------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    int full = 0, sync = 0, markdown = 0;
    const char *tls_file = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--base") && i + 1 < argc) g_base = argv[++i];
        else if (!strcmp(argv[i], "--other") && i + 1 < argc) g_other = argv[++i];
        else if (!strcmp(argv[i], "--tls") && i + 1 < argc) tls_file = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--full")) full = 1;
        else if (!strcmp(argv[i], "--sync")) sync = 1;
        else if (!strcmp(argv[i], "--markdown")) markdown = 1;
        else {
            fprintf(stderr,
                    "usage: %s --base URL --other URL [--tls FILE] [--full] [--sync] [--markdown]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!g_base || !g_other) {
        fprintf(stderr, "--base and --other are required\n");
        return 2;
    }
    if (getenv("FAULT_WAIT_S")) g_wait_s = atoi(getenv("FAULT_WAIT_S"));
    /* http://127.0.0.1:P/api -> http://localhost:P/api and https://127.0.0.1:P/api */
    const char *host = strstr(g_base, "127.0.0.1");
    if (!host) {
        fprintf(stderr, "--base must name 127.0.0.1\n");
        return 2;
    }
    snprintf(g_local, sizeof g_local, "http://localhost%s", host + strlen("127.0.0.1"));
    snprintf(g_plain, sizeof g_plain, "https://127.0.0.1%s", host + strlen("127.0.0.1"));
    if (tls_file) {
        json_error_t jerr;
        g_tls = json_load_file(tls_file, 0, &jerr);
        if (!g_tls) fprintf(stderr, "cannot read %s: %s\n", tls_file, jerr.text);
    }
    int fold = libcurl_has_fold_defect();
    for (size_t i = 0; i < NCASES; i++) {
        if ((CASES[i].flags & FULL) && !full) continue;
        if ((CASES[i].flags & FOLD) && !fold) {
            printf("skip - %s: this libcurl has no folded-first-line defect (the guard is off)\n",
                   CASES[i].name);
            continue;
        }
        if (only && !strstr(CASES[i].name, only)) continue;
        run_case(i, 0);
        if (sync) run_case(i, 1);
    }
    if (markdown) {
        printf("\n| scenario | expected | result |\n|---|---|---|\n");
        for (size_t i = 0; i < NCASES; i++) {
            const fault_case *fc = &CASES[i];
            if (!g_result[i][0]) continue;
            char want[64];
            if (fc->domain)
                snprintf(want, sizeof want, "%s %ld",
                         fc->domain == C   ? "CLIENT"
                         : fc->domain == T ? "TRANSPORT"
                                           : "PARSE",
                         fc->code);
            else snprintf(want, sizeof want, "success");
            printf("| %s | %s | ", fc->name, want);
            for (const char *p = g_result[i]; *p; p++) {
                if (*p == '|') fputs("\\|", stdout);
                else if (*p != '\n') putchar(*p);
            }
            printf(" |\n");
        }
    }
    json_decref(g_tls);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
