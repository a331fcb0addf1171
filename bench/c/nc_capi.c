/* nc_capi.c — libnetcore through its C API (include/netcore.h), envelope on
 * (bench/README.md). --api callback (default): nc_client_send with a completion
 * callback; a window of C requests, each completion sends the next one from the
 * callback. --api sync: nc_client_send_sync in a loop (sequential workloads).
 *   seq / conc     envelope-checked GETs; success = callback without error and
 *                  nc_response_data() available (what a caller reads)
 *   download       raw mode (nc_request_set_envelope(r, 0)), body kept in memory
 *   download-file  raw mode, body streamed to --out (nc_request_set_output_file);
 *                  bytes counted from Content-Length
 *   slow           N requests sent at once (limits.max_connections_per_host = 0)
 *   cancel         send, wait --delay-us (the transfer is mid-body), then time
 *                  nc_task_cancel() -> end of the completion callback
 * Prints one JSON line. */
#include "common.h"
#include <netcore.h>
#include <pthread.h>
#include <unistd.h>

static const char *PEER_CB = "nc-capi";
static const char *PEER_SYNC = "nc-sync";

/* Bench configuration: envelope on, no per-host connection cap (the default is 8;
 * $BENCH_NC_MAX_CONNECTIONS_PER_HOST overrides the 0 = unlimited used here), bodies
 * up to 1 GiB (the 100 MB download), generous timeouts, and compression off so the
 * request bytes are the raw peer's (no Accept-Encoding; bench/README.md). Coalescing
 * off: the concurrent workloads send one URL c times at once, which would share one
 * transfer and measure nothing of the transport (--features coalesce turns it on). */
static const char *CONFIG_FMT =
    "{\"envelope\":{},\"compression\":false,\"timeout_ms\":300000,\"connect_timeout_ms\":10000,"
    "\"coalesce\":%s,"
    "\"limits\":{\"max_connections_per_host\":%ld,\"max_response_bytes\":1073741824}%s}";

/* --features LIST (or $BENCH_NC_FEATURES; comma-separated) turns features on, to measure what they cost
 * against the same peer with none: "events" installs an event handler that only
 * counts ("endonly" with it: only request_end events, nc_client_set_event_mask), "logwarn" a
 * log handler at WARN that counts its lines, "signing"
 * adds an HMAC signing config (every request signed), "retry" a
 * retry policy that the bench's successful requests never trigger, "coalesce"
 * turns in-flight coalescing on (the library's default; see CONFIG_FMT), "cache" configures a
 * memory response cache ("cache": {}) that every request's answer goes through (the default
 * policy, network only: nothing is read, each cacheable answer is stored). */
static const char *SIGNING_CONFIG = ",\"signing\":{\"secret\":\"bench-secret\",\"header\":\"X-"
                                    "Signature\",\"timestamp_header\":\"X-Timestamp\"}";
/* "sameheaders": the two headers signing adds, as fixed client headers (what libcurl
   itself spends sending them, without signing). */
static const char *SAME_HEADERS_CONFIG =
    ",\"headers\":{\"X-Timestamp\":\"1700000000\",\"X-Signature\":"
    "\"8690d3933ab290eb44308ff799c5e99a18457c71e7a915000b0d1ff7ae6e1d59\"}";
static const char *RETRY_CONFIG = ",\"retry\":{\"max_attempts\":3,\"backoff\":\"exponential\","
                                  "\"initial_ms\":200,\"max_delay_ms\":5000,\"jitter\":true}";
static const char *CACHE_CONFIG = ",\"cache\":{}";
static const char *features_arg;
static int feature_on(const char *name) {
    const char *f = features_arg ? features_arg : getenv("BENCH_NC_FEATURES");
    size_t n = strlen(name);
    for (const char *p = f; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    nc_client *client;
    nc_request *req;
    int raw;     /* download: raw mode, no data access */
    int file;    /* download-file: the body went to a file */
    long target; /* completions wanted */
    long started, done, ok, errors;
    long long bytes;
    double deadline;
    char first_error[512];
} window_t;

static void note(window_t *w, const nc_error *e) {
    if (!w->first_error[0])
        snprintf(w->first_error, sizeof w->first_error, "%s %lld: %s", nc_error_domain_name(e),
                 (long long)nc_error_code(e), nc_error_message(e));
}

static void on_done(const nc_response *resp, const nc_error *err, void *ud);

/* download-file: the body is in the file; its size is the Content-Length */
static size_t body_file_size(const nc_response *resp) {
    const char *cl = nc_response_header(resp, "content-length");
    return cl ? (size_t)strtoull(cl, NULL, 10) : 0;
}

/* sends one more request of the window; called with w->mu held */
static int send_one(window_t *w) {
    w->started++;
    nc_status s = nc_client_send(w->client, w->req, on_done, w, NULL);
    if (s != NC_OK) {
        w->started--;
        if (!w->first_error[0])
            snprintf(w->first_error, sizeof w->first_error, "nc_client_send: %s", nc_status_str(s));
        return 0;
    }
    return 1;
}

static void on_done(const nc_response *resp, const nc_error *err, void *ud) {
    window_t *w = ud;
    size_t len = 0;
    int good = 0;
    if (!err) {
        nc_response_body(resp, &len);
        if (w->file) len = body_file_size(resp);
        good = w->raw ? 1 : nc_response_data(resp) != NULL;
    }
    pthread_mutex_lock(&w->mu);
    if (good) {
        w->ok++;
        w->bytes += (long long)len;
    } else {
        w->errors++;
        if (err) note(w, err);
    }
    w->done++;
    int more = w->started < w->target && bench_now() < w->deadline;
    if (more) send_one(w);
    if (w->done >= w->started) pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static nc_request *make_request(const bench_args *a, int raw) {
    nc_request *r = NULL;
    if (nc_request_new("GET", a->url, &r) != NC_OK) {
        fprintf(stderr, "bad url\n");
        exit(1);
    }
    if (raw) nc_request_set_envelope(r, 0);
    if (!strcmp(a->workload, "download-file") &&
        (!a->out || nc_request_set_output_file(r, a->out) != NC_OK)) {
        fprintf(stderr, "download-file needs a valid --out\n");
        exit(1);
    }
    return r;
}

/* runs `count` requests with `c` in flight; returns when all have completed */
static void window_run(window_t *w, long count, long c) {
    pthread_mutex_lock(&w->mu);
    w->target = w->started + count;
    long first = c < count ? c : count;
    for (long i = 0; i < first; i++)
        if (!send_one(w)) break;
    while (w->done < w->started) pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static void run_callback(const bench_args *a, nc_client *client, int raw, long c) {
    window_t w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    w.client = client;
    w.req = make_request(a, raw);
    w.raw = raw;
    w.file = !strcmp(a->workload, "download-file");
    w.deadline = bench_now() + a->time_limit;
    if (a->warmup > 0) window_run(&w, a->warmup > c ? a->warmup : c, c);
    w.started = w.done = w.ok = w.errors = 0;
    w.bytes = 0;
    w.first_error[0] = 0;
    bench_slicer sl = bench_slicer_for(a);
    double cpu0 = bench_cpu(), t0 = bench_now();
    for (long at = 0; at < a->n;) { /* one go without --slices */
        long end = bench_slice_start(&sl, at);
        window_run(&w, end - at, c);
        bench_slice_finish(&sl, w.done - at);
        at = end;
        if (w.done < at) break; /* the time limit */
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    if (sl.slices) {
        secs = sl.secs;
        cpu = sl.cpu;
    }
    if (w.done < a->n && !w.first_error[0])
        snprintf(w.first_error, sizeof w.first_error, "time limit reached");
    bench_emit(PEER_CB, a, w.ok, a->n - w.ok, w.bytes, secs, cpu,
               w.first_error[0] ? w.first_error : NULL, "");
    nc_request_free(w.req);
}

static void run_sync(const bench_args *a, nc_client *client, int raw) {
    nc_request *r = make_request(a, raw);
    char first_error[512] = "";
    long ok = 0, errors = 0;
    long long bytes = 0;
    double deadline = bench_now() + a->time_limit;
    double cpu0 = 0, t0 = 0;
    for (long i = -a->warmup; i < a->n; i++) {
        if (i == 0) {
            ok = errors = 0;
            bytes = 0;
            first_error[0] = 0;
            cpu0 = bench_cpu();
            t0 = bench_now();
        }
        if (bench_now() > deadline) {
            snprintf(first_error, sizeof first_error, "time limit reached");
            break;
        }
        nc_response *resp = NULL;
        nc_error *err = NULL;
        nc_status s = nc_client_send_sync(client, r, &resp, &err);
        size_t len = 0;
        if (s == NC_OK && resp) nc_response_body(resp, &len);
        if (s == NC_OK && resp && !strcmp(a->workload, "download-file")) len = body_file_size(resp);
        if (s == NC_OK && resp && (raw || nc_response_data(resp))) {
            ok++;
            bytes += (long long)len;
        } else {
            errors++;
            if (!first_error[0])
                snprintf(first_error, sizeof first_error, "%s: %s", nc_status_str(s),
                         err ? nc_error_message(err) : "no error");
        }
        nc_response_free(resp);
        nc_error_free(err);
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    bench_emit(PEER_SYNC, a, ok, a->n - ok, bytes, secs, cpu, first_error[0] ? first_error : NULL, "");
    nc_request_free(r);
}

/* slow: N requests in flight at once */
static void run_slow(const bench_args *a, nc_client *client) {
    window_t w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    w.client = client;
    w.req = make_request(a, 0);
    w.deadline = bench_now() + a->time_limit;
    long base = bench_status_kb("VmRSS");
    bench_reset_peak();
    double cpu0 = bench_cpu(), t0 = bench_now();
    window_run(&w, a->n, a->n);
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    long peak = bench_status_kb("VmHWM");
    bench_emit(PEER_CB, a, w.ok, a->n - w.ok, w.bytes, secs, cpu,
               w.first_error[0] ? w.first_error : NULL, ",\"rss_base_kb\":%ld,\"rss_per_req_kb\":%.3f",
               base, (double)(peak > base ? peak - base : 0) / (double)(a->n ? a->n : 1));
    nc_request_free(w.req);
}

/* cancel: one sample = send, sleep delay_us, nc_task_cancel; latency from the
 * cancel call to the end of the completion callback */
typedef struct {
    pthread_mutex_t mu;
    int called;
    int cancelled; /* error was NC_CLIENT_CANCELLED */
    double end;    /* bench_now() as the callback returns */
} cancel_t;

static void on_cancel_done(const nc_response *resp, const nc_error *err, void *ud) {
    (void)resp;
    cancel_t *s = ud;
    pthread_mutex_lock(&s->mu);
    s->called++;
    s->cancelled =
        err && nc_error_domain(err) == NC_DOMAIN_CLIENT && nc_error_code(err) == NC_CLIENT_CANCELLED;
    s->end = bench_now();
    pthread_mutex_unlock(&s->mu);
}

static void run_cancel(const bench_args *a, nc_client *client) {
    nc_request *r = make_request(a, 1);
    double *lat = calloc((size_t)a->n + 1, sizeof *lat);
    double *ret = calloc((size_t)a->n + 1, sizeof *ret);
    long samples = 0, not_cancelled = 0, not_called = 0;
    double deadline = bench_now() + a->time_limit;
    double cpu0 = bench_cpu(), t0 = bench_now();
    for (long i = 0; i < a->n && bench_now() < deadline; i++) {
        cancel_t s;
        memset(&s, 0, sizeof s);
        pthread_mutex_init(&s.mu, NULL);
        nc_task *t = NULL;
        if (nc_client_send(client, r, on_cancel_done, &s, &t) != NC_OK) {
            not_called++;
            continue;
        }
        usleep((useconds_t)a->delay_us);
        double c0 = bench_now();
        nc_task_cancel(t);
        double c1 = bench_now();
        pthread_mutex_lock(&s.mu);
        int called = s.called, cancelled = s.cancelled;
        double end = s.end;
        pthread_mutex_unlock(&s.mu);
        if (called != 1) not_called++;        /* contract: callback returned before cancel returns */
        else if (!cancelled) not_cancelled++; /* finished (or failed) before the cancel */
        else {
            lat[samples] = (end - c0) * 1e6;
            ret[samples] = (c1 - c0) * 1e6;
            samples++;
        }
        nc_task_free(t);
        pthread_mutex_destroy(&s.mu);
    }
    double secs = bench_now() - t0, cpu = bench_cpu() - cpu0;
    qsort(lat, (size_t)samples, sizeof *lat, bench_cmp_double);
    qsort(ret, (size_t)samples, sizeof *ret, bench_cmp_double);
    char note_txt[200] = "";
    if (not_called || not_cancelled)
        snprintf(note_txt, sizeof note_txt,
                 "%ld samples: callback not run when nc_task_cancel returned; "
                 "%ld: completed without NC_CLIENT_CANCELLED",
                 not_called, not_cancelled);
    bench_emit(PEER_CB, a, samples, a->n - samples, 0, secs, cpu, note_txt[0] ? note_txt : NULL,
               ",\"samples\":%ld,\"p50_us\":%.2f,\"p99_us\":%.2f,\"max_us\":%.2f,"
               "\"return_p50_us\":%.2f,\"return_p99_us\":%.2f,\"not_called\":%ld,\"not_cancelled\":%ld",
               samples, bench_percentile(lat, samples, 50), bench_percentile(lat, samples, 99),
               samples ? lat[samples - 1] : 0.0, bench_percentile(ret, samples, 50),
               bench_percentile(ret, samples, 99), not_called, not_cancelled);
    free(lat);
    free(ret);
    nc_request_free(r);
}

int main(int argc, char **argv) {
    bench_args a = bench_parse_args(argc, argv);
    features_arg = a.features;
    int sync = !strcmp(a.api, "sync");
    const char *peer = sync ? PEER_SYNC : PEER_CB;
    const char *mc = getenv("BENCH_NC_MAX_CONNECTIONS_PER_HOST");
    char config[2048], extra[1024];
    /* $BENCH_NC_EXTRA_CONFIG: more top-level keys (",\"idle_timeout_ms\":0"), to measure a default. */
    const char *more = getenv("BENCH_NC_EXTRA_CONFIG");
    /* --ca-file, --http-version 2: https and HTTP/2 (workload 10); the path is the bench's own,
     * no character of it needs escaping in JSON */
    char tls[600] = "";
    if (a.ca_file) snprintf(tls, sizeof tls, ",\"tls\":{\"ca_file\":\"%s\"}", a.ca_file);
    snprintf(extra, sizeof extra, "%s%s%s%s%s%s%s", feature_on("signing") ? SIGNING_CONFIG : "",
             feature_on("sameheaders") ? SAME_HEADERS_CONFIG : "",
             feature_on("retry") ? RETRY_CONFIG : "", feature_on("cache") ? CACHE_CONFIG : "", tls,
             strcmp(a.http_version, "2") ? "" : ",\"http_version\":\"2\"", more ? more : "");
    snprintf(config, sizeof config, CONFIG_FMT, feature_on("coalesce") ? "true" : "false",
             mc && *mc ? atol(mc) : 0L, extra);
    nc_client *client = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &client, &err) != NC_OK) {
        fprintf(stderr, "nc_client_new: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    if (feature_on("events") && nc_client_set_event_handler(client, bench_count_event, NULL) != NC_OK) {
        fprintf(stderr, "nc_client_set_event_handler failed\n");
        return 1;
    }
    /* "logwarn": a log handler at WARN (what Python's "netcore" logger installs at its default
     * level): a line for each failure, none for the bench's successes */
    if (feature_on("logwarn") &&
        nc_client_set_log_handler(client, NC_LOG_WARN, bench_count_event, NULL) != NC_OK) {
        fprintf(stderr, "nc_client_set_log_handler failed\n");
        return 1;
    }
    /* "endonly": the event handler of "events" takes request_end alone (nc_client_set_event_mask) */
    if (feature_on("endonly") && nc_client_set_event_mask(client, NC_EVENT_REQUEST_END) != NC_OK) {
        fprintf(stderr, "nc_client_set_event_mask failed\n");
        return 1;
    }
    if (!strcmp(a.workload, "seq")) sync ? run_sync(&a, client, 0) : run_callback(&a, client, 0, 1);
    else if (!strcmp(a.workload, "conc") && !sync) run_callback(&a, client, 0, a.c);
    else if (!strcmp(a.workload, "download"))
        sync ? run_sync(&a, client, 1) : run_callback(&a, client, 1, 1);
    else if (!strcmp(a.workload, "download-file")) {
        a.warmup = 0; /* as the raw peer: the file is written n times, measured */
        sync ? run_sync(&a, client, 1) : run_callback(&a, client, 1, 1);
    } else if (!strcmp(a.workload, "slow") && !sync) run_slow(&a, client);
    else if (!strcmp(a.workload, "cancel") && !sync) run_cancel(&a, client);
    else bench_skip(peer, &a, "workload does not apply to this API");
    nc_client_free(client);
    return 0;
}
