/* wan.c — the C peers of `make bench-wan` (bench/wan.sh, bench/README.md "WAN").
 *
 *   wan --peer nc|raw-pipewait|raw-nopipewait --workload burst|cold1|screens|session|steady
 *       --url https://127.0.0.1:PORT/tiny.json --ca CA.pem [-n N] [-c C] [--rounds R]
 *
 *   burst   R times: a new client sends C (30) requests at once (distinct URLs, ?i=k);
 *           the time until the last one is done
 *   cold1   R times: a new client sends one request (a handshake + one request)
 *   pre1    (nc) R times: a new client calls nc_client_preconnect() at start-up, waits
 *           for it to finish (its request_end event; "warm_seconds"), then sends one
 *           request: "seconds" is that request's time
 *   preburst (nc) the same, then C (30) requests at once
 *   screens N screens of 6-12 requests each, one after the other, on one client
 *           (below): the seconds of each screen
 *   session N views of those screens, two in three a screen seen before (below): the
 *           seconds of each view until every request of it has something to show
 *   steady  one client, C (16) in flight, N requests after C*2 warm-up ones:
 *           requests/s and CPU µs per request (getrusage: the whole process)
 * Every round's client is new, in one process: from the second round on, nc's new
 * connections resume the TLS session of an earlier one (the process-wide session
 * cache, CurlShare.swift); the raw peers make a new multi handle a round and share
 * nothing, as they did.
 * Peers: nc — libnetcore's C API (nc_client_send, envelope on, "http_version":"2",
 * its defaults otherwise: 8 connections a host, coalescing on, PIPEWAIT set by the
 * library); raw-pipewait — libcurl multi, CURLPIPE_MULTIPLEX, HTTP/2 over TLS,
 * CURLOPT_PIPEWAIT, body into a buffer (status 200 and a body checked; no JSON parse);
 * raw-nopipewait — the same without PIPEWAIT (each request of a burst opens its own
 * connection until one has said it multiplexes).
 * Prints one JSON line: peer, workload, the per-round seconds (burst, cold1) or
 * requests/s and CPU µs per request (steady), errors. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <netcore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *peer = "nc", *workload = "burst", *url, *ca;
static long n = 2000, c = 30, rounds = 5;
static long errors;
static char first_error[256];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void note(const char *what) {
    errors++;
    if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", what);
}

/* Screens (workload "screens"): screen s has 6-12 requests sent at once: j = 0 one of
 * 4 shared lists (/list/L.json, "no-cache" + ETag: revalidated), j = 1-3 cacheable
 * resources (/res/R.json of 24, max-age=300: revisits come back), the rest unique
 * items (/item.json?s=S&j=J; ETag and Last-Modified, no Cache-Control). The nc peer
 * reads lists and resources with NC_CACHE_ELSE_NETWORK (a "cache":{} client); raw
 * libcurl has no cache. Every screen is a new one.
 *
 * Session (workload "session"): the same screens as an app's user sees them, views
 * that come back to screens already seen: view v opens a new screen when v % 3 == 0
 * and otherwise returns to one of the last five screens opened (back navigation, a
 * tab switched to), so two views in three are revisits. The nc peer reads as an app
 * built on cache-then-network does: lists and items NC_CACHE_THEN_NETWORK (a stored
 * answer is shown at once, the network's follows), resources NC_CACHE_ELSE_NETWORK. A
 * view's time is until every request of it has something to show (a stored answer or
 * the network's); the next view starts when the last network answer is in. */
static long screen;
static long screen_size(long s) {
    return 6 + (s * 5) % 7;
}

/* the screen view `v` of a session shows; `opened`: screens opened so far */
static long session_screen(long v, long *opened) {
    if (v % 3 == 0 || *opened == 0) return (*opened)++;
    long back = (v * 7) % (*opened < 5 ? *opened : 5);
    return *opened - 1 - back;
}

enum { READ_NETWORK, READ_CACHE_ELSE_NETWORK, READ_CACHE_THEN_NETWORK };

/* request i's URL (of the current screen in "screens" and "session"); *read: how the
 * nc peer reads it (READ_*) */
static void url_i(char *out, size_t cap, long i, int *read) {
    char root[400];
    snprintf(root, sizeof root, "%s", url);
    char *slash = strrchr(root, '/');
    if (slash) *slash = 0;
    int session = strcmp(workload, "session") == 0;
    *read = READ_NETWORK;
    if (strcmp(workload, "screens") != 0 && !session) snprintf(out, cap, "%s?i=%ld", url, i);
    else if (i == 0) {
        snprintf(out, cap, "%s/list/%ld.json", root, screen % 4);
        *read = session ? READ_CACHE_THEN_NETWORK : READ_CACHE_ELSE_NETWORK;
    } else if (i <= 3) {
        snprintf(out, cap, "%s/res/%ld.json", root, (screen * 3 + i) % 24);
        *read = READ_CACHE_ELSE_NETWORK;
    } else {
        snprintf(out, cap, "%s/item.json?s=%ld&j=%ld", root, screen, i);
        if (session) *read = READ_CACHE_THEN_NETWORK;
    }
}

/* ---------------------------------------------------------------- libnetcore */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long done, sent, want, window;
    nc_client *client;
    long shown;     /* requests with something to show: a stored answer or the network's */
    double t_shown; /* when the last one was */
} nc_run;

typedef struct { /* one request of a run: both its callbacks' userdata */
    nc_run *run;
    int shown;
} nc_one;

static void nc_send_next(nc_run *r);

/* with r->mu held */
static void nc_show(nc_run *r, nc_one *o) {
    if (o->shown) return;
    o->shown = 1;
    if (++r->shown == r->want) r->t_shown = now_s();
}

/* NC_CACHE_THEN_NETWORK's stored answer: shown at once (a stored error is not) */
static void nc_cached(const nc_response *resp, const nc_error *err, void *ud) {
    nc_one *o = ud;
    if (err || !nc_response_data(resp)) return;
    pthread_mutex_lock(&o->run->mu);
    nc_show(o->run, o);
    pthread_mutex_unlock(&o->run->mu);
}

static void nc_done(const nc_response *resp, const nc_error *err, void *ud) {
    nc_one *o = ud;
    nc_run *r = o->run;
    if (err) note(nc_error_message(err));
    else if (!nc_response_data(resp)) note("no data");
    pthread_mutex_lock(&r->mu);
    nc_show(r, o);
    r->done++;
    int more = r->sent < r->want;
    /* the waiting thread is woken once, by the last completion (a wake-up per request
     * would be this peer's cost, not the library's: raw libcurl runs on one thread) */
    if (r->done >= r->want) pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    free(o);
    if (more) nc_send_next(r);
}

static void nc_send_next(nc_run *r) {
    char u[512];
    nc_request *req = NULL;
    nc_task *task = NULL;
    pthread_mutex_lock(&r->mu);
    if (r->sent >= r->want) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    long i = r->sent++;
    pthread_mutex_unlock(&r->mu);
    int read;
    url_i(u, sizeof u, i, &read);
    nc_one *o = calloc(1, sizeof *o);
    if (!o) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    o->run = r;
    if (nc_request_new("GET", u, &req) == NC_OK) {
        if (read == READ_CACHE_ELSE_NETWORK) nc_request_set_cache_policy(req, NC_CACHE_ELSE_NETWORK);
        if (read == READ_CACHE_THEN_NETWORK) {
            nc_request_set_cache_policy(req, NC_CACHE_THEN_NETWORK);
            nc_request_set_cached_callback(req, nc_cached, o);
        }
    }
    if (!req || nc_client_send(r->client, req, nc_done, o, &task) != NC_OK) {
        note("send refused");
        pthread_mutex_lock(&r->mu);
        r->done++;
        nc_show(r, o);
        if (r->done >= r->want) pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
        free(o);
    }
    nc_task_free(task);
    nc_request_free(req);
}

static nc_client *nc_new(void) {
    char config[1024];
    nc_client *cl = NULL;
    nc_error *err = NULL;
    snprintf(
        config, sizeof config, "{\"envelope\":{},\"http_version\":\"2\",\"tls\":{\"ca_file\":\"%s\"}%s}",
        ca, strcmp(workload, "screens") == 0 || strcmp(workload, "session") == 0 ? ",\"cache\":{}" : "");
    if (nc_client_new(config, &cl, &err) != NC_OK) {
        fprintf(stderr, "nc_client_new: %s\n", nc_error_message(err));
        exit(2);
    }
    return cl;
}

/* `want` requests, `window` in flight, on `cl`; returns the seconds taken until the
 * last completion, or with `shown` until every request had something to show (a
 * stored answer of NC_CACHE_THEN_NETWORK counts; the run still ends at the last
 * completion). */
static double nc_run_shown(nc_client *cl, long want, long window, int shown) {
    nc_run r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, want, window, cl, 0, 0};
    double t0 = now_s();
    for (long k = 0; k < window && k < want; k++) nc_send_next(&r);
    pthread_mutex_lock(&r.mu);
    while (r.done < want) pthread_cond_wait(&r.cv, &r.mu);
    pthread_mutex_unlock(&r.mu);
    return (shown ? r.t_shown : now_s()) - t0;
}

static double nc_run_many(nc_client *cl, long want, long window) {
    return nc_run_shown(cl, want, window, 0);
}

/* Preconnect: the client's request_end events, counted. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long ends;
} nc_ends;

static void nc_on_event(const char *json, size_t len, void *ud) {
    nc_ends *e = ud;
    (void)len;
    if (!strstr(json, "\"request_end\"")) return;
    if (!strstr(json, "\"domain\":null")) note("preconnect failed");
    pthread_mutex_lock(&e->mu);
    e->ends++;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* A new client warmed with nc_client_preconnect(url); *warm: the seconds until its
 * HEAD ended (the event handler is removed before the client is returned). */
static nc_client *nc_preconnected(double *warm) {
    nc_ends e = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    nc_client *cl = nc_new();
    nc_error *err = NULL;
    nc_client_set_event_mask(cl, NC_EVENT_REQUEST_END);
    nc_client_set_event_handler(cl, nc_on_event, &e);
    double t0 = now_s();
    if (nc_client_preconnect(cl, url, &err) != NC_OK) {
        note(nc_error_message(err));
        nc_error_free(err);
    } else {
        pthread_mutex_lock(&e.mu);
        while (e.ends < 1) pthread_cond_wait(&e.cv, &e.mu);
        pthread_mutex_unlock(&e.mu);
    }
    *warm = now_s() - t0;
    nc_client_set_event_handler(cl, NULL, NULL);
    return cl;
}

/* ---------------------------------------------------------------- raw libcurl */

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    buf_t *b = ud;
    size_t k = size * nmemb;
    if (b->len + k > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + k) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) return 0;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, k);
    b->len += k;
    return k;
}

typedef struct {
    CURL *h;
    buf_t body;
} slot_t;

static void raw_setup(slot_t *s, long i) {
    char u[512];
    int read;
    url_i(u, sizeof u, i, &read);
    s->body.len = 0;
    curl_easy_setopt(s->h, CURLOPT_URL, u);
    curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(s->h, CURLOPT_WRITEDATA, &s->body);
    curl_easy_setopt(s->h, CURLOPT_CAINFO, ca);
    curl_easy_setopt(s->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(s->h, CURLOPT_PIPEWAIT, strcmp(peer, "raw-pipewait") == 0 ? 1L : 0L);
    curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
}

/* `want` requests, `window` in flight, on multi `m`; returns the seconds taken. */
static double raw_batch(CURLM *m, long want, long window) {
    slot_t *slots = calloc((size_t)window, sizeof *slots);
    long sent = 0, done = 0;
    double t0 = now_s();
    for (long k = 0; k < window && sent < want; k++) {
        slots[k].h = curl_easy_init();
        curl_easy_setopt(slots[k].h, CURLOPT_PRIVATE, &slots[k]);
        raw_setup(&slots[k], sent++);
        curl_multi_add_handle(m, slots[k].h);
    }
    while (done < want) {
        int running = 0, left = 0;
        curl_multi_perform(m, &running);
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            slot_t *s = NULL;
            long code = 0;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
            if (msg->data.result != CURLE_OK) note(curl_easy_strerror(msg->data.result));
            else if (code != 200 || s->body.len == 0) note("not a 200 with a body");
            curl_multi_remove_handle(m, s->h);
            done++;
            if (sent < want) {
                raw_setup(s, sent++);
                curl_multi_add_handle(m, s->h);
            }
        }
        if (done < want) curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    double t = now_s() - t0;
    for (long k = 0; k < window; k++) {
        if (slots[k].h) curl_easy_cleanup(slots[k].h);
        free(slots[k].body.p);
    }
    free(slots);
    return t;
}

static CURLM *raw_new(void) {
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    return m;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--peer")) peer = argv[a + 1];
        else if (!strcmp(argv[a], "--workload")) workload = argv[a + 1];
        else if (!strcmp(argv[a], "--url")) url = argv[a + 1];
        else if (!strcmp(argv[a], "--ca")) ca = argv[a + 1];
        else if (!strcmp(argv[a], "-n")) n = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "-c")) c = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "--rounds")) rounds = atol(argv[a + 1]);
        else return fprintf(stderr, "unknown option %s\n", argv[a]), 2;
    }
    if (!url || !ca || c < 1 || rounds < 1) return fprintf(stderr, "usage: see wan.c\n"), 2;
    int is_nc = strcmp(peer, "nc") == 0;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    printf("{\"peer\":\"%s\",\"workload\":\"%s\"", peer, workload);
    if (!strcmp(workload, "burst") || !strcmp(workload, "cold1")) {
        long per = !strcmp(workload, "burst") ? c : 1;
        printf(",\"c\":%ld,\"seconds\":[", per);
        for (long r = 0; r < rounds; r++) {
            double t;
            if (is_nc) {
                nc_client *cl = nc_new();
                t = nc_run_many(cl, per, per);
                nc_client_free(cl);
            } else {
                CURLM *m = raw_new();
                t = raw_batch(m, per, per);
                curl_multi_cleanup(m);
            }
            printf("%s%.4f", r ? "," : "", t);
        }
        printf("]");
    } else if (!strcmp(workload, "pre1") || !strcmp(workload, "preburst")) {
        long per = !strcmp(workload, "preburst") ? c : 1;
        double *warm = calloc((size_t)rounds, sizeof *warm);
        printf(",\"c\":%ld,\"seconds\":[", per);
        for (long r = 0; r < rounds; r++) {
            double t = 0;
            if (is_nc) {
                nc_client *cl = nc_preconnected(&warm[r]);
                t = nc_run_many(cl, per, per);
                nc_client_free(cl);
            } else {
                note("preconnect: libnetcore only");
            }
            printf("%s%.4f", r ? "," : "", t);
        }
        printf("],\"warm_seconds\":[");
        for (long r = 0; r < rounds; r++) printf("%s%.4f", r ? "," : "", warm[r]);
        printf("]");
        free(warm);
    } else if (!strcmp(workload, "screens")) {
        /* n screens, one after the other, on one client (after one warm-up request) */
        double *t = calloc((size_t)n, sizeof *t);
        nc_client *cl = is_nc ? nc_new() : NULL;
        CURLM *m = is_nc ? NULL : raw_new();
        long requests = 0;
        screen = 1000000; /* warm-up: the connection; an item no screen asks for */
        if (is_nc) nc_run_many(cl, 1, 1);
        else raw_batch(m, 1, 1);
        for (screen = 0; screen < n; screen++) {
            long k = screen_size(screen);
            requests += k;
            t[screen] = is_nc ? nc_run_many(cl, k, k) : raw_batch(m, k, k);
        }
        if (cl) nc_client_free(cl);
        if (m) curl_multi_cleanup(m);
        printf(",\"screens\":%ld,\"requests\":%ld,\"seconds\":[", n, requests);
        for (long s = 0; s < n; s++) printf("%s%.4f", s ? "," : "", t[s]);
        printf("]");
        free(t);
    } else if (!strcmp(workload, "session")) {
        /* n views, one after the other, on one client (after one warm-up request); two
         * in three return to a screen seen before (session_screen) */
        double *t = calloc((size_t)n, sizeof *t);
        nc_client *cl = is_nc ? nc_new() : NULL;
        CURLM *m = is_nc ? NULL : raw_new();
        long requests = 0, opened = 0;
        screen = 1000000;
        if (is_nc) nc_run_many(cl, 1, 1);
        else raw_batch(m, 1, 1);
        for (long v = 0; v < n; v++) {
            screen = session_screen(v, &opened);
            long k = screen_size(screen);
            requests += k;
            t[v] = is_nc ? nc_run_shown(cl, k, k, 1) : raw_batch(m, k, k);
        }
        if (cl) nc_client_free(cl);
        if (m) curl_multi_cleanup(m);
        printf(",\"screens\":%ld,\"opened\":%ld,\"requests\":%ld,\"seconds\":[", n, opened, requests);
        for (long v = 0; v < n; v++) printf("%s%.4f", v ? "," : "", t[v]);
        printf("]");
        free(t);
    } else {
        double t, cpu0;
        if (is_nc) {
            nc_client *cl = nc_new();
            nc_run_many(cl, c * 2, c);
            cpu0 = cpu_s();
            t = nc_run_many(cl, n, c);
            cpu0 = cpu_s() - cpu0;
            nc_client_free(cl);
        } else {
            CURLM *m = raw_new();
            raw_batch(m, c * 2, c);
            cpu0 = cpu_s();
            t = raw_batch(m, n, c);
            cpu0 = cpu_s() - cpu0;
            curl_multi_cleanup(m);
        }
        printf(",\"c\":%ld,\"n\":%ld,\"seconds\":%.3f,\"rps\":%.1f,\"cpu_us_per_request\":%.1f", c, n, t,
               n / t, cpu0 * 1e6 / n);
    }
    printf(",\"errors\":%ld,\"first_error\":\"%s\"}\n", errors, first_error);
    return errors ? 1 : 0;
}
