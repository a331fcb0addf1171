/* chaos.c — a fixed mix of requests through the public C API over a bad network
 * (Tests/chaos/run.sh makes the network: Tests/netns, docs/RELIABILITY.md "Chaos").
 *
 *   chaos --base http://127.0.0.1:RELAY/api --direct http://NS_IP:PORT/api
 *         --shape "Tests/netns/netns.sh shape NAME" --dir TMPDIR -n 2000
 *         [--window 16] [--blackhole-s 20] [--slow-n 20] [--deadline-ms 45000]
 *
 * Request i is, by i % 10: 0-2 GET /echo; 3 POST /chaos/post (no key: never resent);
 * 4 POST /chaos/post with an Idempotency-Key (retried); 5-6 a 96 KiB download to a
 * file (/dl/file: resumed after a cut); 7 a 48 KiB PUT upload (/upload/echo);
 * 8-9 GET /cache/resource with NC_CACHE_THEN_NETWORK (a cached callback first when
 * stored). --window requests are in flight; each completion sends the next.
 * The network, switched by this program through --shape while it runs: 5 % loss
 * and the relay's 300 ms +- 100 ms all along (set by run.sh), a black hole of
 * --blackhole-s seconds once 40 % of the requests are sent, and 64 kbit/s while
 * the --slow-n requests from 60 % on are sent (until the next ones are).
 *
 * Asserted (exit 1 otherwise; every failed check is printed):
 *   - every request completes exactly once (its callback counted; again after
 *     nc_client_free), a cached callback at most once and before the completion;
 *   - a POST without Idempotency-Key reached the server at most once, a POST with
 *     one is a write at most once (the server counts arrivals: /chaos/stats); a
 *     successful POST arrived at least once;
 *   - a successful download's file is byte-identical to what the server serves, an
 *     upload's answer names the file's SHA-256;
 *   - no request completes more than 1 s past its deadline (measured from send);
 *   - no "idle" timeout on a request that began and ended with the link moving
 *     (outside the black hole: the 64 kbit/s part is slow, never silent);
 *   - an error is one of the expected kinds (TRANSPORT, or CLIENT deadline);
 *   - resident set: after the first 20 % of requests and at the end (reported;
 *     growth above 16 MiB fails).
 * Prints one JSON line of figures (completed, ok, retried, failed by domain, p50/p99). */
#define _GNU_SOURCE
#include <netcore.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { K_GET, K_POST, K_POST_KEY, K_DOWNLOAD, K_UPLOAD, K_CACHE };
static const char *kind_name[] = {"get", "post", "post-idem", "download", "upload", "cache"};
#define DL_BYTES 98304

typedef struct {
    int kind;
    char key[32];
    double sent, done;
    atomic_int completions;
    atomic_int cached;       /* cached callbacks */
    atomic_int cached_after; /* a cached callback after the completion */
    int ok, domain, attempts, idle, deadline_hit;
    long long code;
    char msg[160];
} slot_t;

static slot_t *slots;
static long total = 2000, window = 16;
static const char *base, *direct, *shape = "", *dir = "/tmp";
static double blackhole_s = 20, deadline_ms = 45000;
static long slow_n = 20;
static char upload_path[512], upload_sha[80];
static unsigned char expected_dl[DL_BYTES];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long in_flight, finished;
static double bh_on = -1, bh_off = -1;
static int failures;
static nc_client *client;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL - ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void run_shape(const char *what) {
    char cmd[1024];
    if (!shape[0]) return;
    snprintf(cmd, sizeof cmd, "%s %s", shape, what);
    if (system(cmd) != 0) fail("shape command failed: %s", cmd);
}

static int json_int(const char *json, const char *name, int dflt) {
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\":", name);
    if (!json || !(p = strstr(json, pat))) return dflt;
    return atoi(p + strlen(pat));
}

static void on_cached(const nc_response *resp, const nc_error *err, void *ud) {
    slot_t *s = ud;
    (void)resp;
    (void)err;
    atomic_fetch_add(&s->cached, 1);
    if (atomic_load(&s->completions) > 0) atomic_fetch_add(&s->cached_after, 1);
}

static void on_done(const nc_response *resp, const nc_error *err, void *ud) {
    slot_t *s = ud;
    s->done = now_s();
    if (err) {
        const char *j = nc_error_json(err);
        s->domain = nc_error_domain(err);
        s->code = nc_error_code(err);
        s->attempts = json_int(j, "attempts", 1);
        s->idle = j && strstr(j, "\"timeout\":\"idle\"") != NULL;
        s->deadline_hit = j && strstr(j, "\"timeout\":\"deadline\"") != NULL;
        snprintf(s->msg, sizeof s->msg, "%s", nc_error_message(err));
    } else {
        s->ok = 1;
        s->attempts = json_int(nc_response_metrics_json(resp), "attempts", 1);
        if (s->kind == K_UPLOAD) {
            const char *d = nc_response_data_json(resp, NULL);
            if (!d || !strstr(d, upload_sha))
                snprintf(s->msg, sizeof s->msg, "upload sha mismatch: %.100s", d ? d : "(null)");
        } else if (s->kind == K_POST || s->kind == K_POST_KEY || s->kind == K_GET) {
            const char *d = nc_response_data_json(resp, NULL);
            if (!d || !strstr(d, s->key))
                snprintf(s->msg, sizeof s->msg, "answer without its key: %.100s", d ? d : "(null)");
        }
    }
    atomic_fetch_add(&s->completions, 1);
    pthread_mutex_lock(&mu);
    in_flight--;
    finished++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static int send_one(long i) {
    slot_t *s = &slots[i];
    int k = (int)(i % 10);
    char path[256], file[600];
    nc_request *req = NULL;
    nc_task *task = NULL;
    s->kind = k <= 2   ? K_GET
              : k == 3 ? K_POST
              : k == 4 ? K_POST_KEY
              : k <= 6 ? K_DOWNLOAD
              : k == 7 ? K_UPLOAD
                       : K_CACHE;
    snprintf(s->key, sizeof s->key, "c%ld", i);
    switch (s->kind) {
    case K_GET:
        snprintf(path, sizeof path, "/echo?key=%s", s->key);
        break;
    case K_POST:
    case K_POST_KEY:
        snprintf(path, sizeof path, "/chaos/post?key=%s", s->key);
        break;
    case K_DOWNLOAD:
        snprintf(path, sizeof path, "/dl/file?key=%s&bytes=%d", s->key, DL_BYTES);
        break;
    case K_UPLOAD:
        snprintf(path, sizeof path, "/upload/echo?key=%s", s->key);
        break;
    default:
        snprintf(path, sizeof path, "/cache/resource?key=r%ld&max_age=0&etag=1", i % 40);
        break;
    }
    const char *method = s->kind == K_POST || s->kind == K_POST_KEY ? "POST"
                         : s->kind == K_UPLOAD                      ? "PUT"
                                                                    : "GET";
    if (nc_request_new(method, path, &req) != NC_OK) return -1;
    nc_request_set_deadline_ms(req, (long long)deadline_ms);
    if (s->kind == K_POST || s->kind == K_POST_KEY) {
        char body[96];
        int n = snprintf(body, sizeof body, "{\"key\":\"%s\"}", s->key);
        nc_request_set_params_json(req, body, (size_t)n);
        if (s->kind == K_POST_KEY) nc_request_set_header(req, "Idempotency-Key", s->key);
    } else if (s->kind == K_DOWNLOAD) {
        snprintf(file, sizeof file, "%s/dl-%ld", dir, i);
        nc_request_set_output_file(req, file);
    } else if (s->kind == K_UPLOAD) {
        nc_request_set_body_file(req, upload_path, "application/octet-stream");
    } else if (s->kind == K_CACHE) {
        nc_request_set_cache_policy(req, NC_CACHE_THEN_NETWORK);
        nc_request_set_cached_callback(req, on_cached, s);
    }
    s->sent = now_s();
    nc_status st = nc_client_send(client, req, on_done, s, &task);
    nc_request_free(req);
    if (st != NC_OK) return -1;
    nc_task_free(task);
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* GET url (direct, unshaped) into a malloc'd string; NULL on failure. */
static char *get_direct(nc_client *c, const char *path) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    char *out = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) return NULL;
    nc_request_set_envelope(req, 0);
    if (nc_client_send_sync(c, req, &resp, &err) == NC_OK) {
        size_t len = 0;
        const void *b = nc_response_body(resp, &len);
        out = malloc(len + 1);
        if (out) {
            memcpy(out, b, len);
            out[len] = 0;
        }
    } else {
        fail("direct GET %s: %s", path, nc_error_message(err));
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    return out;
}

/* the number after "KEY": in a flat {"KEY":n,...} object inside `obj` text */
static int count_in(const char *text, const char *section, const char *key) {
    char pat[64];
    const char *sec = strstr(text, section), *p;
    if (!sec) return 0;
    const char *end = strchr(sec, '}');
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(sec, pat);
    if (!p || (end && p > end)) return 0;
    return atoi(p + strlen(pat));
}

int main(int argc, char **argv) {
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--base")) base = argv[a + 1];
        else if (!strcmp(argv[a], "--direct")) direct = argv[a + 1];
        else if (!strcmp(argv[a], "--shape")) shape = argv[a + 1];
        else if (!strcmp(argv[a], "--dir")) dir = argv[a + 1];
        else if (!strcmp(argv[a], "-n")) total = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "--window")) window = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "--blackhole-s")) blackhole_s = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "--slow-n")) slow_n = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "--deadline-ms")) deadline_ms = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "--upload"))
            snprintf(upload_path, sizeof upload_path, "%s", argv[a + 1]);
        else if (!strcmp(argv[a], "--upload-sha"))
            snprintf(upload_sha, sizeof upload_sha, "%s", argv[a + 1]);
        else return fprintf(stderr, "unknown option %s\n", argv[a]), 2;
    }
    if (!base || !direct || !upload_path[0] || total < 10 || window < 1) {
        fprintf(stderr, "usage: chaos --base URL --direct URL --upload FILE --upload-sha HEX [--shape "
                        "CMD] [-n N]\n");
        return 2;
    }
    for (int b = 0; b < DL_BYTES; b++) expected_dl[b] = (unsigned char)(b % 251);
    slots = calloc((size_t)total, sizeof *slots);
    char config[1024];
    nc_error *err = NULL;
    /* idle_timeout_ms is the library's default, 15 s. At 64 kbit/s one FIFO queue
     * (tc tbf: this kernel has no per-flow qdisc) carries 16-24 connections'
     * uploads and downloads with 5 % loss; one connection's bytes can wait behind
     * the others' and its retransmissions back off, so it may hear nothing for
     * longer than 8 s (the earlier value: one POST so timed out in a loaded run)
     * while the link moves. A real 2G link with a FIFO does the same to an app. The
     * black hole (run.sh: 17 s, 20 s in the full run) outlasts it, so requests in
     * flight then are cut and retried, and downloads resumed. */
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\","
             "\"data\":\"data\"},"
             "\"connect_timeout_ms\":5000,\"idle_timeout_ms\":15000,\"coalesce\":false,"
             "\"retry\":{\"max_attempts\":6,\"initial_ms\":250,\"max_delay_ms\":3000},\"cache\":{}}",
             base);
    if (nc_client_new(config, &client, &err) != NC_OK) {
        fprintf(stderr, "client: %s\n", nc_error_message(err));
        return 2;
    }
    double t0 = now_s();
    long next = 0, rss_early = 0;
    long bh_at = total * 4 / 10, slow_from = total * 6 / 10, slow_to = slow_from + slow_n;
    pthread_mutex_lock(&mu);
    while (finished < total) {
        while (next < total && in_flight < window) {
            if (next == bh_at && bh_on < 0) {
                pthread_mutex_unlock(&mu);
                run_shape("blackhole on");
                pthread_mutex_lock(&mu);
                bh_on = now_s();
                fprintf(stderr, "chaos: black hole on at request %ld (%.1f s)\n", next, bh_on - t0);
            }
            if (next == slow_from) {
                pthread_mutex_unlock(&mu);
                run_shape("rate 64");
                pthread_mutex_lock(&mu);
                fprintf(stderr, "chaos: 64 kbit/s from request %ld (%.1f s)\n", next, now_s() - t0);
            }
            if (next == slow_to) {
                pthread_mutex_unlock(&mu);
                run_shape("rate off");
                pthread_mutex_lock(&mu);
                fprintf(stderr, "chaos: full rate from request %ld (%.1f s)\n", next, now_s() - t0);
            }
            if (next == total / 5) rss_early = rss_kb();
            in_flight++;
            pthread_mutex_unlock(&mu);
            int rc = send_one(next);
            pthread_mutex_lock(&mu);
            if (rc != 0) {
                in_flight--;
                finished++;
                fail("request %ld: nc_client_send refused it", next);
            }
            next++;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&cv, &mu, &until);
        if (bh_on >= 0 && bh_off < 0 && now_s() - bh_on >= blackhole_s) {
            pthread_mutex_unlock(&mu);
            run_shape("blackhole off");
            pthread_mutex_lock(&mu);
            bh_off = now_s();
            fprintf(stderr, "chaos: black hole off (%.1f s)\n", bh_off - t0);
        }
        if (now_s() - t0 > 1800) {
            fail("not finished after 30 minutes: %ld of %ld completed", finished, total);
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    if (bh_on >= 0 && bh_off < 0) {
        run_shape("blackhole off");
        bh_off = now_s();
    }
    double elapsed = now_s() - t0;
    long rss_end = rss_kb();
    run_shape("clear");

    /* ---------------------------------------------------------------- checks */
    nc_client *dc = NULL;
    snprintf(config, sizeof config, "{\"base_url\":\"%s\",\"timeout_ms\":30000}", direct);
    if (nc_client_new(config, &dc, &err) != NC_OK) return fprintf(stderr, "direct client\n"), 2;
    char *stats = get_direct(dc, "/chaos/stats");
    long ok = 0, retried = 0, by_domain[8] = {0}, idle_fired = 0, post_retried = 0, resumed = 0;
    double *lat = calloc((size_t)total, sizeof *lat);
    long nlat = 0;
    for (long i = 0; i < total; i++) {
        slot_t *s = &slots[i];
        int c = atomic_load(&s->completions);
        if (c != 1) {
            fail("request %ld (%s): %d completions", i, kind_name[s->kind], c);
            continue;
        }
        lat[nlat++] = s->done - s->sent;
        if (atomic_load(&s->cached) > 1 || atomic_load(&s->cached_after) > 0)
            fail("request %ld: %d cached callbacks, %d after the completion", i, atomic_load(&s->cached),
                 atomic_load(&s->cached_after));
        if ((s->done - s->sent) * 1000 > deadline_ms + 1000)
            fail("request %ld (%s): completed %.2f s after its send, deadline %.0f ms", i,
                 kind_name[s->kind], s->done - s->sent, deadline_ms);
        if (s->attempts > 1) retried++;
        if (s->idle) {
            idle_fired++;
            int overlaps = bh_on >= 0 && s->sent < bh_off + 1 && s->done > bh_on;
            if (!overlaps)
                fail("request %ld (%s): idle timeout away from the black hole (%.1f-%.1f s): %s", i,
                     kind_name[s->kind], s->sent - t0, s->done - t0, s->msg);
        }
        if (s->ok) {
            ok++;
            if (s->msg[0]) fail("request %ld (%s): %s", i, kind_name[s->kind], s->msg);
        } else {
            if (s->domain >= 0 && s->domain < 8) by_domain[s->domain]++;
            fprintf(stderr,
                    "chaos: request %ld (%s) failed after %d attempt(s), %.1f-%.1f s: %d/%lld %s\n", i,
                    kind_name[s->kind], s->attempts, s->sent - t0, s->done - t0, s->domain, s->code,
                    s->msg);
            if (s->domain != NC_DOMAIN_TRANSPORT && !(s->domain == NC_DOMAIN_CLIENT && s->deadline_hit))
                fail("request %ld (%s): unexpected error domain %d code %lld: %s", i, kind_name[s->kind],
                     s->domain, s->code, s->msg);
        }
        if (stats && (s->kind == K_POST || s->kind == K_POST_KEY)) {
            int arrivals = count_in(stats, "\"arrivals\"", s->key);
            if (s->kind == K_POST && arrivals > 1)
                fail("POST %s (no Idempotency-Key) reached the server %d times", s->key, arrivals);
            if (s->ok && arrivals < 1) fail("POST %s succeeded but never reached the server", s->key);
            if (s->kind == K_POST_KEY && arrivals > 1) post_retried++;
        }
        if (s->kind == K_DOWNLOAD) {
            char file[600];
            snprintf(file, sizeof file, "%s/dl-%ld", dir, i);
            if (s->ok) {
                FILE *f = fopen(file, "rb");
                static unsigned char got[DL_BYTES + 1];
                size_t n = f ? fread(got, 1, sizeof got, f) : 0;
                if (f) fclose(f);
                if (n != DL_BYTES || memcmp(got, expected_dl, DL_BYTES) != 0)
                    fail("download %ld: %zu bytes, not the %d served (or different bytes)", i, n,
                         DL_BYTES);
                char q[128];
                snprintf(q, sizeof q, "/dl/stats?key=%s", s->key);
                char *ds = get_direct(dc, q);
                if (ds && json_int(ds, "range_requests", 0) > 0) resumed++;
                free(ds);
            }
            unlink(file);
        }
    }
    free(stats);
    nc_client_free(dc);
    nc_client_free(client);
    for (long i = 0; i < total; i++)
        if (atomic_load(&slots[i].completions) != 1)
            fail("request %ld: %d completions after nc_client_free", i,
                 atomic_load(&slots[i].completions));
    if (rss_end - rss_early > 16 * 1024)
        fail("resident set grew by %ld KiB between 20 %% of the requests and the end",
             rss_end - rss_early);
    qsort(lat, (size_t)nlat, sizeof *lat, cmp_double);
    double p50 = nlat ? lat[nlat / 2] : 0,
           p99 = nlat ? lat[(nlat * 99) / 100 < nlat ? (nlat * 99) / 100 : nlat - 1] : 0;
    printf(
        "{\"requests\":%ld,\"completed\":%ld,\"ok\":%ld,\"retried\":%ld,\"failed\":{\"client\":%ld,"
        "\"transport\":%ld,"
        "\"http\":%ld,\"api\":%ld,\"parse\":%ld},\"idle_timeouts\":%ld,\"post_idem_arrived_twice\":%ld,"
        "\"downloads_resumed\":%ld,\"p50_s\":%.3f,\"p99_s\":%.3f,\"seconds\":%.1f,\"rss_kib\":[%ld,%ld],"
        "\"failed_checks\":%d}\n",
        total, nlat, ok, retried, by_domain[NC_DOMAIN_CLIENT], by_domain[NC_DOMAIN_TRANSPORT],
        by_domain[NC_DOMAIN_HTTP], by_domain[NC_DOMAIN_API], by_domain[NC_DOMAIN_PARSE], idle_fired,
        post_retried, resumed, p50, p99, elapsed, rss_early, rss_end, failures);
    free(lat);
    free(slots);
    return failures ? 1 : 0;
}
