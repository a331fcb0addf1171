/*
 * soak.c — `make soak` (docs/RELIABILITY.md): memory over many requests with each
 * feature that keeps state per request, per key or per client switched on, one
 * phase per feature, so that what grows is named.
 *
 *   soak [N [PHASE]]     N requests a phase (default 200000; rounded up to whole
 *                        windows of 16, at least 160); PHASE: one phase's name
 *
 * A phase that runs longer than 10 minutes ends the run (exit 3): a hang.
 *
 * A leak checker sees only memory nothing points to. A table that keeps an entry
 * for every group name, coalescing key, refreshed request or cached answer still
 * points to it, and grows for the life of the client; only a long run shows it.
 * Each phase makes one client, sends N requests with WINDOW in flight, each with a
 * key of its own where the feature has keys, and reads the resident set
 * (/proc/self/statm) after the first 10 % and at the end: it fails when the set grew
 * by more than 1 MiB between the two. Every request (or batch) has its own callback
 * counter, which must be exactly 1 after nc_client_free(); every phase also checks
 * what the feature must have done (cancelled, shared, retried, refreshed...).
 *
 * The server runs in this process (loopback.h) and answers by path:
 *   /ok…              200 envelope
 *   /busy             503 with Retry-After: 0
 *   /unavailable      503 (no Retry-After: the policy's own wait)
 *   /users/<id>       200, or 500 when id is a multiple of 8
 *   /auth             401 unless "Authorization: Bearer t<k>" with k >= the accepted
 *                     generation, which the refresh phase moves on
 *   /cache/<n>        200 with Cache-Control: max-age=600
 *   /cookie/<n>       200 with Set-Cookie: c<n>=1
 * and counts the requests it answered (the coalescing phase reads it).
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>

#include <jansson.h>
#include <signal.h>

#include "loopback.h"
#include "netcore.h"

#define WINDOW 16
#define BATCH  8

/* ---- the server ---- */

static atomic_long g_hits;     /* requests answered */
static atomic_long g_accepted; /* the oldest token generation /auth accepts */

static size_t reply(char *out, size_t cap, const char *status, const char *extra, const char *body) {
    int n = snprintf(out, cap,
                     "HTTP/1.1 %s\r\nContent-Type: application/json\r\n%sContent-Length: %zu\r\n\r\n%s",
                     status, extra, strlen(body), body);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

static size_t respond(const char *head, char *out, size_t cap) {
    static const char ok[] = "{\"code\":0,\"msg\":\"ok\",\"data\":{\"soak\":1}}";
    atomic_fetch_add(&g_hits, 1);
    const char *path = strchr(head, ' ');
    if (!path) return 0;
    path++;
    char extra[96] = "";
    if (!strncmp(path, "/busy", 5))
        return reply(out, cap, "503 Service Unavailable", "Retry-After: 0\r\n",
                     "{\"code\":503,\"msg\":\"busy\",\"data\":null}");
    if (!strncmp(path, "/unavailable", 12))
        return reply(out, cap, "503 Service Unavailable", "",
                     "{\"code\":503,\"msg\":\"busy\",\"data\":null}");
    if (!strncmp(path, "/users/", 7) && atol(path + 7) % 8 == 0)
        return reply(out, cap, "500 Internal Server Error", "",
                     "{\"code\":500,\"msg\":\"down\",\"data\":null}");
    if (!strncmp(path, "/auth", 5)) {
        const char *a = strcasestr(head, "\r\nAuthorization: Bearer t");
        if (!a || atol(a + strlen("\r\nAuthorization: Bearer t")) < atomic_load(&g_accepted))
            return reply(out, cap, "401 Unauthorized", "",
                         "{\"code\":401,\"msg\":\"expired\",\"data\":null}");
    }
    if (!strncmp(path, "/cache/", 7)) snprintf(extra, sizeof extra, "Cache-Control: max-age=600\r\n");
    if (!strncmp(path, "/cookie/", 8))
        snprintf(extra, sizeof extra, "Set-Cookie: c%ld=1; Path=/\r\n", atol(path + 8));
    return reply(out, cap, "200 OK", extra, ok);
}

/* ---- the client side ---- */

static unsigned char *g_calls; /* callbacks per request (or batch) */
static atomic_long g_done, g_ok, g_cancelled, g_http, g_refresh_failed, g_other;
static atomic_long g_events, g_logs, g_handled, g_refreshes; /* hooks' calls */
static char g_first_other[512];

static void count_error(const nc_error *err) {
    if (!err) atomic_fetch_add(&g_ok, 1);
    else if (nc_error_domain(err) == NC_DOMAIN_CLIENT && nc_error_code(err) == NC_CLIENT_CANCELLED)
        atomic_fetch_add(&g_cancelled, 1);
    else if (nc_error_domain(err) == NC_DOMAIN_HTTP) atomic_fetch_add(&g_http, 1);
    else if (nc_error_domain(err) == NC_DOMAIN_CLIENT &&
             nc_error_code(err) == NC_CLIENT_AUTH_REFRESH_FAILED)
        atomic_fetch_add(&g_refresh_failed, 1);
    else if (atomic_fetch_add(&g_other, 1) == 0)
        snprintf(g_first_other, sizeof g_first_other, "%s %lld: %s", nc_error_domain_name(err),
                 (long long)nc_error_code(err), nc_error_message(err));
}

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    size_t i = (size_t)(uintptr_t)userdata;
    if (g_calls[i] < 255) __atomic_store_n(&g_calls[i], g_calls[i] + 1, __ATOMIC_RELEASE);
    count_error(err);
    atomic_fetch_add(&g_done, 1);
}

static void on_batch(const nc_batch *b, void *userdata) {
    size_t i = (size_t)(uintptr_t)userdata;
    if (g_calls[i] < 255) __atomic_store_n(&g_calls[i], g_calls[i] + 1, __ATOMIC_RELEASE);
    for (size_t k = 0; k < nc_batch_count(b); k++) count_error(nc_batch_error(b, k));
    atomic_fetch_add(&g_done, 1);
}

static void on_event(const char *json, size_t len, void *userdata) {
    (void)json, (void)len;
    atomic_fetch_add((atomic_long *)userdata, 1);
}

static void on_failure(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp, (void)err, (void)userdata;
    atomic_fetch_add(&g_handled, 1);
}

static nc_status adapter(nc_outgoing *out, void *userdata) {
    (void)userdata;
    return nc_outgoing_set_header(out, "X-Soak", "1");
}

/* Answers at once: the refresh failed. */
static void failing_refresher(nc_client *client, const nc_error *error, void *userdata) {
    (void)error, (void)userdata;
    atomic_fetch_add(&g_refreshes, 1);
    nc_client_refresh_done(client, NULL, "the refresh was refused");
}

/* Answers at once with the generation the server accepts now. */
static void refresher(nc_client *client, const nc_error *error, void *userdata) {
    (void)error, (void)userdata;
    char token[32];
    snprintf(token, sizeof token, "t%ld", atomic_load(&g_accepted));
    atomic_fetch_add(&g_refreshes, 1);
    nc_client_refresh_done(client, token, NULL);
}

static nc_client *new_client(int port, const char *features) {
    char config[1024];
    /* Forced online unless the phase says otherwise: no route reading on a test box. */
    const char *online =
        strstr(features, "\"reachability\"") ? "" : "\"reachability\":{\"mode\":\"online\"},";
    snprintf(config, sizeof config,
             "{\"base_url\":\"http://127.0.0.1:%d\",%s\"limits\":{\"max_connections_per_host\":%d}%s%s}",
             port, online, WINDOW, *features ? "," : "", features);
    return loopback_client(config);
}

static void must(nc_status s, const char *what) {
    if (s != NC_OK) {
        fprintf(stderr, "%s: %s\n", what, nc_status_str(s));
        exit(1);
    }
}

/* Sends a GET of `path` with completion slot `i`; returns its task. */
static nc_task *send_get(nc_client *c, const char *path, const char *group, long i) {
    nc_request *r = NULL;
    nc_task *t = NULL;
    must(nc_request_new("GET", path, &r), "nc_request_new");
    if (group) must(nc_request_set_group(r, group), "nc_request_set_group");
    must(nc_client_send(c, r, on_done, (void *)(uintptr_t)i, &t), "nc_client_send");
    nc_request_free(r);
    return t;
}

/* ---- the phases ---- */

typedef struct {
    const char *name;
    const char *config; /* members added to the client's configuration */
    long in_flight;     /* completions running at once */
    void (*setup)(nc_client *c);
    void (*send)(nc_client *c, long i);          /* sends completion slot i */
    const char *(*check)(long n);                /* NULL when the phase did what it must */
    const char *(*finish)(nc_client *c, long n); /* the same, on the client before it is freed */
} phase;

static char g_why[256];

/* groups: every request in a group of its own; every second group is cancelled. */
static void groups_send(nc_client *c, long i) {
    char group[32], path[32];
    snprintf(group, sizeof group, "g%ld", i);
    snprintf(path, sizeof path, "/ok?i=%ld", i);
    nc_task_free(send_get(c, path, group, i));
    size_t cancelled = 0;
    if (i % 2) must(nc_client_cancel_group(c, group, &cancelled), "nc_client_cancel_group");
}
static const char *groups_check(long n) {
    if (atomic_load(&g_ok) + atomic_load(&g_cancelled) != n || atomic_load(&g_cancelled) == 0) {
        snprintf(g_why, sizeof g_why, "%ld ok + %ld cancelled != %ld", atomic_load(&g_ok),
                 atomic_load(&g_cancelled), n);
        return g_why;
    }
    return NULL;
}

/* queue: completions queued for nc_client_dispatch on this thread; every fourth
   request is answered 503 twice (two attempts), every second of the others is in
   a group of its own that is cancelled. */
static void queue_send(nc_client *c, long i) {
    if (i % 4 == 0) {
        nc_task_free(send_get(c, "/busy", NULL, i));
        return;
    }
    groups_send(c, i);
}
static const char *queue_check(long n) {
    long busy = (n + 3) / 4;
    if (atomic_load(&g_http) != busy || atomic_load(&g_ok) + atomic_load(&g_cancelled) != n - busy ||
        atomic_load(&g_cancelled) == 0) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld cancelled, %ld HTTP errors of %ld",
                 atomic_load(&g_ok), atomic_load(&g_cancelled), atomic_load(&g_http), n);
        return g_why;
    }
    return NULL;
}

/* sync: nc_client_send_sync on this thread (a lane of its own, not the transfer
   thread): every fourth request answered 503 twice (two attempts), the others to
   /auth, whose token expires every 2,000 requests and is refreshed (the refresher
   answers at once); an event handler and signing on. */
static void sync_setup(nc_client *c) {
    must(nc_client_set_token_refresher(c, refresher, NULL), "nc_client_set_token_refresher");
    must(nc_client_set_event_handler(c, on_event, &g_events), "nc_client_set_event_handler");
}
static void sync_send(nc_client *c, long i) {
    nc_request *r = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (i > 0 && i % 2000 == 0) atomic_fetch_add(&g_accepted, 1);
    must(nc_request_new("GET", i % 4 == 0 ? "/busy" : "/auth", &r), "nc_request_new");
    nc_status st = nc_client_send_sync(c, r, &resp, &err);
    if (st != NC_OK && st != NC_ERR_FAILED) must(st, "nc_client_send_sync");
    on_done(resp, err, (void *)(uintptr_t)i);
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(r);
}
static const char *sync_check(long n) {
    long busy = (n + 3) / 4;
    if (atomic_load(&g_http) != busy || atomic_load(&g_ok) != n - busy ||
        atomic_load(&g_events) < 3 * n || (n > 2000 && atomic_load(&g_refreshes) == 0)) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld HTTP errors of %ld, %ld events, %ld refreshes",
                 atomic_load(&g_ok), atomic_load(&g_http), n, atomic_load(&g_events),
                 atomic_load(&g_refreshes));
        return g_why;
    }
    return NULL;
}

/* coalesce: pairs of identical GETs, a new URL for each pair; every fourth caller
   cancels its own share. */
static void coalesce_send(nc_client *c, long i) {
    char path[32];
    snprintf(path, sizeof path, "/ok?k=%ld", i / 2);
    nc_task *t = send_get(c, path, NULL, i);
    if (i % 4 == 1) nc_task_cancel(t);
    nc_task_free(t);
}
static const char *coalesce_check(long n) {
    /* Nearly every pair shares one transfer (n / 2 answers); at least half must. */
    if (atomic_load(&g_ok) + atomic_load(&g_cancelled) != n || atomic_load(&g_hits) > 3 * n / 4) {
        snprintf(g_why, sizeof g_why, "%ld ok + %ld cancelled of %ld; the server answered %ld",
                 atomic_load(&g_ok), atomic_load(&g_cancelled), n, atomic_load(&g_hits));
        return g_why;
    }
    return NULL;
}

/* retry: every fourth request is answered 503 twice (two attempts, no wait). */
static void retry_send(nc_client *c, long i) {
    nc_task_free(send_get(c, i % 4 == 0 ? "/busy" : "/ok", NULL, i));
}
static const char *retry_check(long n) {
    long busy = (n + 3) / 4;
    if (atomic_load(&g_http) != busy || atomic_load(&g_ok) != n - busy ||
        atomic_load(&g_hits) != n + busy) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld HTTP errors, %ld answered", atomic_load(&g_ok),
                 atomic_load(&g_http), atomic_load(&g_hits));
        return g_why;
    }
    return NULL;
}

/* hooks: endpoint calls with common params, a token (changed every 1,000), an
   adapter, signing, an event handler, a DEBUG log and the error handler. */
static void hooks_setup(nc_client *c) {
    must(nc_client_set_event_handler(c, on_event, &g_events), "nc_client_set_event_handler");
    must(nc_client_set_log_handler(c, NC_LOG_DEBUG, on_event, &g_logs), "nc_client_set_log_handler");
    must(nc_client_set_error_handler(c, on_failure, NULL), "nc_client_set_error_handler");
    must(nc_client_add_adapter(c, adapter, NULL), "nc_client_add_adapter");
}
static void hooks_send(nc_client *c, long i) {
    char params[64];
    if (i % 1000 == 0) {
        char token[32];
        snprintf(token, sizeof token, "tok%ld", i);
        must(nc_client_set_token(c, token), "nc_client_set_token");
    }
    int len = snprintf(params, sizeof params, "{\"id\":%ld,\"q\":\"x\"}", i);
    must(nc_client_call(c, "user.get", params, (size_t)len, on_done, (void *)(uintptr_t)i, NULL),
         "nc_client_call");
}
static const char *hooks_check(long n) {
    long failing = (n + 7) / 8;
    if (atomic_load(&g_http) != failing || atomic_load(&g_handled) != failing ||
        atomic_load(&g_ok) != n - failing || atomic_load(&g_events) < 3 * n ||
        atomic_load(&g_logs) < 2 * n) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld HTTP errors, %ld handled, %ld events, %ld log lines",
                 atomic_load(&g_ok), atomic_load(&g_http), atomic_load(&g_handled),
                 atomic_load(&g_events), atomic_load(&g_logs));
        return g_why;
    }
    return NULL;
}

/* refresh: the server stops accepting the current token every 2,000 requests; the
   refresher answers at once and the expired requests are replayed. */
static void refresh_setup(nc_client *c) {
    must(nc_client_set_token_refresher(c, refresher, NULL), "nc_client_set_token_refresher");
}
static void refresh_send(nc_client *c, long i) {
    if (i > 0 && i % 2000 == 0) atomic_fetch_add(&g_accepted, 1);
    nc_task_free(send_get(c, "/auth", NULL, i));
}
static const char *refresh_check(long n) {
    if (atomic_load(&g_ok) != n || atomic_load(&g_refreshes) == 0) {
        snprintf(g_why, sizeof g_why, "%ld ok of %ld, %ld refreshes", atomic_load(&g_ok), n,
                 atomic_load(&g_refreshes));
        return g_why;
    }
    return NULL;
}

/* batches: BATCH members each, fail-fast and settle in turn; in every second batch
   one member fails (503, no retry). Completion slot i is batch i. */
static void batches_send(nc_client *c, long i) {
    nc_batch *b = NULL;
    must(nc_batch_new(c, i % 4 < 2 ? NC_BATCH_FAIL_FAST : NC_BATCH_SETTLE, &b), "nc_batch_new");
    for (int k = 0; k < BATCH; k++) {
        nc_request *r = NULL;
        char path[48];
        snprintf(path, sizeof path, (i % 2 && k == 3) ? "/busy" : "/ok?b=%ld&m=%d", i, k);
        must(nc_request_new("GET", path, &r), "nc_request_new");
        must(nc_batch_add(b, r), "nc_batch_add");
        nc_request_free(r);
    }
    must(nc_batch_send(b, on_batch, (void *)(uintptr_t)i, NULL), "nc_batch_send");
    nc_batch_free(b);
}
static const char *batches_check(long n) {
    long members = n * BATCH;
    if (atomic_load(&g_ok) + atomic_load(&g_cancelled) + atomic_load(&g_http) != members ||
        atomic_load(&g_http) != n / 2) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld cancelled, %ld HTTP errors of %ld members",
                 atomic_load(&g_ok), atomic_load(&g_cancelled), atomic_load(&g_http), members);
        return g_why;
    }
    return NULL;
}

/* cache: a memory cache of 256 KiB, no coalescing, NC_CACHE_ELSE_NETWORK; every
   even request asks for a new URL, every odd one (after the first two windows)
   for the URL asked two windows before, which has been answered and stored by
   then. */
static atomic_long g_cache_unstored; /* odd requests sent before their URL's answer came */
static void cache_send(nc_client *c, long i) {
    char path[32];
    nc_request *r = NULL;
    long src = (i % 2 && i >= 2 * WINDOW) ? i - 1 - 2 * WINDOW : i;
    /* The answer is stored before its callback runs: an odd request whose URL's
       callback has not run yet may go to the server (a request that stalls while
       32 others pass it, on a loaded machine); one whose callback ran may not. */
    if (src != i && __atomic_load_n(&g_calls[src], __ATOMIC_ACQUIRE) == 0)
        atomic_fetch_add(&g_cache_unstored, 1);
    snprintf(path, sizeof path, "/cache/%ld", src);
    must(nc_request_new("GET", path, &r), "nc_request_new");
    must(nc_request_set_cache_policy(r, NC_CACHE_ELSE_NETWORK), "nc_request_set_cache_policy");
    must(nc_client_send(c, r, on_done, (void *)(uintptr_t)i, NULL), "nc_client_send");
    nc_request_free(r);
}
static const char *cache_check(long n) {
    /* Answered: the even ones and the odd ones of the first two windows; an odd
       one whose URL's answer had not come when it was sent may be too, no other. */
    long want = n / 2 + WINDOW, most = want + atomic_load(&g_cache_unstored);
    if (atomic_load(&g_ok) != n || atomic_load(&g_hits) < want || atomic_load(&g_hits) > most) {
        snprintf(g_why, sizeof g_why,
                 "%ld ok of %ld; the server answered %ld, not %ld to %ld (%ld sent before their "
                 "URL's answer came)",
                 atomic_load(&g_ok), n, atomic_load(&g_hits), want, most,
                 atomic_load(&g_cache_unstored));
        return g_why;
    }
    return NULL;
}
/* ... and the cache says it answered the rest. */
static const char *cache_finish(nc_client *c, long n) {
    char stats[512];
    size_t len = 0;
    must(nc_client_cache_stats_json(c, stats, sizeof stats, &len), "nc_client_cache_stats_json");
    json_t *j = json_loads(stats, 0, NULL);
    long hits = (long)json_integer_value(json_object_get(j, "hits"));
    json_decref(j);
    if (hits + atomic_load(&g_hits) != n) {
        snprintf(g_why, sizeof g_why, "the cache answered %ld and the server %ld of %ld", hits,
                 atomic_load(&g_hits), n);
        return g_why;
    }
    return NULL;
}

/* refresh-fail: as refresh, but every refresh fails; past the rate limit an expired
   request completes with its own 401. */
static void refresh_fail_setup(nc_client *c) {
    must(nc_client_set_token_refresher(c, failing_refresher, NULL), "nc_client_set_token_refresher");
}
static const char *refresh_fail_check(long n) {
    if (atomic_load(&g_ok) + atomic_load(&g_refresh_failed) + atomic_load(&g_http) != n ||
        atomic_load(&g_refresh_failed) == 0 || atomic_load(&g_ok) == 0) {
        snprintf(g_why, sizeof g_why, "%ld ok, %ld refresh failed, %ld HTTP errors of %ld",
                 atomic_load(&g_ok), atomic_load(&g_refresh_failed), atomic_load(&g_http), n);
        return g_why;
    }
    return NULL;
}

/* Cancels group "w" once the WINDOW requests sent so far are all waiting (their
   first attempt answered, or nothing to answer): the end of each window. */
static void cancel_window(nc_client *c, long i, long answered_before) {
    if (i % WINDOW != WINDOW - 1) return;
    while (atomic_load(&g_hits) < answered_before) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
    struct timespec settle = {0, 200000}; /* the 503s read and their waits scheduled */
    nanosleep(&settle, NULL);
    size_t cancelled = 0;
    must(nc_client_cancel_group(c, "w", &cancelled), "nc_client_cancel_group");
}

/* backoff: each request is answered 503 and waits 30 s before its retry; every
   WINDOW of them is cancelled by group while they wait. */
static void backoff_send(nc_client *c, long i) {
    nc_task_free(send_get(c, "/unavailable", "w", i));
    cancel_window(c, i, i + 1);
}
/* Every one of the n requests ended cancelled, after the server answered `answered`. */
static const char *all_cancelled(long n, long answered) {
    if (atomic_load(&g_cancelled) != n || atomic_load(&g_hits) != answered) {
        snprintf(g_why, sizeof g_why, "%ld cancelled of %ld; the server answered %ld, not %ld",
                 atomic_load(&g_cancelled), n, atomic_load(&g_hits), answered);
        return g_why;
    }
    return NULL;
}
static const char *backoff_check(long n) {
    return all_cancelled(n, n); /* one attempt each */
}

/* offline: forced offline with a 10-minute wait for the network; every WINDOW of
   requests is cancelled by group while it waits, except, when `sometimes_online`,
   every fourth window, which a switch to online sends. */
static void offline_step(nc_client *c, long i, int sometimes_online) {
    long window = i / WINDOW;
    /* Back to offline after a window that went online (the configuration's mode
       is offline). */
    if (sometimes_online && i % WINDOW == 0 && window % 4 == 0 && window > 0)
        must(nc_client_set_reachability(c, NC_REACH_OFFLINE), "nc_client_set_reachability");
    nc_task_free(send_get(c, "/ok", "w", i));
    if (i % WINDOW != WINDOW - 1) return;
    if (sometimes_online && window % 4 == 3) {
        /* Sent now; the switch back waits until they have been (a waiting request
           asks again when it is woken, and would see offline again). */
        must(nc_client_set_reachability(c, NC_REACH_ONLINE), "nc_client_set_reachability");
        wait_below(&g_done, i + 1, 1);
        return;
    }
    cancel_window(c, i, 0);
}
static void offline_send(nc_client *c, long i) {
    offline_step(c, i, 1);
}
/* offline-cancel: every window cancelled, none ever sent. */
static void offline_cancel_send(nc_client *c, long i) {
    offline_step(c, i, 0);
}
static const char *offline_cancel_check(long n) {
    return all_cancelled(n, 0);
}
static const char *offline_check(long n) {
    if (atomic_load(&g_ok) + atomic_load(&g_cancelled) != n ||
        atomic_load(&g_ok) != atomic_load(&g_hits) || atomic_load(&g_ok) == 0) {
        snprintf(g_why, sizeof g_why, "%ld ok + %ld cancelled of %ld; the server answered %ld",
                 atomic_load(&g_ok), atomic_load(&g_cancelled), n, atomic_load(&g_hits));
        return g_why;
    }
    return NULL;
}

/* cookies: the jar on; every answer sets a cookie of a new name. */
static void cookies_send(nc_client *c, long i) {
    char path[32];
    snprintf(path, sizeof path, "/cookie/%ld", i);
    nc_task_free(send_get(c, path, NULL, i));
}
/* ... and the jar keeps one domain's 180 (its bounds: docs/cookies.md). */
static const char *cookies_finish(nc_client *c, long n) {
    char *list = NULL;
    must(nc_client_cookies_json(c, &list), "nc_client_cookies_json");
    json_t *j = json_loads(list, 0, NULL);
    size_t count = json_array_size(j);
    json_decref(j);
    nc_string_free(list);
    if (count != (n < 180 ? (size_t)n : 180)) {
        snprintf(g_why, sizeof g_why, "the jar lists %zu cookies", count);
        return g_why;
    }
    return NULL;
}
static const char *all_ok(long n) {
    if (atomic_load(&g_ok) != n) {
        snprintf(g_why, sizeof g_why, "%ld ok of %ld", atomic_load(&g_ok), n);
        return g_why;
    }
    return NULL;
}

static const phase PHASES[] = {
    {"groups", "\"coalesce\":false", WINDOW, NULL, groups_send, groups_check, NULL},
    {"queue",
     "\"callbacks\":\"queue\",\"coalesce\":false,\"retry\":{\"max_attempts\":2,\"backoff\":"
     "\"immediate\"}",
     WINDOW, NULL, queue_send, queue_check, NULL},
    {"sync",
     "\"coalesce\":false,\"retry\":{\"max_attempts\":2,\"backoff\":\"immediate\"},\"auth\":{\"token\":"
     "\"t0\","
     "\"max_refreshes_per_minute\":1000},\"signing\":{\"secret\":\"s3cret\"}",
     1, sync_setup, sync_send, sync_check, NULL},
    {"coalesce", "\"coalesce\":true", WINDOW, NULL, coalesce_send, coalesce_check, NULL},
    {"retry", "\"coalesce\":false,\"retry\":{\"max_attempts\":2,\"backoff\":\"immediate\"}", WINDOW,
     NULL, retry_send, retry_check, NULL},
    {"hooks",
     "\"endpoints\":{\"user.get\":{\"method\":\"GET\",\"path\":\"/users/{id}\"}},"
     "\"common_params\":{\"app\":\"soak\"},\"signing\":{\"secret\":\"s3cret\"}",
     WINDOW, hooks_setup, hooks_send, hooks_check, NULL},
    {"refresh", "\"coalesce\":false,\"auth\":{\"token\":\"t0\",\"max_refreshes_per_minute\":1000}",
     WINDOW, refresh_setup, refresh_send, refresh_check, NULL},
    {"refresh-fail", "\"coalesce\":false,\"auth\":{\"token\":\"t0\",\"max_refreshes_per_minute\":1000}",
     WINDOW, refresh_fail_setup, refresh_send, refresh_fail_check, NULL},
    {"backoff",
     "\"coalesce\":false,\"retry\":{\"max_attempts\":3,\"backoff\":\"constant\",\"initial_ms\":30000,"
     "\"max_delay_ms\":60000,\"jitter\":false}",
     WINDOW, NULL, backoff_send, backoff_check, NULL},
    {"offline",
     "\"coalesce\":false,\"reachability\":{\"mode\":\"offline\",\"wait_for_network_ms\":600000}", WINDOW,
     NULL, offline_send, offline_check, NULL},
    {"offline-cancel",
     "\"coalesce\":false,\"reachability\":{\"mode\":\"offline\",\"wait_for_network_ms\":600000}", WINDOW,
     NULL, offline_cancel_send, offline_cancel_check, NULL},
    {"batches", "", WINDOW / BATCH, NULL, batches_send, batches_check, NULL},
    {"cache", "\"coalesce\":false,\"cache\":{\"memory_bytes\":262144}", WINDOW, NULL, cache_send,
     cache_check, cache_finish},
    {"cookies", "\"cookies\":{\"enabled\":true}", WINDOW, NULL, cookies_send, all_ok, cookies_finish},
};

static void reset_counters(void) {
    atomic_store(&g_done, 0), atomic_store(&g_ok, 0), atomic_store(&g_cancelled, 0);
    atomic_store(&g_http, 0), atomic_store(&g_other, 0), atomic_store(&g_hits, 0);
    atomic_store(&g_cache_unstored, 0);
    atomic_store(&g_refresh_failed, 0);
    atomic_store(&g_events, 0), atomic_store(&g_logs, 0), atomic_store(&g_handled, 0);
    atomic_store(&g_refreshes, 0), atomic_store(&g_accepted, 0);
    g_first_other[0] = 0;
}

/* Waits until fewer than `limit` of the `sent` completions are outstanding; on a
   client in queue mode ("callbacks": "queue") the completions run here, inside
   nc_client_dispatch. */
static void settle(nc_client *c, int queue, long sent, long limit) {
    if (!queue) {
        wait_below(&g_done, sent, limit);
        return;
    }
    while (sent - atomic_load(&g_done) >= limit) {
        long before = atomic_load(&g_done);
        nc_client_dispatch(c); /* NC_OK whether or not anything was queued */
        if (atomic_load(&g_done) != before) continue;
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* The watchdog: a phase that has not ended after PHASE_SECONDS is a hang. */
#define PHASE_SECONDS 600
static const char *g_phase = "";
static void on_alarm(int sig) {
    (void)sig;
    static const char a[] = "soak: the phase ", b[] = " did not end within 600 s: a hang\n";
    ssize_t w = write(2, a, sizeof a - 1);
    w += write(2, g_phase, strlen(g_phase));
    w += write(2, b, sizeof b - 1);
    (void)w;
    _exit(3);
}

/* Runs one phase over n completions; returns 0 when everything held. */
static int run(const phase *p, int port, long n) {
    reset_counters();
    g_phase = p->name;
    alarm(PHASE_SECONDS);
    memset(g_calls, 0, (size_t)n);
    nc_client *c = new_client(port, p->config);
    if (p->setup) p->setup(c);
    double t0 = now_s();
    /* The first reading after about 10 %, at the start of a window: the backoff and
       offline phases' requests end only when their window is cancelled. */
    long rss_early = 0, mark = n / 10 - (n / 10) % WINDOW;
    if (mark <= 0) mark = 1;
    int queue = strstr(p->config, "\"queue\"") != NULL;
    for (long i = 0; i < n; i++) {
        settle(c, queue, i, p->in_flight);
        if (i == mark) {
            settle(c, queue, i, 1);
            rss_early = rss_kib();
        }
        p->send(c, i);
    }
    settle(c, queue, n, 1);
    long rss_end = rss_kib();
    const char *unfinished = p->finish ? p->finish(c, n) : NULL;
    nc_client_free(c);
    alarm(0);
    long wrong = 0;
    for (long i = 0; i < n; i++) wrong += g_calls[i] != 1;
    const char *why = unfinished ? unfinished : p->check(n);
    long growth = rss_end - rss_early;
    int failed = wrong || why || atomic_load(&g_other) || growth > 1024;
    printf("%-8s %ld in %5.1f s: RSS %ld KiB after %ld, %ld KiB at the end (%+ld KiB); callbacks != 1: "
           "%ld; "
           "%ld ok, %ld cancelled, %ld HTTP errors, %ld refresh failed, %ld other%s%s%s\n",
           p->name, n, now_s() - t0, rss_early, mark, rss_end, growth, wrong, atomic_load(&g_ok),
           atomic_load(&g_cancelled), atomic_load(&g_http), atomic_load(&g_refresh_failed),
           atomic_load(&g_other), failed ? " FAIL" : "", why ? ": " : "", why ? why : "");
    if (g_first_other[0]) printf("         first other error: %s\n", g_first_other);
    if (growth > 1024) printf("         the resident set grew by more than 1 MiB\n");
    return failed;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    /* Whole windows (the backoff and offline phases cancel a window at its end),
       at least ten of them (the first reading comes after one). */
    if (n < 10 * WINDOW) n = 10 * WINDOW;
    n += (WINDOW - n % WINDOW) % WINDOW;
    const char *only = argc > 2 ? argv[2] : NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line a phase, as it ends (CI logs, valgrind) */
    int port = loopback_start(respond);
    signal(SIGALRM, on_alarm);
    if (port < 0) return 2;
    g_calls = calloc((size_t)n, 1);
    if (!g_calls) return 2;
    int failures = 0, ran = 0;
    for (size_t k = 0; k < sizeof PHASES / sizeof PHASES[0]; k++) {
        if (only && strcmp(only, PHASES[k].name)) continue;
        long count = PHASES[k].send == batches_send ? n / BATCH : n;
        failures += run(&PHASES[k], port, count);
        ran++;
    }
    free(g_calls);
    if (!ran) fprintf(stderr, "no phase named %s\n", only);
    return ran && !failures ? 0 : 1;
}
