/* appmix.c — workload 8 of the benchmark (bench/README.md): an app's traffic.
 *
 *   appmix --peer raw|nc --base http://127.0.0.1:PORT [-n N] [-c 64] [--time-limit S]
 *
 * 64 "screens" share one client, each asking for its next resource as soon as its
 * last one arrived. Request i (0, 1, 2, … handed out in order) is, by i % 3:
 *   0  a list: /list?id=(i / 192) % 8 — about 64 consecutive list requests name the
 *      same list, so several screens ask for it while it is in flight (the server
 *      says no-store: only coalescing can save these);
 *   1  a cacheable resource: /res?id=h(i) % 256 (max-age=1, an ETag; 304 when
 *      revalidated with If-None-Match);
 *   2  a unique item: /item?id=i.
 * Both peers send the same sequence and check every answer is an ok envelope (a
 * 304 revalidation completes with the stored body in nc).
 *   raw  libcurl multi, 64 easy handles reused (keep-alive), the body parsed with
 *        jansson: what a careful C programmer writes without a cache;
 *   nc   one nc_client (coalescing on, its default; a 16 MiB memory cache), the
 *        cacheable resources sent with NC_CACHE_ELSE_NETWORK, the others with the
 *        default NETWORK_ONLY; each completion sends the screen's next request.
 * Prints one JSON line: completed requests, seconds, requests per second, errors,
 * the first error. Server hits are read by bench/appmix.sh from /_stats. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <jansson.h>
#include <netcore.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *base = "http://127.0.0.1:8080";
static long total = 30000, slots = 64;
static double time_limit = 120;
static char first_error[512];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note(const char *what) {
    if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", what);
}

/* request i's kind (0 list, 1 cacheable, 2 unique) and URL */
static int url_of(long i, char *out, size_t cap) {
    int kind = (int)(i % 3);
    if (kind == 0) snprintf(out, cap, "%s/list?id=%ld", base, (i / 192) % 8);
    else if (kind == 1)
        snprintf(out, cap, "%s/res?id=%u", base, (unsigned)((uint32_t)i * 2654435761u >> 8) % 256u);
    else snprintf(out, cap, "%s/item?id=%ld", base, i);
    return kind;
}

/* ------------------------------------------------------------------ raw libcurl */

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    buf_t *b = ud;
    size_t n = size * nmemb;
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 8192;
        while (c < b->len + n + 1) c *= 2;
        char *q = realloc(b->p, c);
        if (!q) return 0;
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return n;
}

static int ok_envelope(const char *p, size_t len) {
    json_error_t jerr;
    json_t *root = json_loadb(p, len, 0, &jerr);
    int ok = root && json_is_object(root) && json_is_integer(json_object_get(root, "code")) &&
             json_integer_value(json_object_get(root, "code")) == 0 && json_object_get(root, "data");
    json_decref(root);
    return ok;
}

static void raw_start(CURLM *m, CURL *e, buf_t *b, long i) {
    char url[256];
    url_of(i, url, sizeof url);
    b->len = 0;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_multi_add_handle(m, e);
}

static void run_raw(long *done_out, long *errors_out) {
    CURLM *m = curl_multi_init();
    CURL **easy = calloc((size_t)slots, sizeof *easy);
    buf_t *bufs = calloc((size_t)slots, sizeof *bufs);
    long next = 0, done = 0, errors = 0, running_n = 0;
    double deadline = now_s() + time_limit;
    for (long s = 0; s < slots && next < total; s++) {
        easy[s] = curl_easy_init();
        curl_easy_setopt(easy[s], CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(easy[s], CURLOPT_WRITEDATA, &bufs[s]);
        curl_easy_setopt(easy[s], CURLOPT_PRIVATE, &bufs[s]);
        curl_easy_setopt(easy[s], CURLOPT_NOSIGNAL, 1L);
        raw_start(m, easy[s], &bufs[s], next++);
        running_n++;
    }
    while (running_n > 0) {
        int still = 0, left = 0;
        curl_multi_perform(m, &still);
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *e = msg->easy_handle;
            buf_t *b = NULL;
            curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&b);
            long status = 0;
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
            if (msg->data.result != CURLE_OK) {
                errors++;
                note(curl_easy_strerror(msg->data.result));
            } else if (status != 200 || !ok_envelope(b->p, b->len)) {
                errors++;
                note("raw: not an ok envelope");
            }
            done++;
            curl_multi_remove_handle(m, e);
            if (next < total && now_s() < deadline) raw_start(m, e, b, next++);
            else running_n--;
        }
        if (running_n > 0) curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    for (long s = 0; s < slots; s++) {
        if (easy[s]) curl_easy_cleanup(easy[s]);
        free(bufs[s].p);
    }
    free(easy);
    free(bufs);
    curl_multi_cleanup(m);
    *done_out = done;
    *errors_out = errors;
}

/* ------------------------------------------------------------------ libnetcore */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    nc_client *client;
    long next, done, errors, in_flight;
    double deadline;
} nc_run;

static void nc_done(const nc_response *resp, const nc_error *err, void *ud);

/* sends request `i`; 0 when it could not be sent */
static int nc_send_one(nc_run *r, long i) {
    char url[256];
    int kind = url_of(i, url, sizeof url);
    nc_request *q = NULL;
    if (nc_request_new("GET", url, &q) != NC_OK) return 0;
    if (kind == 1) nc_request_set_cache_policy(q, NC_CACHE_ELSE_NETWORK);
    nc_status s = nc_client_send(r->client, q, nc_done, r, NULL);
    nc_request_free(q);
    return s == NC_OK;
}

static void nc_done(const nc_response *resp, const nc_error *err, void *ud) {
    nc_run *r = ud;
    int good = !err && nc_response_data(resp) != NULL;
    pthread_mutex_lock(&r->mu);
    r->done++;
    if (!good) {
        r->errors++;
        note(err ? nc_error_message(err) : "nc: no data");
    }
    long i = -1;
    if (r->next < total && now_s() < r->deadline) i = r->next++;
    else r->in_flight--;
    pthread_mutex_unlock(&r->mu);
    if (i >= 0 && !nc_send_one(r, i)) {
        pthread_mutex_lock(&r->mu);
        r->errors++;
        r->in_flight--;
        note("nc_client_send failed");
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    if (r->in_flight == 0) pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void run_nc(long *done_out, long *errors_out) {
    nc_run r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    nc_error *err = NULL;
    const char *config = "{\"envelope\":{},\"compression\":false,"
                         "\"limits\":{\"max_connections_per_host\":0},"
                         "\"cache\":{\"memory_bytes\":16777216}}";
    if (nc_client_new(config, &r.client, &err) != NC_OK) {
        fprintf(stderr, "nc_client_new: %s\n", nc_error_message(err));
        exit(1);
    }
    r.deadline = now_s() + time_limit;
    pthread_mutex_lock(&r.mu);
    long first = slots < total ? slots : total;
    r.next = first;
    r.in_flight = first;
    pthread_mutex_unlock(&r.mu);
    for (long i = 0; i < first; i++)
        if (!nc_send_one(&r, i)) {
            pthread_mutex_lock(&r.mu);
            r.errors++;
            r.in_flight--;
            pthread_mutex_unlock(&r.mu);
        }
    pthread_mutex_lock(&r.mu);
    while (r.in_flight > 0) pthread_cond_wait(&r.cv, &r.mu);
    *done_out = r.done;
    *errors_out = r.errors;
    pthread_mutex_unlock(&r.mu);
    nc_client_free(r.client);
}

int main(int argc, char **argv) {
    const char *peer = "raw";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--peer")) peer = argv[i + 1];
        else if (!strcmp(argv[i], "--base")) base = argv[i + 1];
        else if (!strcmp(argv[i], "-n")) total = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-c")) slots = atol(argv[i + 1]) > 0 ? atol(argv[i + 1]) : 1;
        else if (!strcmp(argv[i], "--time-limit")) time_limit = atof(argv[i + 1]);
        else {
            fprintf(stderr, "usage: %s --peer raw|nc --base URL [-n N] [-c C] [--time-limit S]\n",
                    argv[0]);
            return 2;
        }
    }
    curl_global_init(CURL_GLOBAL_ALL);
    long done = 0, errors = 0;
    double t0 = now_s();
    if (!strcmp(peer, "nc")) run_nc(&done, &errors);
    else run_raw(&done, &errors);
    double secs = now_s() - t0;
    printf("{\"workload\":\"appmix\",\"peer\":\"%s\",\"c\":%ld,\"n\":%ld,\"done\":%ld,\"errors\":%ld,"
           "\"seconds\":%.3f,\"rps\":%.1f,\"first_error\":",
           !strcmp(peer, "nc") ? "nc-capi" : "raw-curl", slots, total, done, errors, secs, done / secs);
    json_t *fe = json_string(first_error);
    char *fes = json_dumps(fe, JSON_ENCODE_ANY);
    printf("%s}\n", fes ? fes : "\"\"");
    free(fes);
    json_decref(fe);
    curl_global_cleanup();
    return errors ? 1 : 0;
}
