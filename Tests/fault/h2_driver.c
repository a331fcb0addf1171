/*
 * h2_driver.c — the HTTP/2 fault suite (docs/RELIABILITY.md#http2-servers-that-misbehave):
 * HTTP/2 servers that misbehave, each case sent through the public C API
 * (include/netcore.h) to Tests/fault/h2_server.py over TLS with ALPN h2.
 *
 *   usage: h2_driver --server FILE [--only NAME]
 *
 *   FILE  the JSON line h2_server.py printed (ports, the CA file)
 *
 * Every case asserts, for each request it sends: the exact outcome (success, or
 * domain and code, and nc_error_is_retryable where a user relies on it), exactly
 * one completion callback (counted again after the next request and after
 * nc_client_free()); what the server processed, which it counts per request id
 * (nothing lost, nothing doubled); and that the same client then serves GET /ok.
 * A request with no callback within H2_WAIT_S seconds (default 30) fails the case
 * as a hang. Prints one line per case and "h2 fault: N passed, M failed" last;
 * exits 1 on a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcore.h"

#define T NC_DOMAIN_TRANSPORT
#define C NC_DOMAIN_CLIENT

static long g_port, g_mcs1;
static char g_ca[1024];
static int g_passed, g_failed, g_wait_s = 30;
static char g_why[2048]; /* the current case's first failure */
static long g_note_refused = -1; /* streams the mcs1 server refused (printed) */

static void why(const char *fmt, ...) {
    if (g_why[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_why, sizeof g_why, fmt, ap);
    va_end(ap);
}

/* ---- requests in flight ------------------------------------------------------------ */

typedef struct {
    int calls;
    int domain;
    long code;
    int retryable;
    int attempts;
    long conn;  /* the answer's connection number (h2_server.py), -1 without one */
    long stall_conn; /* /wait-stall's: the stalled stream's connection, and whether it was open */
    int stall_open;
    char message[1024];
    char timeout[16];
} result;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n, done;
    result *r;
} batch;

typedef struct {
    batch *b;
    int i;
} ticket;

static ticket g_tickets[256];

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    ticket *t = userdata;
    batch *b = t->b;
    pthread_mutex_lock(&b->lock);
    result *r = &b->r[t->i];
    if (r->calls++ == 0) {
        b->done++;
        r->domain = err ? (int)nc_error_domain(err) : 0;
        r->code = err ? (long)nc_error_code(err) : 0;
        r->retryable = err ? nc_error_is_retryable(err) : 0;
        r->attempts = err ? nc_error_attempts(err) : 0;
        snprintf(r->message, sizeof r->message, "%s", err ? nc_error_message(err) : "");
        r->conn = -1;
        json_t *data = resp && !err ? nc_response_data(resp) : NULL;
        if (json_is_integer(json_object_get(data, "conn")))
            r->conn = (long)json_integer_value(json_object_get(data, "conn"));
        r->stall_conn = (long)json_integer_value(json_object_get(data, "stall_conn"));
        r->stall_open = json_is_true(json_object_get(data, "stall_open"));
        if (err) {
            json_t *j = json_loads(nc_error_json(err), 0, NULL);
            const char *to = json_string_value(json_object_get(j, "timeout"));
            snprintf(r->timeout, sizeof r->timeout, "%s", to ? to : "");
            json_decref(j);
        }
    }
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

static void batch_init(batch *b, int n) {
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    b->n = n;
    b->r = calloc((size_t)n, sizeof *b->r);
}

static void batch_destroy(batch *b) {
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b->r);
}

/* Waits until `count` requests of `b` completed; 0 on a hang. */
static int batch_wait(batch *b, int count) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += g_wait_s;
    pthread_mutex_lock(&b->lock);
    while (b->done < count)
        if (pthread_cond_timedwait(&b->cond, &b->lock, &until) != 0) break;
    int done = b->done;
    pthread_mutex_unlock(&b->lock);
    if (done < count) why("%d of %d requests had no callback within %d s", count - done, count, g_wait_s);
    return done >= count;
}

/* Sends request i of `b`: METHOD path, with a body when `body_len` > 0. */
static int send_one(nc_client *client, batch *b, int i, const char *method, const char *path,
                    size_t body_len, uint32_t flags, const char *idempotency_key) {
    nc_request *req = NULL;
    if (nc_request_new(method, path, &req) != NC_OK) {
        why("nc_request_new(%s %s) refused", method, path);
        return 0;
    }
    if (body_len) {
        char *body = malloc(body_len);
        memset(body, 'b', body_len);
        nc_request_set_body(req, body, body_len, "application/octet-stream");
        free(body);
    }
    if (flags) nc_request_set_flags(req, flags);
    if (idempotency_key) nc_request_set_header(req, "Idempotency-Key", idempotency_key);
    ticket *t = &g_tickets[i];
    t->b = b;
    t->i = i;
    nc_status st = nc_client_send(client, req, on_done, t, NULL);
    nc_request_free(req);
    if (st != NC_OK) why("nc_client_send(%s %s) refused: %s", method, path, nc_status_str(st));
    return st == NC_OK;
}

/* ---- the client and the server's counts ------------------------------------------- */

static nc_client *new_client(long port, const char *extra) {
    char config[4096];
    snprintf(config, sizeof config,
             "{\"base_url\":\"https://127.0.0.1:%ld\",\"http_version\":\"2\",\"tls\":{\"ca_file\":\"%s\"},"
             "\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
             "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}%s%s}",
             port, g_ca, extra ? "," : "", extra ? extra : "");
    nc_client *client = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &client, &err) != NC_OK) why("nc_client_new: %s", nc_error_message(err));
    nc_error_free(err);
    return client;
}

/* GET path synchronously; its data (new reference) or NULL. */
static json_t *get_data(nc_client *client, const char *path) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    json_t *data = NULL;
    nc_request_new("GET", path, &req);
    if (nc_client_send_sync(client, req, &resp, &err) == NC_OK) data = json_incref(nc_response_data(resp));
    else why("GET %s failed: %s", path, nc_error_message(err));
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    return data;
}

/* How many times the server processed request `id` (-1: could not ask). */
static long processed(nc_client *client, const char *id) {
    char path[256];
    snprintf(path, sizeof path, "/counts?prefix=%s", id);
    json_t *data = get_data(client, path);
    json_t *n = json_object_get(json_object_get(data, "counts"), id);
    long count = data ? (n ? (long)json_integer_value(n) : 0) : -1;
    json_decref(data);
    return count;
}

static const char *outcome(const result *r, char *buf, size_t n) {
    if (!r->domain) snprintf(buf, n, "success");
    else snprintf(buf, n, "%s %ld%s", r->domain == T ? "TRANSPORT" : r->domain == C ? "CLIENT" : "other", r->code,
                  r->retryable ? " (retryable)" : "");
    return buf;
}

/* The end of every case: the next request is served, then the client is freed, and
 * each request of `b` had exactly one callback before and after. */
static void finish(nc_client *client, batch *b, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "/ok?id=next-%s", name);
    json_t *data = get_data(client, path);
    const char *id = json_string_value(json_object_get(data, "id"));
    if (data && (!id || strcmp(id, path + 7) != 0))
        why("the next request's answer is not its own");
    json_decref(data);
    int before[256];
    for (int i = 0; i < b->n; i++) before[i] = b->r[i].calls;
    if (getenv("H2_VERBOSE"))
        for (int i = 0; i < b->n; i++) {
            char got[64];
            printf("       %s %d: %s conn %ld attempts %d %s\n", name, i, outcome(&b->r[i], got, sizeof got),
                   b->r[i].conn, b->r[i].attempts, b->r[i].message);
        }
    nc_client_free(client);
    for (int i = 0; i < b->n; i++)
        if (before[i] != 1 || b->r[i].calls != 1)
            why("request %d: %d callbacks before nc_client_free, %d after (want 1)", i, before[i], b->r[i].calls);
}

/* Request i ended with `domain`/`code` (0/0: success). */
static int expect(const batch *b, int i, int domain, long code) {
    const result *r = &b->r[i];
    if (r->domain == domain && r->code == code) return 1;
    char got[64];
    why("request %d: got %s, want %d %ld (%s)", i, outcome(r, got, sizeof got), domain, code, r->message);
    return 0;
}

/* ---- the cases ------------------------------------------------------------------------- */

/* GOAWAY while N streams are in flight; the server answers the `answered` lowest
 * first, then GOAWAY(last-stream-id = the highest of those) and closes. */
static void goaway_case(const char *name, const char *method, size_t body, int opt_in, const char *retry) {
    enum { N = 10, ANSWERED = 4 };
    nc_client *client = new_client(g_port, retry);
    if (!client) return;
    batch b;
    batch_init(&b, N);
    char path[256], key[64];
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "/goaway?tag=%s&n=%d&answer=%d&id=%s-%d", name, N, ANSWERED, name, i);
        snprintf(key, sizeof key, "%s-%d", name, i);
        send_one(client, &b, i, method, path, body, 0, opt_in ? key : NULL);
    }
    if (batch_wait(&b, N)) {
        int ok = 0, failed = 0;
        long first_conn = -1;
        for (int i = 0; i < N; i++) {
            char id[64];
            snprintf(id, sizeof id, "%s-%d", name, i);
            long n = processed(client, id);
            const result *r = &b.r[i];
            if (!r->domain) {
                ok++;
                if (n != 1) why("request %d succeeded, processed %ld times (want 1)", i, n);
                if (first_conn < 0 || r->conn < first_conn) first_conn = r->conn;
            } else {
                failed++;
                /* Failed: never processed, and retryable (the server refused it). */
                if (n != 0) why("request %d failed (%s), processed %ld times (want 0)", i, r->message, n);
                if (!r->retryable) why("request %d failed not retryable: %s", i, r->message);
            }
        }
        if (!retry) {
            /* No retry policy: one attempt, but libcurl's own resend of a refused stream. */
            if (ok < ANSWERED) why("%d succeeded, want at least the %d answered", ok, ANSWERED);
        } else if (!strcmp(method, "GET") || opt_in) {
            if (ok != N) why("%d of %d succeeded, want all (idempotent: retried on a new connection)", ok, N);
            int moved = 0;
            for (int i = 0; i < N; i++) moved += b.r[i].conn != first_conn;
            if (moved != N - ANSWERED)
                why("%d answered on a later connection, want %d (those above the last stream id)", moved,
                    N - ANSWERED);
        } else {
            if (ok != ANSWERED || failed != N - ANSWERED)
                why("%d succeeded and %d failed, want %d and %d", ok, failed, ANSWERED, N - ANSWERED);
        }
        /* libcurl sends a refused stream again by itself when it can (a request without
         * a body); a POST's body it may not rewind (65). The stream whose transfer read
         * the GOAWAY is reported as CURLE_HTTP2 (16) instead (libcurl 7.88). */
        for (int i = 0; i < N; i++)
            if (b.r[i].domain && !(b.r[i].domain == T && (b.r[i].code == 65 || b.r[i].code == 16)))
                expect(&b, i, T, 65);
    }
    finish(client, &b, name);
    batch_destroy(&b);
}

static const char *RETRY = "\"retry\":{\"backoff\":\"immediate\"}";
static void goaway_get(void) { goaway_case("goaway-get", "GET", 0, 0, RETRY); }
static void goaway_get_once(void) { goaway_case("goaway-get-once", "GET", 0, 0, NULL); }
static void goaway_post(void) {
    /* A retry policy is on: the failed POSTs are retryable but not retried (not opted in). */
    goaway_case("goaway-post", "POST", 1000, 0, RETRY);
}
static void goaway_post_key(void) {
    goaway_case("goaway-post-key", "POST", 1000, 1, RETRY);
}

/* RST_STREAM(code) on the first try of one request. */
static void rst_case(const char *name, const char *method, size_t body, int rst_code, int domain, long code,
                     long want_processed) {
    nc_client *client = new_client(g_port, NULL);
    if (!client) return;
    batch b;
    batch_init(&b, 1);
    char path[256], id[64];
    snprintf(id, sizeof id, "%s", name);
    snprintf(path, sizeof path, "/rst?code=%d&id=%s", rst_code, id);
    send_one(client, &b, 0, method, path, body, 0, NULL);
    if (batch_wait(&b, 1)) {
        expect(&b, 0, domain, code);
        if (domain && !b.r[0].retryable) why("not retryable: %s", b.r[0].message);
        long n = processed(client, id);
        if (n != want_processed) why("processed %ld times, want %ld", n, want_processed);
    }
    finish(client, &b, name);
    batch_destroy(&b);
}

static void rst_refused_get(void) { rst_case("rst-refused-get", "GET", 0, 7, 0, 0, 1); }
static void rst_refused_post(void) { rst_case("rst-refused-post", "POST", 1000, 7, T, 65, 0); }
static void rst_internal(void) { rst_case("rst-internal", "GET", 0, 2, T, 92, 0); }
static void rst_cancel(void) { rst_case("rst-cancel", "GET", 0, 8, T, 92, 0); }
static void rst_calm(void) { rst_case("rst-enhance-your-calm", "GET", 0, 11, T, 92, 0); }

/* A POST whose stream window the server never reopens: the idle timeout ends it,
 * while other streams on the same connection are answered. */
static void stalled_window(void) {
    enum { N = 6 };
    nc_client *client = new_client(g_port, "\"idle_timeout_ms\":1000");
    if (!client) return;
    batch b;
    batch_init(&b, N);
    send_one(client, &b, 0, "POST", "/stall?tag=stall&id=stall-post", 200000, 0, NULL);
    /* Request 1 is answered once the POST has used its window up: the stall is under
     * way. Sent with nc_client_send, as the POST: a synchronous send has connections
     * of its own. */
    send_one(client, &b, 1, "GET", "/wait-stall?tag=stall&id=stall-wait", 0, 0, NULL);
    if (!batch_wait(&b, 1)) {
        finish(client, &b, "stall");
        batch_destroy(&b);
        return;
    }
    char path[128];
    for (int i = 2; i < N; i++) {
        snprintf(path, sizeof path, "/ok?id=stall-get-%d", i);
        send_one(client, &b, i, "GET", path, 0, 0, NULL);
    }
    if (batch_wait(&b, N)) {
        expect(&b, 0, T, 28);
        if (strcmp(b.r[0].timeout, "idle") != 0) why("timeout \"%s\", want \"idle\"", b.r[0].timeout);
        long stall_conn = b.r[1].stall_conn;
        if (b.r[1].stall_open != 1) why("the stalled stream was not open when GET 1 was answered");
        for (int i = 1; i < N; i++)
            if (expect(&b, i, 0, 0) && b.r[i].conn != stall_conn)
                why("GET %d went on connection %ld, not the stalled one (%ld)", i, b.r[i].conn, stall_conn);
        if (processed(client, "stall-post") != 0) why("the stalled POST was processed");
    }
    finish(client, &b, "stall");
    batch_destroy(&b);
}

/* One request whose answer comes after a flood of frames or with an odd header block. */
static void one_case(const char *name, const char *path, const char *config, int domain, long code,
                     const char *message) {
    nc_client *client = new_client(g_port, config);
    if (!client) return;
    batch b;
    batch_init(&b, 1);
    send_one(client, &b, 0, "GET", path, 0, 0, NULL);
    if (batch_wait(&b, 1)) {
        expect(&b, 0, domain, code);
        if (message && !strstr(b.r[0].message, message))
            why("the message lacks \"%s\": %s", message, b.r[0].message);
    }
    finish(client, &b, name);
    batch_destroy(&b);
}

static void settings_flood(void) { one_case("flood", "/flood?n=5000&id=flood", NULL, T, 56, NULL); }
static void settings_some(void) { one_case("flood-900", "/flood?n=900&id=flood-900", NULL, 0, 0, NULL); }
static void headers_count(void) {
    /* 150 fields of 200 bytes: 30 KiB, a HEADERS and a CONTINUATION frame; over 100 lines. */
    one_case("headers-count", "/headers?n=150&size=200&id=headers-count", NULL, C, NC_CLIENT_HEADERS_TOO_LARGE,
             "max_header_count");
}
static void headers_bytes(void) {
    /* 90 fields of 1000 bytes: 90 KiB over 6 frames; under 100 lines, over 64 KiB. */
    one_case("headers-bytes", "/headers?n=90&size=1000&id=headers-bytes", NULL, C, NC_CLIENT_HEADERS_TOO_LARGE,
             "max_header_bytes");
}
static void headers_continuations(void) {
    /* 90 fields of 100 bytes (8,648 bytes of HPACK) cut into 500-byte frames: 17
     * CONTINUATION frames, over nghttp2's 8; under our caps. */
    one_case("headers-continuations", "/headers?n=90&size=100&frame=500&id=headers-continuations", NULL, C,
             NC_CLIENT_HEADERS_TOO_LARGE, "CONTINUATION");
}
static void headers_8_continuations(void) {
    /* The same in 1000-byte frames: 8 CONTINUATION frames, nghttp2's most. */
    one_case("headers-8-continuations", "/headers?n=90&size=100&frame=1000&id=headers-8-continuations", NULL, 0, 0,
             NULL);
}
static void headers_huge(void) {
    /* 14 fields of 10,000 bytes: 140 KiB in 16 KiB frames, over libcurl's 128 KiB for a
     * block, under caps raised to 1 MiB. */
    one_case("headers-huge", "/headers?n=14&size=10000&id=headers-huge",
             "\"limits\":{\"max_header_count\":1000,\"max_header_bytes\":1048576}", C,
             NC_CLIENT_HEADERS_TOO_LARGE, "128 KiB");
}
static void headers_raised(void) {
    /* The same block under raised caps is received whole. */
    one_case("headers-raised", "/headers?n=150&size=200&id=headers-raised",
             "\"limits\":{\"max_header_count\":1000,\"max_header_bytes\":1048576}", 0, 0, NULL);
}
static void server_push(void) { one_case("push", "/push?id=push", NULL, T, 52, NULL); }

/* SETTINGS_MAX_CONCURRENT_STREAMS 1 and 50 requests at once. */
static void max_streams_1(void) {
    enum { N = 50 };
    /* A stream sent before the server's SETTINGS arrived may be refused (REFUSED_STREAM),
     * and libcurl resends it on a new connection, at most 5 times: then TRANSPORT 56
     * "Connection died, tried 5 times". The retry policy sends such a GET again. */
    nc_client *client = new_client(g_mcs1, "\"retry\":{\"backoff\":\"immediate\",\"max_attempts\":10}");
    if (!client) return;
    batch b;
    batch_init(&b, N);
    char path[128];
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "/ok?id=mcs1-%d&hold=5", i);
        send_one(client, &b, i, "GET", path, 0, 0, NULL);
    }
    if (batch_wait(&b, N)) {
        for (int i = 0; i < N; i++) expect(&b, i, 0, 0);
        json_t *data = get_data(client, "/counts?prefix=mcs1-");
        json_t *counts = json_object_get(data, "counts");
        for (int i = 0; i < N; i++) {
            snprintf(path, sizeof path, "mcs1-%d", i);
            long n = (long)json_integer_value(json_object_get(counts, path));
            if (n != 1) why("%s processed %ld times, want 1", path, n);
        }
        long max_open = (long)json_integer_value(json_object_get(json_object_get(data, "stats"), "max_open"));
        if (max_open != 1) why("the server saw %ld streams open at once on a connection, want 1", max_open);
        g_note_refused = (long)json_integer_value(json_object_get(json_object_get(data, "stats"), "refused"));
        /* Refused streams were all sent before libcurl had read the SETTINGS. */
        long late = (long)json_integer_value(json_object_get(json_object_get(data, "stats"), "refused_after_ack"));
        if (late) why("%ld streams were opened over the limit after libcurl acknowledged it", late);
        json_decref(data);
    }
    finish(client, &b, "mcs1");
    batch_destroy(&b);
}

/* The connection dies (TCP reset, or closed without close_notify) with 100 streams in flight. */
static void die_case(const char *name, int N, const char *mode, const char *method, size_t body, const char *retry,
                     int want_ok, int process) {
    nc_client *client = new_client(g_port, retry);
    if (!client) return;
    batch b;
    batch_init(&b, N);
    char path[256];
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "/die?tag=%s&n=%d&mode=%s&process=%d&id=%s-%d", name, N, mode, process, name, i);
        send_one(client, &b, i, method, path, body, 0, NULL);
    }
    if (batch_wait(&b, N)) {
        json_t *data = get_data(client, "/counts?prefix=die");
        json_t *counts = json_object_get(data, "counts");
        int ok = 0;
        for (int i = 0; i < N; i++) {
            snprintf(path, sizeof path, "%s-%d", name, i);
            long n = (long)json_integer_value(json_object_get(counts, path));
            if (!b.r[i].domain) {
                ok++;
                if (n != 1) why("%s succeeded, processed %ld times (want 1)", path, n);
            } else {
                if (n != process) why("%s failed, processed %ld times (want %d)", path, n, process);
                if (!b.r[i].retryable) why("%s failed not retryable: %s", path, b.r[i].message);
                /* A stream cut off: 18 ("not closed cleanly before end of the underlying
                 * stream"); the transfer that met the reset: 56 reading, 55 sending, or
                 * 65 when libcurl then wanted to resend its body (refused, ncbody.h). */
                long c = b.r[i].code;
                if (b.r[i].domain != T || (c != 55 && c != 56 && (!body || (c != 18 && c != 65))))
                    why("%s: got %d %ld, want TRANSPORT %s: %s", path, b.r[i].domain, c,
                        body ? "18, 55, 56 or 65" : "55 or 56", b.r[i].message);
            }
        }
        if (ok != want_ok) why("%d succeeded, want %d", ok, want_ok);
        json_decref(data);
    }
    finish(client, &b, name);
    batch_destroy(&b);
}

static void die_rst_get(void) { die_case("die-rst-get", 100, "rst", "GET", 0, RETRY, 100, 0); }
static void die_fin_get(void) { die_case("die-fin-get", 100, "fin", "GET", 0, RETRY, 100, 0); }
static void die_rst_post(void) { die_case("die-rst-post", 100, "rst", "POST", 100, RETRY, 0, 0); }
static void die_rst_post_acted(void) { die_case("die-rst-post-acted", 100, "rst", "POST", 100, RETRY, 0, 1); }
/* A POST without a body goes on a connection of its own (CURLOPT_FRESH_CONNECT, so
 * that libcurl cannot resend it by itself): 8 at once, max_connections_per_host. */
static void die_rst_post_empty(void) { die_case("die-rst-post-empty", 8, "rst", "POST", 0, RETRY, 0, 1); }

/* ---- the table ------------------------------------------------------------------------- */

static const struct {
    const char *name;
    const char *expected;
    void (*run)(void);
} CASES[] = {
    {"GOAWAY, 10 GETs in flight, 4 answered, retry on", "all 10 succeed, each processed once; the 6 above the last id on a new connection", goaway_get},
    {"GOAWAY, 10 GETs in flight, 4 answered, no retry policy", "each succeeds processed once, or fails TRANSPORT 16 retryable, never processed", goaway_get_once},
    {"GOAWAY, 10 POSTs in flight, 4 answered, retry on", "4 succeed; 6 TRANSPORT 65 (one 16) retryable, not retried, never processed", goaway_post},
    {"GOAWAY, 10 POSTs with Idempotency-Key, retry on", "all 10 succeed, each processed once", goaway_post_key},
    {"RST_STREAM REFUSED_STREAM, GET", "success, processed once (sent again on a new connection)", rst_refused_get},
    {"RST_STREAM REFUSED_STREAM, POST", "TRANSPORT 65 retryable, never processed", rst_refused_post},
    {"RST_STREAM INTERNAL_ERROR", "TRANSPORT 92 retryable", rst_internal},
    {"RST_STREAM CANCEL", "TRANSPORT 92 retryable", rst_cancel},
    {"RST_STREAM ENHANCE_YOUR_CALM", "TRANSPORT 92 retryable", rst_calm},
    {"stalled flow-control window (POST of 200 kB)", "TRANSPORT 28 idle; 5 GETs on the same connection succeed meanwhile", stalled_window},
    {"SETTINGS flood (5,000 frames at once)", "TRANSPORT 56", settings_flood},
    {"SETTINGS, 900 frames at once", "success", settings_some},
    {"header block over max_header_count in CONTINUATION frames", "CLIENT HEADERS_TOO_LARGE", headers_count},
    {"header block over max_header_bytes in CONTINUATION frames", "CLIENT HEADERS_TOO_LARGE", headers_bytes},
    {"header block in 17 CONTINUATION frames (nghttp2 takes 8)", "CLIENT HEADERS_TOO_LARGE", headers_continuations},
    {"header block in 8 CONTINUATION frames", "success", headers_8_continuations},
    {"header block of 140 KiB (libcurl takes 128 KiB), caps raised to 1 MiB", "CLIENT HEADERS_TOO_LARGE", headers_huge},
    {"header block over the default caps, caps raised", "success", headers_raised},
    {"server push (PUSH_PROMISE, push disabled)", "TRANSPORT 52 retryable", server_push},
    {"SETTINGS_MAX_CONCURRENT_STREAMS 1, 50 GETs, retry on", "all succeed, each processed once, never 2 streams open", max_streams_1},
    {"connection reset with 100 GETs in flight, retry on", "all succeed, each processed once", die_rst_get},
    {"connection closed with 100 GETs in flight, retry on", "all succeed, each processed once", die_fin_get},
    {"connection reset with 100 POSTs in flight, retry on", "each fails once, retryable, never processed", die_rst_post},
    {"connection reset with 100 POSTs in flight, all acted on, retry on", "each fails once, retryable, processed once", die_rst_post_acted},
    {"8 connections reset, each with a POST without a body, acted on, retry on", "each fails once, retryable, processed once", die_rst_post_empty},
};

int main(int argc, char **argv) {
    const char *server = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--server") && i + 1 < argc) server = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s --server FILE [--only NAME]\n", argv[0]);
            return 2;
        }
    }
    json_error_t jerr;
    json_t *line = server ? json_load_file(server, 0, &jerr) : NULL;
    const char *ca = json_string_value(json_object_get(line, "ca"));
    g_port = (long)json_integer_value(json_object_get(json_object_get(line, "ports"), "main"));
    g_mcs1 = (long)json_integer_value(json_object_get(json_object_get(line, "ports"), "mcs1"));
    if (!ca || !g_port || !g_mcs1) {
        fprintf(stderr, "h2_driver: no server line in %s\n", server ? server : "(none: --server FILE)");
        return 2;
    }
    snprintf(g_ca, sizeof g_ca, "%s", ca);
    json_decref(line);
    if (getenv("H2_WAIT_S")) g_wait_s = atoi(getenv("H2_WAIT_S"));
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        if (only && !strstr(CASES[i].name, only)) continue;
        g_why[0] = 0;
        struct timespec a, z;
        clock_gettime(CLOCK_MONOTONIC, &a);
        CASES[i].run();
        clock_gettime(CLOCK_MONOTONIC, &z);
        double ms = (z.tv_sec - a.tv_sec) * 1e3 + (z.tv_nsec - a.tv_nsec) / 1e6;
        if (g_why[0]) {
            g_failed++;
            printf("FAIL - %s: %s\n", CASES[i].name, g_why);
        } else {
            g_passed++;
            printf("ok   - %s: %s (%.0f ms)", CASES[i].name, CASES[i].expected, ms);
            if (g_note_refused >= 0) printf(" [the server refused %ld streams over its limit]", g_note_refused);
            printf("\n");
            g_note_refused = -1;
        }
        fflush(stdout);
    }
    printf("h2 fault: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
