/*
 * c_api_test.c — the C API exercised through include/netcore.h, as a C user
 * sees it, against the loopback mock server (Tests/Support/mock_server.py).
 *
 *   usage: c_api_test http://127.0.0.1:<port>/api
 *
 * Prints one line per failed check and "N passed, M failed" as the last line;
 * exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <dirent.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netcore.h"

/* ---- checks ------------------------------------------------------------- */

static int g_passed, g_failed;
static const char *g_ctx = ""; /* what is being tested, printed with a failure */

static int check(int ok, const char *expr, int line) {
    if (ok) {
        g_passed++;
    } else {
        g_failed++;
        printf("FAIL %s:%d [%s] %s\n", __FILE__, line, g_ctx, expr);
    }
    return ok;
}

static int check_int(long long got, long long want, const char *expr, int line) {
    if (got == want) return check(1, expr, line);
    g_failed++;
    printf("FAIL %s:%d [%s] %s == %lld, want %lld\n", __FILE__, line, g_ctx, expr, got, want);
    return 0;
}

/* want == NULL: expect NULL. */
static int check_str(const char *got, const char *want, const char *expr, int line) {
    if ((got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0))
        return check(1, expr, line);
    g_failed++;
    printf("FAIL %s:%d [%s] %s == %s%s%s, want %s%s%s\n", __FILE__, line, g_ctx, expr, got ? "\"" : "",
           got ? got : "NULL", got ? "\"" : "", want ? "\"" : "", want ? want : "NULL",
           want ? "\"" : "");
    return 0;
}

/* want_text == NULL: expect NULL; otherwise `got` must equal the parsed JSON. */
static int check_json(const json_t *got, const char *want_text, const char *expr, int line) {
    json_t *want = want_text ? json_loads(want_text, JSON_DECODE_ANY, NULL) : NULL;
    int ok = (got == NULL && want == NULL) || (got && want && json_equal(got, want));
    if (!ok) {
        char *dump = got ? json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        g_failed++;
        printf("FAIL %s:%d [%s] %s == %s, want %s\n", __FILE__, line, g_ctx, expr, dump ? dump : "NULL",
               want_text ? want_text : "NULL");
        free(dump);
    } else {
        g_passed++;
    }
    json_decref(want);
    return ok;
}

/* JSON text (may be NULL) compared as JSON. */
static int check_json_text(const char *got, const char *want_text, const char *expr, int line) {
    json_t *parsed = got ? json_loads(got, JSON_DECODE_ANY, NULL) : NULL;
    int ok;
    if (got && !parsed) {
        g_failed++;
        printf("FAIL %s:%d [%s] %s is not JSON: %s\n", __FILE__, line, g_ctx, expr, got);
        return 0;
    }
    ok = check_json(parsed, want_text, expr, line);
    json_decref(parsed);
    return ok;
}

#define CHECK(c)              check(!!(c), #c, __LINE__)
#define CHECK_INT(a, b)       check_int((long long)(a), (long long)(b), #a, __LINE__)
#define CHECK_STR(a, b)       check_str((a), (b), #a, __LINE__)
#define CHECK_JSON(a, b)      check_json((a), (b), #a, __LINE__)
#define CHECK_JSON_TEXT(a, b) check_json_text((a), (b), #a, __LINE__)

/* ---- helpers ------------------------------------------------------------ */

static const char *g_base; /* http://127.0.0.1:<port>/api */
static pthread_t g_main_thread;

static const char *ENVELOPE_A =
    "{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}";
static const char *ENVELOPE_B = "{\"success\":\"success\",\"code\":\"code\",\"message\":\"msg\","
                                "\"data\":\"data\",\"trace_id\":\"traceId\"}";
static const char *ENVELOPE_C = "{\"status\":\"status\",\"ok_status\":[\"OK\"],"
                                "\"code\":\"errorCode\",\"ok_codes\":[\"0\"],"
                                "\"message\":\"errorMsg\",\"data\":\"content\"}";

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A client with base_url, the given envelope (NULL: none) and extra members. */
static nc_client *make_client(const char *envelope, const char *extra) {
    char config[2048];
    nc_client *client = NULL;
    nc_error *err = NULL;
    snprintf(config, sizeof config, "{\"base_url\":\"%s\"%s%s%s%s}", g_base,
             envelope ? ",\"envelope\":" : "", envelope ? envelope : "", extra ? "," : "",
             extra ? extra : "");
    if (nc_client_new(config, &client, &err) != NC_OK) {
        printf("FAIL cannot create a client from %s: %s\n", config, nc_error_message(err));
        g_failed++;
        nc_error_free(err);
        return NULL;
    }
    return client;
}

static nc_status get(nc_client *client, const char *path, nc_response **resp, nc_error **err) {
    nc_request *req = NULL;
    nc_status st;
    *resp = NULL;
    *err = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) return -1;
    st = nc_client_send_sync(client, req, resp, err);
    nc_request_free(req);
    return st;
}

/* GET `path`, expect success with data equal to `data`. */
static void expect_ok(nc_client *client, const char *path, const char *data) {
    nc_response *resp;
    nc_error *err;
    g_ctx = path;
    if (!CHECK_INT(get(client, path, &resp, &err), NC_OK))
        printf("     error: %s\n", nc_error_json(err));
    CHECK(err == NULL);
    if (CHECK(resp != NULL)) {
        CHECK_INT(nc_response_status(resp), 200);
        CHECK_JSON(nc_response_data(resp), data);
        CHECK_JSON_TEXT(nc_response_data_json(resp, NULL), data);
    }
    nc_response_free(resp);
    nc_error_free(err);
}

/* GET `path`, expect an error with exactly these fields (data: JSON text or NULL). */
static void expect_error(nc_client *client, const char *path, nc_domain domain, long long code,
                         const char *code_str, const char *message, const char *trace, int http_status,
                         const char *data) {
    nc_response *resp;
    nc_error *err;
    json_t *all;
    g_ctx = path;
    CHECK_INT(get(client, path, &resp, &err), NC_ERR_FAILED);
    if (!CHECK(err != NULL)) {
        nc_response_free(resp);
        return;
    }
    CHECK_INT(nc_error_domain(err), domain);
    CHECK_INT(nc_error_code(err), code);
    CHECK_STR(nc_error_code_str(err), code_str);
    if (message) CHECK_STR(nc_error_message(err), message);
    CHECK(nc_error_message(err) != NULL && nc_error_message(err)[0] != '\0');
    CHECK_STR(nc_error_trace_id(err), trace);
    CHECK_INT(nc_error_http_status(err), http_status);
    CHECK_JSON(nc_error_data(err), data);
    CHECK_JSON_TEXT(nc_error_data_json(err, NULL), data);
    CHECK_INT(nc_error_attempts(err), 1);
    /* a received body comes with its response */
    if (CHECK(resp != NULL)) CHECK_INT(nc_response_status(resp), http_status);
    all = json_loads(nc_error_json(err) ? nc_error_json(err) : "", 0, NULL);
    if (CHECK(json_is_object(all))) {
        CHECK_STR(json_string_value(json_object_get(all, "domain")), nc_error_domain_name(err));
        CHECK_STR(json_string_value(json_object_get(all, "code_str")), code_str);
    }
    json_decref(all);
    nc_response_free(resp);
    nc_error_free(err);
}

/* ---- envelope shapes ---------------------------------------------------- */

static void test_shape_a(void) {
    nc_client *c = make_client(ENVELOPE_A, "\"headers\":{\"X-Test\":\"c\"}");
    nc_response *resp;
    nc_error *err;
    size_t len = 0;
    if (!c) return;
    expect_ok(c, "/env/code/ok", "{\"id\":7,\"name\":\"Ada\"}");
    expect_ok(c, "/env/code/string-ok", "[1,2]"); /* "0" matches ok code 0 */
    expect_ok(c, "/env/code/nodata", "null");
    expect_error(c, "/env/code/fail", NC_DOMAIN_API, 1001, "1001", "wrong password", NULL, 200,
                 "{\"field\":\"password\"}");
    expect_error(c, "/env/code/string", NC_DOMAIN_API, 0, "E1001", "account locked", NULL, 200, NULL);
    expect_error(c, "/env/code/missing", NC_DOMAIN_PARSE, NC_PARSE_MISSING_FIELD, "3", NULL, NULL, 200,
                 NULL);
    /* a valid envelope wins over the HTTP status; envelope.trace_id defaults to "traceId" */
    expect_error(c, "/status/500?body=envelope&code=5001", NC_DOMAIN_API, 5001, "5001", "server busy",
                 "trace-500", 500, "{\"retry\":true}");
    expect_error(c, "/status/404", NC_DOMAIN_HTTP, 404, "404", NULL, NULL, 404, NULL);

    /* response accessors on a success */
    g_ctx = "shape A response accessors";
    if (CHECK_INT(get(c, "/env/code/ok", &resp, &err), NC_OK) && CHECK(resp != NULL)) {
        const char *body = nc_response_body(resp, &len);
        const char *name = NULL, *value = NULL;
        CHECK_STR(body, "{\"code\":0,\"msg\":\"ok\",\"data\":{\"id\":7,\"name\":\"Ada\"}}");
        CHECK_INT(len, strlen("{\"code\":0,\"msg\":\"ok\",\"data\":{\"id\":7,\"name\":\"Ada\"}}"));
        CHECK_STR(nc_response_header(resp, "content-TYPE"), "application/json; charset=utf-8");
        CHECK_STR(nc_response_header(resp, "X-Absent"), NULL);
        CHECK(nc_response_header_count(resp) >= 3);
        CHECK_INT(nc_response_header_at(resp, 0, &name, &value), NC_OK);
        CHECK(name != NULL && value != NULL);
        CHECK_INT(nc_response_header_at(resp, nc_response_header_count(resp), &name, &value),
                  NC_ERR_INVALID_ARGUMENT);
        CHECK_JSON(nc_response_json(resp),
                   "{\"code\":0,\"msg\":\"ok\",\"data\":{\"id\":7,\"name\":\"Ada\"}}");
        CHECK_INT(nc_response_from_cache(resp), 0);
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
}

static void test_shape_b(void) {
    nc_client *c = make_client(ENVELOPE_B, NULL);
    if (!c) return;
    expect_ok(c, "/env/success/ok", "{\"id\":42}");
    expect_error(c, "/env/success/fail", NC_DOMAIN_API, 4003, "4003", "forbidden", "trace-fail-1", 200,
                 "{\"reason\":\"scope\"}");
    nc_client_free(c);
}

static void test_shape_c(void) {
    nc_client *c = make_client(ENVELOPE_C, NULL);
    if (!c) return;
    expect_ok(c, "/env/status/ok", "{\"items\":[1,2,3]}");
    expect_error(c, "/env/status/fail", NC_DOMAIN_API, 0, "E42", "quota exceeded", NULL, 200, NULL);
    /* status OK but errorCode "7" is not an ok code */
    expect_error(c, "/env/status/badcode", NC_DOMAIN_API, 7, "7", "partial", NULL, 200, NULL);
    nc_client_free(c);
}

static void test_raw_mode(void) {
    nc_client *c = make_client(NULL, NULL);
    if (!c) return;
    expect_ok(c, "/env/code/fail",
              "{\"code\":1001,\"msg\":\"wrong password\","
              "\"data\":{\"field\":\"password\"}}");
    expect_error(c, "/status/503?body=text", NC_DOMAIN_HTTP, 503, "503", NULL, NULL, 503, NULL);
    nc_client_free(c);
}

/* ---- queue mode --------------------------------------------------------- */

enum { QN = 20 };
typedef struct {
    int count;
    int on_main;
    int success;
    nc_domain domain;
    int64_t code;
} slot;

static void queue_cb(const nc_response *resp, const nc_error *err, void *userdata) {
    slot *s = userdata;
    s->count++;
    s->on_main = pthread_equal(pthread_self(), g_main_thread);
    s->success = err == NULL && resp != NULL;
    s->domain = nc_error_domain(err);
    s->code = nc_error_code(err);
}

static int total(const slot *s, int n) {
    int i, sum = 0;
    for (i = 0; i < n; i++) sum += s[i].count;
    return sum;
}

static int readable(int fd, int timeout_ms) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* Polls the fd and dispatches until `want` callbacks ran or 10 s passed. */
static void pump(nc_client *c, const slot *s, int n, int want) {
    double deadline = now_ms() + 10000;
    while (total(s, n) < want && now_ms() < deadline)
        if (readable(nc_client_fd(c), 100)) CHECK_INT(nc_client_dispatch(c), NC_OK);
}

static void test_queue_mode(void) {
    slot s[QN], one;
    nc_client *c = make_client(ENVELOPE_A, "\"callbacks\":\"queue\"");
    nc_client *loop = make_client(ENVELOPE_A, NULL);
    nc_request *req = NULL;
    nc_task *task = NULL;
    int i, fd;

    g_ctx = "queue mode";
    memset(s, 0, sizeof s);
    memset(&one, 0, sizeof one);
    if (!c || !loop) goto out;
    CHECK_INT(nc_client_fd(loop), -1);
    CHECK_INT(nc_client_dispatch(loop), NC_ERR_INVALID_STATE);
    fd = nc_client_fd(c);
    CHECK(fd >= 0);
    CHECK_INT(nc_client_dispatch(c), NC_OK); /* nothing queued: still NC_OK */
    CHECK(!readable(fd, 0));

    CHECK_INT(nc_request_new("GET", "/env/code/ok", &req), NC_OK);
    for (i = 0; i < QN; i++) CHECK_INT(nc_client_send(c, req, queue_cb, &s[i], NULL), NC_OK);
    sleep_ms(200);
    CHECK_INT(total(s, QN), 0); /* nothing runs outside nc_client_dispatch() */
    CHECK(readable(fd, 5000));
    pump(c, s, QN, QN);
    CHECK_INT(total(s, QN), QN);
    for (i = 0; i < QN; i++) {
        CHECK_INT(s[i].count, 1);
        CHECK(s[i].on_main);
        CHECK(s[i].success);
    }
    CHECK(!readable(fd, 0)); /* drained: the fd is quiet again */
    sleep_ms(50);
    CHECK_INT(nc_client_dispatch(c), NC_OK);
    CHECK_INT(total(s, QN), QN); /* still exactly once each */

    /* cancel in queue mode: returns at once, the completion waits for dispatch */
    g_ctx = "queue mode cancel";
    nc_request_free(req);
    req = NULL;
    CHECK_INT(nc_request_new("GET", "/slow?ms=3000", &req), NC_OK);
    CHECK_INT(nc_client_send(c, req, queue_cb, &one, &task), NC_OK);
    sleep_ms(50);
    nc_task_cancel(task);
    CHECK_INT(one.count, 0);
    pump(c, &one, 1, 1);
    CHECK_INT(one.count, 1);
    CHECK_INT(one.domain, NC_DOMAIN_CLIENT);
    CHECK_INT(one.code, NC_CLIENT_CANCELLED);
    nc_task_cancel(task); /* idempotent */
    CHECK_INT(nc_client_dispatch(c), NC_OK);
    CHECK_INT(one.count, 1);

    /* completions still queued run inside nc_client_free() on the calling thread */
    g_ctx = "queue mode free";
    memset(s, 0, sizeof s);
    nc_request_free(req);
    req = NULL;
    CHECK_INT(nc_request_new("GET", "/env/code/ok", &req), NC_OK);
    for (i = 0; i < 3; i++) CHECK_INT(nc_client_send(c, req, queue_cb, &s[i], NULL), NC_OK);
    CHECK(readable(fd, 5000));
    sleep_ms(300); /* let all three reach the queue */
    nc_client_free(c);
    c = NULL;
    for (i = 0; i < 3; i++) {
        CHECK_INT(s[i].count, 1);
        CHECK(s[i].on_main);
    }
out:
    nc_task_free(task);
    nc_request_free(req);
    nc_client_free(c);
    nc_client_free(loop);
}

/* ---- loop mode callbacks ------------------------------------------------ */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count;
    nc_client *client; /* for the re-entrancy checks */
    const nc_request *req;
    nc_status sync_status; /* nc_client_send_sync() from inside the callback */
    nc_domain domain;
    int64_t code;
} waiter;

static void waiter_init(waiter *w) {
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->cond, NULL);
}

static void waiter_destroy(waiter *w) {
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mutex);
}

static void loop_cb(const nc_response *resp, const nc_error *err, void *userdata) {
    waiter *w = userdata;
    (void)resp;
    if (w->client) {
        w->sync_status = nc_client_send_sync(w->client, w->req, NULL, NULL);
        nc_client_free(w->client); /* refused inside a callback: the client stays usable */
    }
    pthread_mutex_lock(&w->mutex);
    w->count++;
    w->domain = nc_error_domain(err);
    w->code = nc_error_code(err);
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mutex);
}

static int waiter_count(waiter *w, int want, int timeout_ms) {
    double deadline = now_ms() + timeout_ms;
    int n;
    pthread_mutex_lock(&w->mutex);
    while (w->count < want && now_ms() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&w->cond, &w->mutex, &ts);
    }
    n = w->count;
    pthread_mutex_unlock(&w->mutex);
    return n;
}

static void test_loop_callbacks(void) {
    nc_client *c = make_client(ENVELOPE_A, NULL);
    nc_request *req = NULL;
    nc_task *task = NULL;
    nc_error *err = NULL;
    waiter w;

    waiter_init(&w);
    if (!c) goto out;
    g_ctx = "callback re-entrancy";
    CHECK_INT(nc_request_new("GET", "/env/code/ok", &req), NC_OK);
    w.client = c;
    w.req = req;
    CHECK_INT(nc_client_send(c, req, loop_cb, &w, NULL), NC_OK);
    CHECK_INT(waiter_count(&w, 1, 10000), 1);
    CHECK_INT(w.sync_status, NC_ERR_INVALID_STATE);
    CHECK_INT(w.domain, 0);                                    /* success */
    CHECK_INT(nc_client_send_sync(c, req, NULL, &err), NC_OK); /* still usable */
    nc_error_free(err);
    err = NULL;

    g_ctx = "loop mode cancel";
    waiter_destroy(&w);
    waiter_init(&w);
    nc_request_free(req);
    req = NULL;
    CHECK_INT(nc_request_new("GET", "/slow?ms=3000", &req), NC_OK);
    CHECK_INT(nc_client_send(c, req, loop_cb, &w, &task), NC_OK);
    sleep_ms(50);
    nc_task_cancel(task);  /* the server would answer in 3 s */
    CHECK_INT(w.count, 1); /* the callback has returned when cancel returns */
    CHECK_INT(w.domain, NC_DOMAIN_CLIENT);
    CHECK_INT(w.code, NC_CLIENT_CANCELLED);
    nc_task_cancel(task);
    CHECK_INT(waiter_count(&w, 2, 100), 1);

    g_ctx = "relative path without base_url";
    {
        nc_client *raw = NULL;
        CHECK_INT(nc_client_new("{}", &raw, NULL), NC_OK);
        CHECK_INT(nc_client_send_sync(raw, req, NULL, &err), NC_ERR_FAILED);
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
        CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
        nc_error_free(err);
        err = NULL;
        nc_client_free(raw);
    }
out:
    nc_task_free(task);
    nc_request_free(req);
    nc_client_free(c);
    waiter_destroy(&w);
}

/* ---- shutdown with requests in flight ----------------------------------- */

enum { SN = 50 };
typedef struct {
    pthread_mutex_t *mutex;
    int count;
    nc_domain domain;
    int64_t code;
} shutdown_slot;

static void shutdown_cb(const nc_response *resp, const nc_error *err, void *userdata) {
    shutdown_slot *s = userdata;
    (void)resp;
    pthread_mutex_lock(s->mutex);
    s->count++;
    s->domain = nc_error_domain(err);
    s->code = nc_error_code(err);
    pthread_mutex_unlock(s->mutex);
}

static void test_free_in_flight(void) {
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    shutdown_slot s[SN];
    nc_task *tasks[SN];
    nc_client *c = make_client(ENVELOPE_A, NULL);
    nc_request *req = NULL;
    int i, early;

    g_ctx = "nc_client_free with 50 in flight";
    memset(s, 0, sizeof s);
    memset(tasks, 0, sizeof tasks);
    if (!c) return;
    CHECK_INT(nc_request_new("GET", "/slow?ms=3000", &req), NC_OK);
    for (i = 0; i < SN; i++) {
        s[i].mutex = &mutex;
        CHECK_INT(nc_client_send(c, req, shutdown_cb, &s[i], &tasks[i]), NC_OK);
    }
    sleep_ms(300);
    pthread_mutex_lock(&mutex);
    for (early = 0, i = 0; i < SN; i++) early += s[i].count;
    pthread_mutex_unlock(&mutex);
    CHECK_INT(early, 0);
    nc_client_free(c);         /* ends them all: the server would answer each in 3 s */
    for (i = 0; i < SN; i++) { /* no lock needed: free waited for every callback */
        CHECK_INT(s[i].count, 1);
        CHECK_INT(s[i].domain, NC_DOMAIN_CLIENT);
        CHECK_INT(s[i].code, NC_CLIENT_SHUTDOWN);
    }
    for (i = 0; i < SN; i++) { /* tasks outlive their client */
        nc_task_cancel(tasks[i]);
        nc_task_free(tasks[i]);
    }
    nc_request_free(req);
    pthread_mutex_destroy(&mutex);
}

/* ---- bad input ---------------------------------------------------------- */

static void noop_cb(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp, (void)err, (void)userdata;
}

static void test_null_arguments(void) {
    nc_client *c = make_client(ENVELOPE_A, "\"environments\":{\"dev\":\"http://127.0.0.1:1\"}");
    nc_client *client = NULL;
    nc_request *r = NULL, *r2 = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_task *task = NULL;
    json_t *obj = json_object(), *arr = json_array();
    const char *name = "untouched", *value = "untouched";
    size_t len = 12345;

    g_ctx = "NULL arguments";
    /* versions and status names */
    CHECK(nc_version() != NULL);
    CHECK_STR(nc_status_str(NC_OK), "NC_OK");
    CHECK_STR(nc_status_str(NC_ERR_INVALID_ARGUMENT), "NC_ERR_INVALID_ARGUMENT");
    CHECK_STR(nc_status_str(NC_ERR_FAILED), "NC_ERR_FAILED");
    CHECK_STR(nc_status_str(12345), "NC_UNKNOWN_STATUS");
    CHECK_STR(nc_status_str(-1), "NC_UNKNOWN_STATUS");

    /* error accessors */
    CHECK_INT(nc_error_domain(NULL), 0);
    CHECK_STR(nc_error_domain_name(NULL), "NCUnknownErrorDomain");
    CHECK_INT(nc_error_code(NULL), 0);
    CHECK_STR(nc_error_code_str(NULL), "");
    CHECK(nc_error_message(NULL) != NULL && nc_error_message(NULL)[0] != '\0');
    CHECK_INT(nc_error_http_status(NULL), 0);
    CHECK_STR(nc_error_trace_id(NULL), NULL);
    CHECK(nc_error_data(NULL) == NULL);
    CHECK(nc_error_data_json(NULL, &len) == NULL);
    CHECK_INT(len, 12345); /* not written */
    CHECK(nc_error_body(NULL, &len) == NULL);
    CHECK(nc_error_body(NULL, NULL) == NULL);
    CHECK_INT(nc_error_attempts(NULL), 0);
    CHECK_INT(nc_error_is_retryable(NULL), 0);
    CHECK_INT(nc_error_is_auth_expired(NULL), 0);
    CHECK(nc_error_json(NULL) == NULL);
    CHECK(nc_error_copy(NULL) == NULL);
    nc_error_free(NULL);

    /* client */
    CHECK_INT(nc_client_new(NULL, &client, &err), NC_ERR_INVALID_ARGUMENT);
    CHECK(client == NULL);
    if (err) CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_CONFIG);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_new("{}", NULL, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_new("{", &client, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_new("{\"bogus_key\":1}", &client, &err), NC_ERR_INVALID_ARGUMENT);
    CHECK(client == NULL);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
        CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_CONFIG);
        CHECK(strstr(nc_error_message(err), "bogus_key") != NULL);
    }
    nc_error_free(err);
    err = NULL;
    nc_client_free(NULL);
    CHECK_INT(nc_client_set_environment(NULL, "dev"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_header(NULL, "X-A", "b"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_fd(NULL), -1);
    CHECK_INT(nc_client_dispatch(NULL), NC_ERR_INVALID_ARGUMENT);
    if (c) {
        CHECK_INT(nc_client_set_environment(c, NULL), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_environment(c, "nope"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_environment(c, "dev"), NC_OK);
        CHECK_INT(nc_client_set_header(c, NULL, "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_header(c, "Bad Name", "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_header(c, "X-A", "b\r\nX-Injected: 1"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_header(c, "X-A", "\xff\xfe"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_client_set_header(c, "X-A", "b"), NC_OK);
        CHECK_INT(nc_client_set_header(c, "X-A", NULL), NC_OK);
    }

    /* request builder */
    CHECK_INT(nc_request_new(NULL, "/x", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", NULL, &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "/x", NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("", "/x", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GE T", "/x", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "/a b", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "/a\r\nX: y", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "ftp://127.0.0.1/x", &r), NC_ERR_INVALID_ARGUMENT);
    CHECK(r == NULL); /* never written on failure */
    nc_request_free(NULL);
    CHECK_INT(nc_request_set_header(NULL, "a", "b"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_query(NULL, "a", "b"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_params_json(NULL, "{}", 2), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_params(NULL, obj), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_encoding(NULL, NC_ENCODING_JSON), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_body(NULL, "x", 1, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_timeout_ms(NULL, 10), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_envelope(NULL, 0), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_output_file(NULL, "/tmp/x"), NC_ERR_INVALID_ARGUMENT);
    if (CHECK_INT(nc_request_new("post", "/echo", &r), NC_OK)) {
        CHECK_INT(nc_request_set_header(r, NULL, "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_header(r, "a b", "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_header(r, "X-A", "b\nc"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_header(r, "X-A", "b"), NC_OK);
        CHECK_INT(nc_request_set_header(r, "X-A", NULL), NC_OK);
        CHECK_INT(nc_request_set_query(r, NULL, "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_query(r, "", "b"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_query(r, "q", "\xc3"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_query(r, "q", "1"), NC_OK);
        CHECK_INT(nc_request_set_query(r, "q", NULL), NC_OK);
        CHECK_INT(nc_request_set_params_json(r, NULL, 0), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params_json(r, NULL, 5), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params_json(r, "[1]", 3), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params_json(r, "{", 1), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params_json(r, "{\"a\":1}xyz", 7), NC_OK); /* len bytes */
        CHECK_INT(nc_request_set_params(r, NULL), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params(r, arr), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_params(r, obj), NC_OK);
        CHECK_INT(obj->refcount, 1); /* borrowed, not stolen */
        CHECK_INT(nc_request_set_encoding(r, 99), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_encoding(r, -1), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_encoding(r, NC_ENCODING_FORM), NC_OK);
        CHECK_INT(nc_request_set_body(r, NULL, 5, NULL), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_body(r, "x", 1, "text/plain\r\nX-B: 1"), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_body(r, NULL, 0, NULL), NC_OK);
        CHECK_INT(nc_request_set_timeout_ms(r, -1), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_timeout_ms(r, 5000), NC_OK);
        CHECK_INT(nc_request_set_envelope(r, 2), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_envelope(r, -1), NC_ERR_INVALID_ARGUMENT);
        CHECK_INT(nc_request_set_envelope(r, 1), NC_OK);
    }

    /* sending */
    CHECK_INT(nc_client_send(NULL, r, noop_cb, NULL, &task), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_send(c, NULL, noop_cb, NULL, &task), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_send(c, r, NULL, NULL, &task), NC_ERR_INVALID_ARGUMENT);
    CHECK(task == NULL); /* not written on failure */
    CHECK_INT(nc_client_send_sync(NULL, r, &resp, &err), NC_ERR_INVALID_ARGUMENT);
    nc_response_free(resp), nc_error_free(err);
    resp = NULL, err = NULL;
    CHECK_INT(nc_client_send_sync(c, NULL, &resp, &err), NC_ERR_INVALID_ARGUMENT);
    nc_response_free(resp), nc_error_free(err);
    resp = NULL, err = NULL;
    nc_task_cancel(NULL);
    nc_task_free(NULL);

    /* response accessors */
    CHECK_INT(nc_response_status(NULL), 0);
    CHECK(nc_response_header(NULL, "Content-Type") == NULL);
    CHECK_INT(nc_response_header_count(NULL), 0);
    CHECK_INT(nc_response_header_at(NULL, 0, &name, &value), NC_ERR_INVALID_ARGUMENT);
    CHECK_STR(name, "untouched");
    CHECK_STR(value, "untouched");
    CHECK(nc_response_body(NULL, &len) == NULL);
    CHECK(nc_response_json(NULL) == NULL);
    CHECK(nc_response_data(NULL) == NULL);
    CHECK(nc_response_data_json(NULL, &len) == NULL);
    CHECK_INT(nc_response_from_cache(NULL), 0);
    CHECK(nc_response_retain(NULL) == NULL);
    nc_response_free(NULL);

    /* a real response: NULL name, and retain/copy give independent references */
    if (c && CHECK_INT(nc_request_new("GET", "/env/code/fail", &r2), NC_OK)) {
        CHECK_INT(nc_client_set_environment(c, NULL), NC_ERR_INVALID_ARGUMENT);
        /* base_url is no longer active after "dev": send with an absolute URL */
        nc_request_free(r2);
        r2 = NULL;
        {
            char url[512];
            snprintf(url, sizeof url, "%s/env/code/fail", g_base);
            CHECK_INT(nc_request_new("GET", url, &r2), NC_OK);
        }
        if (CHECK_INT(nc_client_send_sync(c, r2, &resp, &err), NC_ERR_FAILED) && resp && err) {
            nc_response *kept = nc_response_retain(resp);
            nc_error *copy = nc_error_copy(err);
            CHECK(nc_response_header(resp, NULL) == NULL);
            nc_response_free(resp);
            nc_error_free(err);
            resp = NULL, err = NULL;
            CHECK_INT(nc_response_status(kept), 200);
            CHECK_INT(nc_error_code(copy), 1001);
            nc_response_free(kept);
            nc_error_free(copy);
        }
        /* both out-pointers may be NULL */
        CHECK_INT(nc_client_send_sync(c, r2, NULL, NULL), NC_ERR_FAILED);
    }

    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(r);
    nc_request_free(r2);
    nc_client_free(c);
    json_decref(obj);
    json_decref(arr);
}

/* ---- misbehaving servers (scripted raw responses) ------------------------ */

/* Sends `req` on `c` (sync): an error of `domain`/`code`, attempts 1, no response,
 * a message containing `part`. */
static void expect_failure(nc_client *c, const nc_request *req, nc_domain domain, long long code,
                           const char *part) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    CHECK_INT(nc_client_send_sync(c, req, &resp, &err), NC_ERR_FAILED);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_domain(err), domain);
        CHECK_INT(nc_error_code(err), code);
        CHECK_INT(nc_error_attempts(err), 1);
        if (!CHECK(strstr(nc_error_message(err), part) != NULL))
            printf("     message: %s\n", nc_error_message(err));
    }
    CHECK(resp == NULL);
    nc_response_free(resp);
    nc_error_free(err);
}

static void test_misbehaving_servers(void) {
    nc_client *c = make_client(ENVELOPE_A, NULL);
    nc_request *r = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (!c) return;

    g_ctx = "HTTP/ lines inside a header block do not reset the header limits";
    if (CHECK_INT(nc_request_new("GET", "/raw/headers-http-lines?n=10000&every=50", &r), NC_OK))
        expect_failure(c, r, NC_DOMAIN_CLIENT, NC_CLIENT_HEADERS_TOO_LARGE, "max_header_count");
    nc_request_free(r);
    r = NULL;

    g_ctx = "1xx interim responses do not reset the header limits";
    if (CHECK_INT(nc_request_new("GET", "/raw/1xx-flood?n=200&headers=1", &r), NC_OK))
        expect_failure(c, r, NC_DOMAIN_CLIENT, NC_CLIENT_HEADERS_TOO_LARGE, "max_header_count");
    nc_request_free(r);
    r = NULL;

    g_ctx = "the final response's headers are kept after 1xx ones";
    CHECK_INT(get(c, "/raw/1xx-flood?n=2&headers=2", &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) {
        CHECK_STR(nc_response_header(resp, "X-Final"), "yes");
        CHECK(nc_response_header(resp, "X-Progress-1") == NULL);
        CHECK_INT(nc_response_header_count(resp), 4);
    }
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL, err = NULL;

    g_ctx = "a POST cut off inside its header block";
    /* On a fresh client: the raw routes above close their connections without
       saying so, and a POST on such a dead kept-alive connection is (rightly)
       TRANSPORT 65, "closed without an answer", not sent again by libcurl. */
    nc_client *fresh = make_client(ENVELOPE_A, NULL);
    if (fresh && CHECK_INT(nc_request_new("POST", "/raw/truncated-headers?lines=3", &r), NC_OK)) {
        CHECK_INT(nc_request_set_body(r, "{\"order\":42}", 12, "application/json"), NC_OK);
        expect_failure(fresh, r, NC_DOMAIN_TRANSPORT, 18, "closed inside the response headers");
    }
    nc_request_free(r);
    nc_client_free(fresh);
    r = NULL;

    g_ctx = "timeout_ms bounds all redirect hops together";
    if (CHECK_INT(nc_request_new("GET", "/redirect/slow-chain?n=5&ms=300", &r), NC_OK)) {
        CHECK_INT(nc_request_set_timeout_ms(r, 1000), NC_OK);
        expect_failure(c, r, NC_DOMAIN_TRANSPORT, 28, "timeout_ms");
        g_ctx = "the same redirect chain without a timeout";
        CHECK_INT(nc_request_set_timeout_ms(r, 0), NC_OK);
        CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_OK);
        CHECK(err == NULL);
        if (CHECK(resp != NULL)) CHECK_JSON(nc_response_data(resp), "{\"redirected\":true,\"hops\":5}");
        nc_response_free(resp);
        nc_error_free(err);
    }
    nc_request_free(r);

    /* the same client serves the next request */
    expect_ok(c, "/env/code/ok", "{\"id\":7,\"name\":\"Ada\"}");
    nc_client_free(c);
}

/* ---- hooks: error handler, auth expired, events, logging ------------------ */

struct hook_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int errors, auths, completions, events, lines;
    int ends;      /* events that were "request_end" */
    int order_ok;  /* the error handler ran before the completion */
    int leaked;    /* some text contained "SECRET" */
    int info_line; /* an INFO "... => 200 (" line was seen */
    pthread_t error_thread;
};

static void hook_error(const nc_response *r, const nc_error *e, void *ud) {
    struct hook_log *h = ud;
    (void)r;
    pthread_mutex_lock(&h->lock);
    h->errors++;
    h->error_thread = pthread_self();
    if (h->completions != 0) h->order_ok = 0;
    pthread_mutex_unlock(&h->lock);
    (void)e;
}

static void hook_auth(const nc_response *r, const nc_error *e, void *ud) {
    struct hook_log *h = ud;
    (void)r;
    (void)e;
    pthread_mutex_lock(&h->lock);
    h->auths++;
    pthread_mutex_unlock(&h->lock);
}

static void hook_complete(const nc_response *r, const nc_error *e, void *ud) {
    struct hook_log *h = ud;
    (void)r;
    (void)e;
    pthread_mutex_lock(&h->lock);
    h->completions++;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

static void hook_text(const char *text, size_t len, void *ud) {
    struct hook_log *h = ud;
    pthread_mutex_lock(&h->lock);
    if (strlen(text) != len) h->leaked = 1; /* must be NUL-terminated at len */
    if (strstr(text, "SECRET")) h->leaked = 1;
    if (text[0] == '{') h->events++;
    else h->lines++;
    static const char end_prefix[] = "{\"event\":\"request_end\"";
    if (strncmp(text, end_prefix, sizeof end_prefix - 1) == 0) h->ends++;
    if (strncmp(text, "INFO GET http://127.0.0.1:", 26) == 0 && strstr(text, " => 200 ("))
        h->info_line = 1;
    pthread_mutex_unlock(&h->lock);
}

/* nc_client_send_sync, its response and error freed at once; returns its status */
static nc_status send_sync_dropping(nc_client *c, nc_request *r) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status s = nc_client_send_sync(c, r, &resp, &err);
    nc_response_free(resp);
    nc_error_free(err);
    return s;
}

static void wait_completions(struct hook_log *h, int n) {
    pthread_mutex_lock(&h->lock);
    while (h->completions < n) pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

static void test_hooks(void) {
    g_ctx = "hooks";
    struct hook_log h;
    memset(&h, 0, sizeof h);
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.cond, NULL);
    h.order_ok = 1;
    nc_client *c =
        make_client("{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\","
                    "\"auth_expired_codes\":[401001]}",
                    "\"credential_headers\":[\"X-API-Key\"]");
    if (!CHECK(c != NULL)) return;

    /* flags */
    nc_request *r = NULL;
    CHECK_INT(nc_request_new("GET", "/env/code/fail", &r), NC_OK);
    CHECK_INT(nc_request_set_flags(r, 64), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_flags(r, NC_REQUEST_SKIP_ERROR_HANDLER), NC_OK);

    /* error handler: not for a flagged request; once, before the completion, for another */
    CHECK_INT(nc_client_set_error_handler(c, hook_error, &h), NC_OK);
    nc_response *resp = NULL;
    nc_error *err = NULL;
    CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_ERR_FAILED);
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    CHECK_INT(h.errors, 0);
    CHECK_INT(nc_request_set_flags(r, 0), NC_OK);
    nc_task *task = NULL;
    CHECK_INT(nc_client_send(c, r, hook_complete, &h, &task), NC_OK);
    wait_completions(&h, 1);
    CHECK(nc_task_id(task) > 0);
    nc_task_free(task);
    CHECK_INT(h.errors, 1);
    CHECK(h.order_ok);
    CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_ERR_FAILED); /* sync: on this thread */
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    CHECK_INT(h.errors, 2);
    CHECK(pthread_equal(h.error_thread, pthread_self()));
    nc_request_free(r);

    /* auth expired: once for 20 concurrent failures (20 transfers, not one coalesced
     * transfer), again after a new Authorization */
    CHECK_INT(nc_client_set_auth_expired_handler(c, hook_auth, &h), NC_OK);
    CHECK_INT(nc_request_new("GET", "/profile", &r), NC_OK);
    CHECK_INT(nc_request_set_flags(r, NC_REQUEST_NO_COALESCE), NC_OK);
    h.completions = 0;
    for (int i = 0; i < 20; i++) CHECK_INT(nc_client_send(c, r, hook_complete, &h, NULL), NC_OK);
    wait_completions(&h, 20);
    CHECK_INT(h.auths, 1);
    CHECK_INT(h.errors, 22);
    CHECK_INT(nc_client_set_header(c, "Authorization", "Bearer SECRET-TOKEN"), NC_OK);
    h.completions = 0;
    for (int i = 0; i < 20; i++) CHECK_INT(nc_client_send(c, r, hook_complete, &h, NULL), NC_OK);
    wait_completions(&h, 20);
    CHECK_INT(h.auths, 2);
    nc_request_free(r);
    CHECK_INT(nc_client_set_error_handler(c, NULL, NULL), NC_OK);
    CHECK_INT(nc_client_set_auth_expired_handler(c, NULL, NULL), NC_OK);

    /* events and log lines: no secrets */
    CHECK_INT(nc_client_set_event_handler(c, hook_text, &h), NC_OK);
    CHECK_INT(nc_client_set_log_handler(c, NC_LOG_TRACE, hook_text, &h), NC_OK);
    CHECK_INT(nc_request_new("GET", "/echo?token=SECRET-Q&page=1&auth[token]=SECRET-N", &r), NC_OK);
    CHECK_INT(nc_request_set_header(r, "X-API-Key", "SECRET-KEY"), NC_OK);
    CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_OK);
    const char *metrics = nc_response_metrics_json(resp);
    CHECK(metrics != NULL && strstr(metrics, "\"attempts\":1") && strstr(metrics, "\"attempt_log\":[{"));
    CHECK(metrics != NULL && strstr(metrics, "SECRET") == NULL);
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    nc_request_free(r);
    CHECK_INT(h.events, 3);
    CHECK_INT(h.ends, 1);
    CHECK(h.lines >= 3);
    CHECK(h.info_line);
    CHECK(!h.leaked);
    CHECK_INT(nc_client_set_log_handler(c, 9, NULL, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_log_handler(c, NC_LOG_OFF, NULL, NULL), NC_OK);

    /* the event mask: only the kinds asked for reach the handler; a bad mask changes nothing */
    CHECK_INT(nc_client_set_event_mask(NULL, NC_EVENT_ALL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_event_mask(c, NC_EVENT_REQUEST_END), NC_OK);
    CHECK_INT(nc_client_set_event_mask(c, 0x20u), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_new("GET", "/echo", &r), NC_OK);
    h.events = h.ends = 0;
    CHECK_INT(send_sync_dropping(c, r), NC_OK);
    CHECK_INT(send_sync_dropping(c, r), NC_OK);
    CHECK_INT(h.events, 2); /* one request_end each, no start or attempt end */
    CHECK_INT(h.ends, 2);
    CHECK_INT(nc_client_set_event_mask(c, 0), NC_OK); /* installed, receives nothing */
    CHECK_INT(send_sync_dropping(c, r), NC_OK);
    CHECK_INT(h.events, 2);
    CHECK_INT(nc_client_set_event_mask(c, NC_EVENT_ALL), NC_OK);
    CHECK_INT(send_sync_dropping(c, r), NC_OK);
    CHECK_INT(h.events, 5);
    CHECK_INT(nc_client_set_event_handler(c, NULL, NULL), NC_OK);

    /* the attempt log: kept for a log at DEBUG (its lines carry the timings), not
     * for one at WARN or INFO alone, which writes no timings */
    const int32_t levels[] = {NC_LOG_WARN, NC_LOG_INFO, NC_LOG_DEBUG};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(nc_client_set_log_handler(c, levels[i], hook_text, &h), NC_OK);
        CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_OK);
        metrics = nc_response_metrics_json(resp);
        int kept = metrics != NULL && strstr(metrics, "\"attempt_log\":[{") != NULL;
        CHECK_INT(kept, levels[i] == NC_LOG_DEBUG);
        CHECK(metrics != NULL && strstr(metrics, "\"attempts\":1") != NULL);
        nc_response_free(resp);
        resp = NULL;
    }
    CHECK_INT(nc_client_set_log_handler(c, NC_LOG_OFF, NULL, NULL), NC_OK);
    nc_request_free(r);
    nc_client_free(c);
    pthread_cond_destroy(&h.cond);
    pthread_mutex_destroy(&h.lock);
}

/* --- adapters, token, signing (Since 0.3) ------------------------------------ */

struct adapter_seen {
    int calls;
    char authorization[128];
};

static nc_status add_key_adapter(nc_outgoing *out, void *userdata) {
    struct adapter_seen *seen = userdata;
    const char *auth = nc_outgoing_header(out, "Authorization");
    seen->calls++;
    snprintf(seen->authorization, sizeof seen->authorization, "%s", auth ? auth : "(none)");
    if (nc_outgoing_set_header(out, "X-Bad", "a\r\nb") != NC_ERR_INVALID_ARGUMENT) return NC_ERR_FAILED;
    return nc_outgoing_set_header(out, "X-Api-Key", "k-1");
}

static nc_status refusing_adapter(nc_outgoing *out, void *userdata) {
    (void)userdata;
    nc_outgoing_fail(out, "no key for this host");
    return NC_ERR_FAILED;
}

static void test_adapters(void) {
    struct adapter_seen seen = {0, ""};
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_request *req = NULL;
    nc_client *client;
    g_ctx = "adapters";
    client = make_client(ENVELOPE_A, "\"signing\":{\"secret\":\"mock-signing-secret\"},"
                                     "\"common_params\":{\"app\":\"shop\"}");
    if (!client) return;
    CHECK_INT(nc_client_add_adapter(client, add_key_adapter, &seen), NC_OK);
    CHECK_INT(nc_client_set_token(client, "tok-c"), NC_OK);
    /* signed request verified by the server, after token and adapter */
    if (CHECK_INT(get(client, "/signed?b=2&a=1", &resp, &err), NC_OK)) {
        CHECK_INT(nc_response_status(resp), 200);
    } else {
        printf("  signed: %s\n", err ? nc_error_message(err) : "?");
    }
    CHECK_INT(seen.calls, 1);
    CHECK_STR(seen.authorization, "Bearer tok-c");
    nc_response_free(resp);
    nc_error_free(err);
    /* redirect chain: one attempt, adapters ran once; nc_response_url is the last URL */
    if (CHECK_INT(get(client, "/redirect/chain?n=2", &resp, &err), NC_OK)) {
        const char *url = nc_response_url(resp);
        CHECK(url != NULL && strstr(url, "/redirect/chain?n=0") != NULL);
    }
    CHECK_INT(seen.calls, 2);
    nc_response_free(resp);
    nc_error_free(err);
    /* max_redirects 0: the 302 is the response */
    if (nc_request_new("GET", "/redirect?to=/echo", &req) == NC_OK) {
        CHECK_INT(nc_request_set_max_redirects(req, 0), NC_OK);
        CHECK_INT(nc_client_send_sync(client, req, &resp, &err), NC_OK);
        CHECK(err == NULL);
        CHECK_INT(nc_response_status(resp), 302);
        CHECK_STR(nc_response_header(resp, "Location"), "/echo");
        nc_response_free(resp);
        nc_error_free(err);
        nc_request_free(req);
    }
    /* a refusing adapter fails the request, nothing sent */
    CHECK_INT(nc_client_add_adapter(client, refusing_adapter, NULL), NC_OK);
    CHECK_INT(get(client, "/echo", &resp, &err), NC_ERR_FAILED);
    CHECK(resp == NULL);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_ADAPTER_FAILED);
    CHECK_STR(nc_error_message(err), "no key for this host");
    nc_error_free(err);
    CHECK_INT(nc_client_set_basic_auth(client, "a:b", "c"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_token(client, NULL), NC_OK);
    nc_client_free(client);
}

/* ---- the response cache ------------------------------------------------- */

static int g_cache_order[4];
static int g_cache_calls;
static void cache_cb(const nc_response *r, const nc_error *e, void *ud) {
    (void)e;
    if (g_cache_calls < 4)
        g_cache_order[g_cache_calls] = (int)(intptr_t)ud * 10 + nc_response_from_cache(r);
    g_cache_calls++;
}

static nc_status cached_get(nc_client *c, const char *path, int32_t policy, nc_response **resp,
                            nc_error **err) {
    nc_request *req = NULL;
    nc_status st;
    *resp = NULL;
    *err = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) return -1;
    nc_request_set_cache_policy(req, policy);
    st = nc_client_send_sync(c, req, resp, err);
    nc_request_free(req);
    return st;
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *ent;
    int n = 0;
    if (!d) return -1;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len > 4 && strcmp(ent->d_name + len - 4, ".nce") == 0) n++;
    }
    closedir(d);
    return n;
}

/* One process's share of the two-process test: the same 16 keys, three rounds. */
static int cache_worker(const char *dir, const char *prefix) {
    char extra[512], path[256];
    nc_client *c;
    int ok = 1;
    snprintf(extra, sizeof extra,
             "\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},\"cache\":{\"dir\":\"%s\","
             "\"memory_bytes\":0}",
             dir);
    c = make_client(ENVELOPE_A, extra);
    if (!c) return 1;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 16; i++) {
            nc_response *r;
            nc_error *e;
            snprintf(path, sizeof path, "/cache/resource?key=%s%d&max_age=3600&size=500", prefix, i);
            if (cached_get(c, path, NC_CACHE_ELSE_NETWORK, &r, &e) != NC_OK) ok = 0;
            nc_response_free(r);
            nc_error_free(e);
        }
    }
    nc_client_free(c);
    return ok ? 0 : 1;
}

static void test_cache(void) {
    char dir[] = "/tmp/nc-c-cache-XXXXXX";
    char extra[512], path[256], prefix[64];
    nc_client *c;
    nc_response *r;
    nc_error *e;
    nc_request *req;
    char stats[NC_CACHE_STATS_MAX];
    size_t n = 0;
    g_ctx = "cache";
    if (!CHECK(mkdtemp(dir) != NULL)) return;
    snprintf(prefix, sizeof prefix, "c%ld-%d-", (long)time(NULL), (int)getpid());

    /* Two processes write and read the same entries in one directory at once. */
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) _exit(cache_worker(dir, prefix));
    }
    for (int k = 0; k < 2; k++) {
        int status = -1;
        waitpid(kids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK_INT(count_entries(dir), 16);

    /* A new client on the directory: every entry is there, intact. */
    snprintf(extra, sizeof extra, "\"coalesce\":false,\"cache\":{\"dir\":\"%s\"}", dir);
    c = make_client(ENVELOPE_A, extra);
    if (!c) return;
    for (int i = 0; i < 16; i++) {
        snprintf(path, sizeof path, "/cache/resource?key=%s%d&max_age=3600&size=500", prefix, i);
        CHECK_INT(cached_get(c, path, NC_CACHE_ONLY, &r, &e), NC_OK);
        CHECK_INT(nc_response_from_cache(r), 1);
        nc_response_free(r);
        nc_error_free(e);
    }

    /* The 304 path and cache-then-network: cached copy first, then the completion. */
    snprintf(path, sizeof path, "/cache/resource?key=%stn&max_age=0&etag=1", prefix);
    CHECK_INT(cached_get(c, path, NC_CACHE_NETWORK_ONLY, &r, &e), NC_OK);
    nc_response_free(r);
    g_cache_calls = 0;
    nc_request_new("GET", path, &req);
    CHECK_INT(nc_request_set_cache_policy(req, NC_CACHE_THEN_NETWORK), NC_OK);
    CHECK_INT(nc_request_set_cached_callback(req, cache_cb, (void *)(intptr_t)1), NC_OK);
    CHECK_INT(nc_client_send(c, req, cache_cb, (void *)(intptr_t)2, NULL), NC_OK);
    nc_request_free(req);
    for (int i = 0; i < 500 && g_cache_calls < 2; i++) sleep_ms(10);
    sleep_ms(20);
    CHECK_INT(g_cache_calls, 2);
    CHECK_INT(g_cache_order[0], 11); /* the cached callback, from the cache */
    CHECK_INT(g_cache_order[1], 21); /* the completion: 304, the stored body */
    CHECK_INT(cached_get(c, path, NC_CACHE_ELSE_NETWORK, &r, &e), NC_OK);
    CHECK_INT(nc_response_not_modified(r), 1);
    CHECK_INT(nc_response_from_cache(r), 1);
    nc_response_free(r);

    /* CACHE_ONLY miss; offline fallback; stats; clear. */
    snprintf(path, sizeof path, "/cache/resource?key=%smiss", prefix);
    CHECK_INT(cached_get(c, path, NC_CACHE_ONLY, &r, &e), NC_ERR_FAILED);
    CHECK_INT(nc_error_domain(e), NC_DOMAIN_CLIENT);
    CHECK_INT(nc_error_code(e), NC_CLIENT_NOT_CACHED);
    nc_error_free(e);
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_OFFLINE), NC_OK);
    snprintf(path, sizeof path, "/cache/resource?key=%s3&max_age=3600&size=500", prefix);
    CHECK_INT(cached_get(c, path, NC_CACHE_NETWORK_ELSE_CACHE, &r, &e), NC_OK);
    CHECK_INT(nc_response_from_cache(r), 1);
    nc_response_free(r);
    CHECK_INT(nc_client_cache_stats_json(c, stats, sizeof stats, &n), NC_OK);
    CHECK(n == strlen(stats) && strstr(stats, "\"hits\":") != NULL);
    CHECK_INT(nc_client_cache_stats_json(c, stats, 4, &n), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_cache_clear(c), NC_OK);
    CHECK_INT(count_entries(dir), 0);
    nc_client_free(c);
    rmdir(dir);
}

/* ---- cookies (docs/cookies.md) -------------------------------------------- */

/* The jar as JSON text, compared with `want` (JSON text). */
static void expect_jar(nc_client *c, const char *want) {
    char *json = NULL;
    if (CHECK_INT(nc_client_cookies_json(c, &json), NC_OK)) CHECK_JSON_TEXT(json, want);
    nc_string_free(json);
}

static void test_cookies(void) {
    char url[512], config[1024], path[256], dir[] = "/tmp/nc-cookies-c-XXXXXX";
    nc_client *c;
    nc_error *err = NULL;
    struct stat st;
    const char *port = strrchr(g_base, ':');

    /* Off by default: a Set-Cookie is not sent back, the jar lists nothing. */
    g_ctx = "cookies off";
    c = make_client(ENVELOPE_A, NULL);
    if (!c) return;
    expect_ok(c, "/cookies/set?name=sid&value=v1&path=/", "{\"set\":\"sid=v1; Path=/\"}");
    expect_ok(c, "/cookies/echo", "{\"cookie\":null,\"count\":0}");
    expect_jar(c, "[]");
    nc_client_free(c);

    /* On: sent back to its host and path only. */
    c = make_client(ENVELOPE_A, "\"cookies\":{\"enabled\":true}");
    if (!c) return;
    expect_ok(c, "/cookies/set?name=sid&value=v1&path=/", "{\"set\":\"sid=v1; Path=/\"}");
    expect_ok(c, "/cookies/echo", "{\"cookie\":\"sid=v1\",\"count\":1}");
    expect_jar(
        c, "[{\"name\":\"sid\",\"value\":\"v1\",\"domain\":\"127.0.0.1\",\"include_subdomains\":false,"
           "\"path\":\"/\",\"secure\":false,\"http_only\":false,\"expires\":0}]");
    snprintf(url, sizeof url, "http://localhost%s/cookies/echo", port ? port : ":0");
    expect_ok(c, url, "{\"cookie\":null,\"count\":0}"); /* 127.0.0.1's cookie, not localhost's */
    nc_client_cookies_clear(c);
    expect_ok(c, "/cookies/set?name=a&value=1&path=/api/cookies/a",
              "{\"set\":\"a=1; Path=/api/cookies/a\"}");
    expect_ok(c, "/cookies/a/echo", "{\"cookie\":\"a=1\",\"count\":1}");
    expect_ok(c, "/cookies/b/echo", "{\"cookie\":null,\"count\":0}");
    CHECK_INT(nc_client_cookies_clear(c), NC_OK);
    expect_jar(c, "[]");

    /* Bounded: 180 a domain, its newest (201 set here: "first", r0_0 … r3_49). */
    g_ctx = "cookie bounds";
    expect_ok(c, "/cookies/set?name=first&value=1&path=/", "{\"set\":\"first=1; Path=/\"}");
    for (int r = 0; r < 4; r++) {
        snprintf(url, sizeof url, "/cookies/many?count=50&prefix=r%d_", r);
        expect_ok(c, url, "{\"set\":50}");
    }
    char *json = NULL;
    if (CHECK_INT(nc_client_cookies_json(c, &json), NC_OK)) {
        json_t *list = json_loads(json, 0, NULL);
        CHECK(json_is_array(list) && json_array_size(list) == 180);
        CHECK(json && !strstr(json, "\"first\"") && !strstr(json, "\"r0_19\"") &&
              strstr(json, "\"r0_20\""));
        json_decref(list);
    }
    nc_string_free(json);
    nc_client_free(c);

    /* Persisted: written (0600) at free, loaded by the next client. */
    g_ctx = "cookie file";
    if (!CHECK(mkdtemp(dir) != NULL)) return;
    snprintf(path, sizeof path, "%s/jar.txt", dir);
    snprintf(config, sizeof config, "\"cookies\":{\"enabled\":true,\"file\":\"%s\"}", path);
    c = make_client(ENVELOPE_A, config);
    if (!c) return;
    expect_ok(c, "/cookies/set?name=keep&value=k1&path=/&max_age=600",
              "{\"set\":\"keep=k1; Path=/; Max-Age=600\"}");
    CHECK_INT(nc_client_cookies_flush(c, &err), NC_OK);
    CHECK(err == NULL);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    nc_client_free(c);
    c = make_client(ENVELOPE_A, config);
    if (!c) return;
    expect_ok(c, "/cookies/echo", "{\"cookie\":\"keep=k1\",\"count\":1}");
    nc_client_free(c);
    unlink(path);
    rmdir(dir);

    CHECK_INT(nc_client_cookies_json(NULL, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_cookies_clear(NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_cookies_flush(NULL, NULL), NC_ERR_INVALID_ARGUMENT);
    nc_string_free(NULL);
}

/* GET `path` (get() above), what comes back freed. */
static void send_and_free(nc_client *c, const char *path) {
    nc_response *resp;
    nc_error *err;
    (void)get(c, path, &resp, &err);
    nc_response_free(resp);
    nc_error_free(err);
}

/* Log lines to standard error: the "log" configuration key, and
 * nc_client_set_log_handler() with no function. Each line "netcore LEVEL text". */
static void test_log_to_stderr(void) {
    g_ctx = "log to stderr";
    char path[] = "/tmp/nc-c-api-log-XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0)) return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    nc_client *c = make_client(NULL, "\"log\":{\"level\":\"info\"}");
    if (c) {
        send_and_free(c, "/env/code/ok?token=SECRET-LOG");
        nc_client_free(c);
    }
    c = make_client(NULL, NULL); /* "log" absent: nothing until a handler is set */
    if (c) {
        send_and_free(c, "/status/503?quiet=1");
        CHECK_INT(nc_client_set_log_handler(c, NC_LOG_WARN, NULL, NULL), NC_OK);
        send_and_free(c, "/env/code/ok?quiet=2"); /* a success: nothing at WARN */
        send_and_free(c, "/status/500?loud=1");
        nc_client_free(c);
    }
    /* A server's message with CR, LF, ESC and U+2028: escaped, still one line */
    c = make_client("{\"code\":\"code\",\"message\":\"msg\",\"data\":\"data\"}",
                    "\"log\":{\"level\":\"warn\"}");
    if (c) {
        send_and_free(c,
                      "/status/200?body=envelope&code=7&msg=a%0D%0AINFO%20forged%1B%5B2J%E2%80%A8end");
        nc_client_free(c);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[8192] = {0};
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    unlink(path);
    CHECK(n > 0);
    CHECK(strstr(text, "netcore INFO GET ") != NULL &&
          strstr(text, "/env/code/ok?token=REDACTED => 200") != NULL);
    CHECK(strstr(text, "netcore WARN GET ") != NULL && strstr(text, "/status/500?loud=1 => ") != NULL);
    CHECK(strstr(text, "quiet") == NULL); /* not logged: no handler yet, then a success at WARN */
    CHECK(strstr(text, "SECRET") == NULL);
    CHECK(strstr(text, "=> NCAPIErrorDomain 7: a\\r\\nINFO forged\\x1B[2J\\u2028end (") != NULL);
    CHECK(strstr(text, "\nINFO forged") == NULL && strchr(text, 0x1b) == NULL);

    /* A level the key does not know is refused, naming it. */
    nc_client *bad = NULL;
    nc_error *err = NULL;
    CHECK_INT(nc_client_new("{\"log\":{\"level\":\"loud\"}}", &bad, &err), NC_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL && err != NULL && strstr(nc_error_message(err), "log.level") != NULL);
    nc_error_free(err);
}

/* How many requests carried ?key=<key> (the mock's /_hits), -1 if unknown. */
static long long hits(nc_client *client, const char *key) {
    char path[128];
    nc_response *resp = NULL;
    nc_error *err = NULL;
    long long n = -1;
    snprintf(path, sizeof path, "/_hits?key=%s", key);
    if (get(client, path, &resp, &err) == NC_OK) {
        json_t *h = json_object_get(nc_response_json(resp), "hits");
        if (json_is_integer(h)) n = json_integer_value(h);
    }
    nc_response_free(resp);
    nc_error_free(err);
    return n;
}

/* Issue 34 through the header: a declared param refused with nothing sent (the
 * mock's /_hits counts), an adapter rewriting the query, messages for people. */
static nc_status set_stamp_adapter(nc_outgoing *out, void *userdata) {
    const char *params = nc_outgoing_params_json(out);
    (void)userdata;
    if (params == NULL || strstr(params, "\"key\"") == NULL) return NC_OK;
    return nc_outgoing_set_query(out, "stamp", "c-adapter");
}

static void test_api_layer(void) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_client *client;
    const char *bad = "{\"key\":\"c-decl-refused\",\"page\":0}";
    const char *fine = "{\"key\":\"c-decl-ok\",\"page\":2}";
    long long before;
    g_ctx = "api layer";
    client = make_client(
        "null",
        "\"endpoints\":{\"find\":{\"path\":\"/echo\",\"additional_params\":false,"
        "\"params\":{\"key\":{\"type\":\"string\",\"required\":true},"
        "\"page\":{\"type\":\"integer\",\"min\":1}}}},"
        "\"messages\":{\"CLIENT.3\":\"This request is not valid.\",\"HTTP.5xx\":\"Try later.\"}");
    if (!client) return;
    CHECK_INT(nc_client_add_adapter(client, set_stamp_adapter, NULL), NC_OK);
    CHECK_INT(nc_client_call_sync(client, "find", bad, strlen(bad), &resp, &err), NC_ERR_FAILED);
    CHECK(resp == NULL);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    CHECK_INT(nc_error_attempts(err), 0);
    CHECK(strstr(nc_error_message(err), "'page'") != NULL &&
          strstr(nc_error_message(err), "'min'") != NULL);
    CHECK_STR(nc_error_user_message(err), "This request is not valid.");
    nc_error_free(err);
    err = NULL; /* (a success writes no error) */
    CHECK_INT(hits(client, "c-decl-refused"), 0);
    before = hits(client, "c-decl-ok");
    if (CHECK_INT(nc_client_call_sync(client, "find", fine, strlen(fine), &resp, &err), NC_OK)) {
        json_t *query = json_object_get(json_object_get(nc_response_json(resp), "data"), "query");
        CHECK_JSON(json_object_get(query, "stamp"), "[\"c-adapter\"]");
    }
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    CHECK_INT(hits(client, "c-decl-ok"), before + 1);
    CHECK_INT(get(client, "/status/503", &resp, &err), NC_ERR_FAILED);
    CHECK_STR(nc_error_user_message(err), "Try later.");
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    CHECK_INT(nc_client_set_messages_json(client, NULL), NC_OK);
    CHECK_INT(get(client, "/status/503", &resp, &err), NC_ERR_FAILED);
    CHECK(nc_error_user_message(err) == NULL);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(client);
}

/* ---- nc_response_data_unpack ------------------------------------------------ */

static const char *UNPACK_PARAMS =
    "{\"user\":{\"id\":7,\"name\":\"Ada\",\"vip\":true,\"score\":2,\"tags\":[\"a\",\"b\"],"
    "\"nick\":null,\"meta\":{\"k\":1}}}";

/* POST /echo with UNPACK_PARAMS as a JSON body: data.json is that object. */
static nc_response *unpack_response(nc_client *c) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (nc_request_new("POST", "/echo", &req) != NC_OK) return NULL;
    nc_request_set_encoding(req, NC_ENCODING_JSON);
    nc_request_set_params_json(req, UNPACK_PARAMS, strlen(UNPACK_PARAMS));
    if (nc_client_send_sync(c, req, &resp, &err) != NC_OK)
        printf("     error: %s\n", nc_error_json(err));
    nc_request_free(req);
    nc_error_free(err);
    return resp;
}

/* A variadic wrapper of one's own, through the va_list form. */
static nc_status my_unpack(const nc_response *r, nc_error **err, const char *fmt, ...) {
    va_list ap;
    nc_status st;
    va_start(ap, fmt);
    st = nc_response_data_vunpack(r, err, fmt, ap);
    va_end(ap);
    return st;
}

/* The call failed with PARSE NC_PARSE_DECODING_FAILED whose message has `want`
 * (*errp read here: C does not order the evaluation of a call's arguments). */
static void expect_unpack_error(nc_status st, nc_error **errp, const char *want, int line) {
    nc_error *err = *errp;
    check_int(st, NC_ERR_FAILED, "status", line);
    if (!check(err != NULL, "err != NULL", line)) return;
    check_int(nc_error_domain(err), NC_DOMAIN_PARSE, "nc_error_domain(err)", line);
    check_int(nc_error_code(err), NC_PARSE_DECODING_FAILED, "nc_error_code(err)", line);
    check_int(nc_error_http_status(err), 200, "nc_error_http_status(err)", line);
    if (!check(strstr(nc_error_message(err), want) != NULL, want, line))
        printf("     message: %s\n", nc_error_message(err));
}

static void test_data_unpack(void) {
    nc_client *c = make_client(ENVELOPE_A, NULL);
    nc_client *raw = make_client(NULL, NULL);
    nc_response *resp, *kept, *text_resp = NULL;
    nc_error *err = NULL;
    const char *name = NULL, *t0 = NULL, *t1 = NULL, *s = "untouched";
    size_t name_len = 0;
    int id = -1, vip = -1, age = -1, n = -1, many[17];
    double score = -1;
    json_t *meta = NULL, *meta_o = NULL, *meta_owned = NULL, *sentinel = json_object();
    json_int_t big = -1;

    g_ctx = "nc_response_data_unpack";
    if (!c || !raw || !(resp = unpack_response(c))) {
        CHECK(!"the /echo response for unpack");
        nc_client_free(c);
        nc_client_free(raw);
        json_decref(sentinel);
        return;
    }

    /* Success: every kind of target; an absent optional key leaves its target. */
    CHECK_INT(nc_response_data_unpack(
                  resp, &err, "{s:{s:{s:i, s:s%, s:b, s:F, s:[ss!], s:n, s:o, s:O, s?i, s:I}}}", "json",
                  "user", "id", &id, "name", &name, &name_len, "vip", &vip, "score", &score, "tags", &t0,
                  &t1, "nick", "meta", &meta_o, "meta", &meta, "age", &age, "id", &big),
              NC_OK);
    CHECK(err == NULL);
    CHECK_INT(id, 7);
    CHECK_STR(name, "Ada");
    CHECK_INT(name_len, 3);
    CHECK_INT(vip, 1);
    CHECK(score == 2.0);
    CHECK_STR(t0, "a");
    CHECK_STR(t1, "b");
    CHECK_INT(age, -1);
    CHECK_INT(big, 7);
    CHECK_JSON(meta, "{\"k\":1}");
    CHECK(meta == meta_o);
    meta_owned = meta;
    /* Ownership: strings and `o` are borrowed from the response, so they live as
     * long as its last reference; `O` is the caller's own (valgrind: make valgrind). */
    kept = nc_response_retain(resp);
    nc_response_free(resp);
    CHECK_STR(name, "Ada");
    CHECK_JSON(meta_o, "{\"k\":1}");
    resp = kept;

    /* The va_list form. */
    id = -1;
    CHECK_INT(my_unpack(resp, &err, "{s:{s:{s:i}}}", "json", "user", "id", &id), NC_OK);
    CHECK_INT(id, 7);

    /* More targets than the stack holds (17): saved on the heap, restored the same. */
    for (n = 0; n < 17; n++) many[n] = -1;
    CHECK_INT(nc_response_data_unpack(
                  resp, &err,
                  "{s:{s:{s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i}}}",
                  "json", "user", "id", &many[0], "id", &many[1], "id", &many[2], "id", &many[3], "id",
                  &many[4], "id", &many[5], "id", &many[6], "id", &many[7], "id", &many[8], "id",
                  &many[9], "id", &many[10], "id", &many[11], "id", &many[12], "id", &many[13], "id",
                  &many[14], "id", &many[15], "id", &many[16]),
              NC_OK);
    CHECK_INT(many[0] + many[16], 14);
    for (n = 0; n < 17; n++) many[n] = -1;
    expect_unpack_error(
        nc_response_data_unpack(
            resp, &err, "{s:{s:{s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i s:i}}}",
            "json", "user", "id", &many[0], "id", &many[1], "id", &many[2], "id", &many[3], "id",
            &many[4], "id", &many[5], "id", &many[6], "id", &many[7], "id", &many[8], "id", &many[9],
            "id", &many[10], "id", &many[11], "id", &many[12], "id", &many[13], "id", &many[14], "id",
            &many[15], "name", &many[16]),
        &err, "data.json.user.name: Expected integer, got string", __LINE__);
    CHECK_INT(many[0] + many[15] + many[16], -3);
    nc_error_free(err);
    err = NULL;

    /* A wrong type: the path and jansson's reason; what was written before the
     * mismatch is put back. */
    id = -1;
    n = -1;
    expect_unpack_error(
        nc_response_data_unpack(resp, &err, "{s:{s:{s:i, s:i}}}", "json", "user", "id", &id, "name", &n),
        &err, "data.json.user.name: Expected integer, got string", __LINE__);
    CHECK_INT(id, -1);
    CHECK_INT(n, -1);
    if (err) CHECK(strncmp(nc_error_message(err), "Could not unpack the data: ", 27) == 0);
    nc_error_free(err);
    err = NULL;

    /* An `O` taken before the mismatch is released and its target put back. */
    meta = sentinel;
    expect_unpack_error(nc_response_data_unpack(resp, &err, "{s:{s:{s:O, s:s}}}", "json", "user", "meta",
                                                &meta, "id", &s),
                        &err, "data.json.user.id: Expected string, got integer", __LINE__);
    CHECK(meta == sentinel);
    CHECK_STR(s, "untouched");
    nc_error_free(err);
    err = NULL;

    /* A missing key. */
    expect_unpack_error(
        nc_response_data_unpack(resp, &err, "{s:{s:{s:i}}}", "json", "user", "age", &age), &err,
        "data.json.user.age: Object item not found: age", __LINE__);
    nc_error_free(err);
    err = NULL;

    /* Members left over after `!`, in an object and in an array; an array item. */
    expect_unpack_error(
        nc_response_data_unpack(resp, &err, "{s:{s:{s:i !}}}", "json", "user", "id", &id), &err,
        "data.json.user: 6 object item(s) left unpacked: ", __LINE__);
    nc_error_free(err);
    err = NULL;
    expect_unpack_error(
        nc_response_data_unpack(resp, &err, "{s:{s:{s:[s!]}}}", "json", "user", "tags", &t0), &err,
        "data.json.user.tags: 1 array item(s) left unpacked", __LINE__);
    nc_error_free(err);
    err = NULL;
    expect_unpack_error(
        nc_response_data_unpack(resp, &err, "{s:{s:{s:[s, i]}}}", "json", "user", "tags", &t0, &id),
        &err, "data.json.user.tags[1]: Expected integer, got string", __LINE__);
    nc_error_free(err);
    err = NULL;
    expect_unpack_error(nc_response_data_unpack(resp, &err, "[i]", &id), &err,
                        "data: Expected array, got object", __LINE__);
    nc_error_free(err);
    err = NULL;
    /* error_out may be NULL. */
    CHECK_INT(nc_response_data_unpack(resp, NULL, "{s:{s:{s:s}}}", "json", "user", "id", &s),
              NC_ERR_FAILED);
    CHECK_STR(s, "untouched");

    /* Bad input: nothing written, no error made. */
    id = -1;
    CHECK_INT(nc_response_data_unpack(NULL, &err, "{s:i}", "id", &id), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "{s:i", "json", &id), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "{s:x}", "json", &id), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "{s:o} i", "json", &meta, &id),
              NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "", &id), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "{s:{s:i}}", "json", (const char *)NULL, &id),
              NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_response_data_unpack(resp, &err, "{s:{s:{s:i}}}", "json", "user", "id", (int *)NULL),
              NC_ERR_INVALID_ARGUMENT);
    CHECK(err == NULL);
    CHECK_INT(id, -1);
    nc_response_free(resp);

    /* Raw mode, a body that is not JSON: PARSE too. */
    if (CHECK_INT(get(raw, "/text", &text_resp, &err), NC_OK)) {
        expect_unpack_error(nc_response_data_unpack(text_resp, &err, "{s:i}", "id", &id), &err,
                            "data: the body is not JSON", __LINE__);
    }
    nc_error_free(err);
    nc_response_free(text_resp);

    json_decref(sentinel);
    /* `O` gave a reference of the caller's own: still valid after the response,
     * released here (meta_o, an `o`, is borrowed and never released). */
    CHECK_JSON(meta_owned, "{\"k\":1}");
    json_decref(meta_owned);
    nc_client_free(c);
    nc_client_free(raw);
}

/* ---- preconnect (nc_client_preconnect) ----------------------------------- */

/* The events a client's handler received, kept as text. */
struct event_log {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count, ends;
    char events[16][1024];
};

static void log_event(const char *event_json, size_t len, void *userdata) {
    struct event_log *l = userdata;
    (void)len;
    pthread_mutex_lock(&l->mutex);
    if (l->count < 16) snprintf(l->events[l->count], sizeof l->events[0], "%s", event_json);
    l->count++;
    if (strstr(event_json, "\"request_end\"")) l->ends++;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mutex);
}

/* Waits (at most 10 s) until `want` request_end events have arrived; returns how many did. */
static int wait_ends(struct event_log *l, int want) {
    double deadline = now_ms() + 10000;
    int n;
    pthread_mutex_lock(&l->mutex);
    while (l->ends < want && now_ms() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&l->cond, &l->mutex, &ts);
    }
    n = l->ends;
    pthread_mutex_unlock(&l->mutex);
    return n;
}

/* The TCP connections the mock server accepted so far (its /_stats), read through
 * `stats`, a client whose own kept-alive connection is counted once. */
static long long server_connections(nc_client *stats) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    long long n = -1;
    if (get(stats, "/_stats", &resp, &err) == NC_OK) {
        json_t *c = json_object_get(nc_response_json(resp), "connections");
        if (json_is_integer(c)) n = json_integer_value(c);
    }
    nc_response_free(resp);
    nc_error_free(err);
    return n;
}

/* A loopback port nothing listens on (bound, then closed). */
static int closed_port(void) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

static void test_preconnect(void) {
    struct event_log log = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, {{0}}};
    nc_client *stats, *client, *bare;
    nc_error *err = NULL;
    nc_task *task = NULL;
    nc_request *req = NULL;
    waiter w;
    long long c0, c1, c2;
    char dead[128];
    g_ctx = "preconnect";
    stats = make_client(NULL, NULL);
    client = make_client(NULL, NULL);
    bare = NULL;
    CHECK_INT(nc_client_new("{}", &bare, NULL), NC_OK);
    if (!stats || !client || !bare) goto out;
    CHECK_INT(nc_client_set_event_handler(client, log_event, &log), NC_OK);
    c0 = server_connections(stats);

    /* Refused on the caller's thread, nothing sent: a path with no base URL, a
     * scheme other than http(s), a URL libcurl refuses, NULL. */
    CHECK_INT(nc_client_preconnect(bare, "/echo?key=pre-bad", &err), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    CHECK(strstr(nc_error_message(err), "base_url") != NULL);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_preconnect(client, "ftp://127.0.0.1/x", &err), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_preconnect(client, "http://127.0.0.1:99999/echo?key=pre-bad", &err),
              NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_preconnect(client, NULL, &err), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_preconnect(NULL, "/", &err), NC_ERR_INVALID_ARGUMENT);
    CHECK(err == NULL);

    /* A preconnect: one connection, made off this thread; its HEAD reached the server. */
    CHECK_INT(nc_client_preconnect(client, "/echo?key=pre-warm", &err), NC_OK);
    CHECK(err == NULL);
    CHECK_INT(wait_ends(&log, 1), 1);
    pthread_mutex_lock(&log.mutex);
    /* The refused calls sent nothing: the first events are the preconnect's. */
    CHECK_INT(log.count, 3);
    CHECK(strstr(log.events[0], "\"request_start\"") && strstr(log.events[0], "\"method\":\"HEAD\""));
    CHECK(strstr(log.events[0], "/echo?key=") != NULL); /* (its value is redacted: "key") */
    CHECK(strstr(log.events[2], "\"request_end\"") && strstr(log.events[2], "\"domain\":null"));
    pthread_mutex_unlock(&log.mutex);
    c1 = server_connections(stats);
    CHECK_INT(c1, c0 + 1);
    CHECK_INT(hits(stats, "pre-warm"), 1);
    CHECK_INT(hits(stats, "pre-bad"), 0);

    /* The first request reuses it: no new connection. */
    waiter_init(&w);
    if (CHECK_INT(nc_request_new("GET", "/echo?key=pre-first", &req), NC_OK) &&
        CHECK_INT(nc_client_send(client, req, loop_cb, &w, &task), NC_OK)) {
        CHECK_INT(waiter_count(&w, 1, 10000), 1);
        CHECK_INT(w.domain, 0);
    }
    nc_task_free(task);
    nc_request_free(req);
    waiter_destroy(&w);
    c2 = server_connections(stats);
    CHECK_INT(c2, c1);
    CHECK_INT(hits(stats, "pre-first"), 1);

    /* A host nothing listens on: NC_OK, and the failure shows in the events. */
    snprintf(dead, sizeof dead, "http://127.0.0.1:%d/", closed_port());
    CHECK_INT(nc_client_preconnect(client, dead, &err), NC_OK);
    CHECK(err == NULL);
    CHECK_INT(wait_ends(&log, 3), 3);
    pthread_mutex_lock(&log.mutex);
    /* 0-2 the preconnect, 3-5 the request, 6-8 this preconnect */
    if (CHECK_INT(log.count, 9)) {
        CHECK(strstr(log.events[6], "\"method\":\"HEAD\"") != NULL);
        CHECK(strstr(log.events[8], "\"request_end\"") != NULL);
        CHECK(strstr(log.events[8], "\"domain\":\"NCTransportErrorDomain\"") != NULL);
        CHECK(strstr(log.events[8], "\"code\":7,") != NULL);
    }
    pthread_mutex_unlock(&log.mutex);
    CHECK_INT(nc_client_set_event_handler(client, NULL, NULL), NC_OK);
out:
    nc_client_free(client);
    nc_client_free(stats);
    nc_client_free(bare);
}

/* ---- which request an error belongs to; reachability watched (issue 34: 4, 6) ---- */

/* What the error handler and the completion saw of a failed request. */
struct identity_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int errors, completions;
    char method[16], url[256], endpoint[64], label[64], json[2048];
    uint64_t task_id;
    long long domain, code;
    char done_label[64];
    uint64_t done_task_id;
    char events[16][1024];
    int nevents;
    char line[1024];
};

static void copy_text(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src ? src : "(null)");
}

static void identity_error(const nc_response *r, const nc_error *e, void *ud) {
    struct identity_log *l = ud;
    (void)r;
    pthread_mutex_lock(&l->lock);
    l->errors++;
    copy_text(l->method, sizeof l->method, nc_error_request_method(e));
    copy_text(l->url, sizeof l->url, nc_error_request_url(e));
    copy_text(l->endpoint, sizeof l->endpoint, nc_error_endpoint(e));
    copy_text(l->label, sizeof l->label, nc_error_label(e));
    copy_text(l->json, sizeof l->json, nc_error_json(e));
    l->task_id = nc_error_task_id(e);
    l->domain = nc_error_domain(e);
    l->code = nc_error_code(e);
    pthread_mutex_unlock(&l->lock);
}

static void identity_done(const nc_response *r, const nc_error *e, void *ud) {
    struct identity_log *l = ud;
    (void)r;
    pthread_mutex_lock(&l->lock);
    l->completions++;
    copy_text(l->done_label, sizeof l->done_label, nc_error_label(e));
    l->done_task_id = nc_error_task_id(e);
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void identity_event(const char *text, size_t len, void *ud) {
    struct identity_log *l = ud;
    (void)len;
    pthread_mutex_lock(&l->lock);
    if (l->nevents < 16) copy_text(l->events[l->nevents++], sizeof l->events[0], text);
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void identity_line(const char *text, size_t len, void *ud) {
    struct identity_log *l = ud;
    (void)len;
    pthread_mutex_lock(&l->lock);
    if (strncmp(text, "WARN ", 5) == 0) copy_text(l->line, sizeof l->line, text);
    pthread_mutex_unlock(&l->lock);
}

/* Waits (seconds of slack, not a timing check) until `*count` reaches `want`. */
static int wait_count(pthread_mutex_t *lock, pthread_cond_t *cond, const int *count, int want) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(lock);
    while (*count < want && pthread_cond_timedwait(cond, lock, &until) == 0) {}
    int reached = *count >= want;
    pthread_mutex_unlock(lock);
    return reached;
}

static void test_request_identity(void) {
    g_ctx = "request identity";
    struct identity_log l;
    memset(&l, 0, sizeof l);
    pthread_mutex_init(&l.lock, NULL);
    pthread_cond_init(&l.cond, NULL);
    char config[512], url[256];
    int port = closed_port();
    snprintf(config, sizeof config,
             "{\"base_url\":\"http://127.0.0.1:%d/api\",\"endpoints\":{\"user.get\":"
             "{\"method\":\"GET\",\"path\":\"/users/{id}\"}}}",
             port);
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (!CHECK_INT(nc_client_new(config, &c, &err), NC_OK)) return;
    CHECK_INT(nc_client_set_error_handler(c, identity_error, &l), NC_OK);
    CHECK_INT(nc_client_set_event_handler(c, identity_event, &l), NC_OK);
    CHECK_INT(nc_client_set_event_mask(c, NC_EVENT_REQUEST_END), NC_OK);
    CHECK_INT(nc_client_set_log_handler(c, NC_LOG_WARN, identity_line, &l), NC_OK);

    /* label validation: refused labels change nothing */
    nc_request *r = NULL;
    CHECK_INT(nc_request_new_endpoint("user.get", &r), NC_OK);
    CHECK_INT(nc_request_set_params_json(r, "{\"id\":7}", 8), NC_OK);
    CHECK_INT(nc_request_set_query(r, "token", "SECRET-T"), NC_OK);
    CHECK_INT(nc_request_set_label(NULL, "x"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_label(r, "profile.load"), NC_OK);
    CHECK_INT(nc_request_set_label(r, ""), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_label(r, "two\nlines"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_label(r, "tab\there"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_label(r, "del\x7f"), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_request_set_label(r, "bad \xff utf-8"), NC_ERR_INVALID_ARGUMENT);

    /* a transport error: the handler and the completion know which call failed */
    nc_task *task = NULL;
    CHECK_INT(nc_client_send(c, r, identity_done, &l, &task), NC_OK);
    CHECK(wait_count(&l.lock, &l.cond, &l.completions, 1));
    CHECK(wait_count(&l.lock, &l.cond, &l.nevents, 1));
    CHECK_INT(l.errors, 1);
    CHECK_INT(l.domain, NC_DOMAIN_TRANSPORT);
    CHECK_INT(l.code, 7);
    CHECK_STR(l.method, "GET");
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api/users/7?token=REDACTED", port);
    CHECK_STR(l.url, url);
    CHECK_STR(l.endpoint, "user.get");
    CHECK_STR(l.label, "profile.load");
    CHECK(l.task_id > 0);
    CHECK_INT(l.task_id, nc_task_id(task));
    CHECK_STR(l.done_label, "profile.load");
    CHECK_INT(l.done_task_id, nc_task_id(task));
    json_t *all = json_loads(l.json, 0, NULL);
    char *request_text = json_dumps(json_object_get(all, "request"), JSON_COMPACT);
    CHECK(request_text && strstr(request_text, "SECRET") == NULL); /* redacted, as in events */
    free(request_text);
    char want[512];
    snprintf(want, sizeof want,
             "{\"method\":\"GET\",\"url\":\"%s\",\"endpoint\":\"user.get\",\"label\":\"profile.load\","
             "\"id\":%llu}",
             url, (unsigned long long)nc_task_id(task));
    CHECK_JSON(json_object_get(all, "request"), want);
    json_decref(all);
    /* the event and the log line name the endpoint and the label */
    json_t *ev = json_loads(l.events[0], 0, NULL);
    CHECK_STR(json_string_value(json_object_get(ev, "endpoint")), "user.get");
    CHECK_STR(json_string_value(json_object_get(ev, "label")), "profile.load");
    json_decref(ev);
    CHECK(strstr(l.line, " [endpoint=user.get label=profile.load] => NCTransportErrorDomain 7") != NULL);
    if (!strstr(l.line, "[endpoint=user.get")) printf("     line: %s\n", l.line);
    nc_task_free(task);

    /* a synchronous send's error carries it too; NULL removes the label */
    nc_response *resp = NULL;
    CHECK_INT(nc_request_set_label(r, NULL), NC_OK);
    CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_ERR_FAILED);
    CHECK_STR(nc_error_label(err), NULL);
    CHECK_STR(nc_error_endpoint(err), "user.get");
    CHECK(nc_error_task_id(err) > 0);
    CHECK_INT(l.errors, 2);
    nc_error_free(err);
    nc_response_free(resp);
    err = NULL;
    resp = NULL;
    nc_request_free(r);

    /* a request that cannot be resolved: its endpoint and label, no method or URL */
    CHECK_INT(nc_request_new_endpoint("no.such", &r), NC_OK);
    CHECK_INT(nc_request_set_label(r, "screen A"), NC_OK);
    CHECK_INT(nc_client_send_sync(c, r, &resp, &err), NC_ERR_FAILED);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
    CHECK_STR(nc_error_endpoint(err), "no.such");
    CHECK_STR(nc_error_label(err), "screen A");
    CHECK_STR(nc_error_request_method(err), NULL);
    CHECK_STR(nc_error_request_url(err), NULL);
    CHECK(nc_error_task_id(err) > 0);
    nc_error_free(err);
    nc_response_free(resp);
    err = NULL;
    nc_request_free(r);

    /* NULL errors; an error no request produced has no "request" */
    CHECK_STR(nc_error_request_method(NULL), NULL);
    CHECK_STR(nc_error_request_url(NULL), NULL);
    CHECK_STR(nc_error_endpoint(NULL), NULL);
    CHECK_STR(nc_error_label(NULL), NULL);
    CHECK_INT(nc_error_task_id(NULL), 0);
    nc_client *bad = NULL;
    CHECK_INT(nc_client_new("{\"timeout_ms\":-1}", &bad, &err), NC_ERR_INVALID_ARGUMENT);
    if (CHECK(err != NULL)) {
        json_t *j = json_loads(nc_error_json(err), 0, NULL);
        CHECK(json_is_null(json_object_get(j, "request")));
        json_decref(j);
        CHECK_INT(nc_error_task_id(err), 0);
    }
    nc_error_free(err);
    nc_client_free(c);
}

/* The states a reachability handler saw, and the events of one request. */
struct reach_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int states[16];
    int nstates;
    pthread_t thread;
    char events[16][1024];
    int nevents, retries, done;
    int status;
};

static void reach_state(int32_t state, void *ud) {
    struct reach_log *l = ud;
    pthread_mutex_lock(&l->lock);
    if (l->nstates < 16) l->states[l->nstates++] = state;
    l->thread = pthread_self();
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void reach_event(const char *text, size_t len, void *ud) {
    struct reach_log *l = ud;
    (void)len;
    pthread_mutex_lock(&l->lock);
    if (l->nevents < 16) copy_text(l->events[l->nevents++], sizeof l->events[0], text);
    if (strstr(text, "\"event\":\"retry\"")) l->retries++;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void reach_done(const nc_response *r, const nc_error *e, void *ud) {
    struct reach_log *l = ud;
    (void)e;
    pthread_mutex_lock(&l->lock);
    l->status = r ? nc_response_status(r) : -1;
    l->done++;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void test_reachability_watch(void) {
    g_ctx = "reachability handler";
    struct reach_log l;
    memset(&l, 0, sizeof l);
    pthread_mutex_init(&l.lock, NULL);
    pthread_cond_init(&l.cond, NULL);
    nc_client *c = make_client(NULL, "\"retry\":{\"max_attempts\":2,\"backoff\":\"constant\","
                                     "\"initial_ms\":600000,\"max_delay_ms\":600000,\"jitter\":false}");
    if (!CHECK(c != NULL)) return;
    CHECK_INT(nc_client_set_reachability_handler(NULL, reach_state, &l), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_reachability_handler(c, reach_state, &l), NC_OK);
    /* forced changes: one call per change of nc_client_reachability(), none otherwise */
    int initial = nc_client_reachability(c);
    int want[16], nwant = 0;
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_ONLINE), NC_OK);
    if (initial == NC_REACH_OFFLINE) want[nwant++] = NC_REACH_ONLINE;
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_ONLINE), NC_OK);
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_OFFLINE), NC_OK);
    want[nwant++] = NC_REACH_OFFLINE;
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_OFFLINE), NC_OK);
    CHECK_INT(nc_client_set_reachability(c, 7), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_ONLINE), NC_OK);
    want[nwant++] = NC_REACH_ONLINE;
    CHECK(wait_count(&l.lock, &l.cond, &l.nstates, nwant));
    CHECK_INT(l.nstates, nwant);
    for (int i = 0; i < nwant && i < l.nstates; i++) CHECK_INT(l.states[i], want[i]);
    /* loop mode: called on the thread whose call changed the state */
    CHECK(pthread_equal(l.thread, pthread_self()));

    /* retry when reachable: a request waiting out a 600 s delay goes when the network returns */
    char path[128];
    snprintf(path, sizeof path, "/flaky?key=reach-%d&fails=1", (int)getpid());
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_AUTO), NC_OK); /* AUTO: loopback is sent */
    int before = l.nstates, auto_state = nc_client_reachability(c);
    CHECK_INT(nc_client_set_event_handler(c, reach_event, &l), NC_OK);
    nc_request *r = NULL;
    nc_task *task = NULL;
    CHECK_INT(nc_request_new("GET", path, &r), NC_OK);
    CHECK_INT(nc_client_send(c, r, reach_done, &l, &task), NC_OK);
    CHECK(wait_count(&l.lock, &l.cond, &l.retries, 1)); /* the 600 s wait began */
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_OFFLINE), NC_OK);
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_ONLINE), NC_OK);
    CHECK(wait_count(&l.lock, &l.cond, &l.done, 1));
    CHECK_INT(l.status, 200);
    /* OFFLINE then ONLINE: [2, 1] from an online AUTO, [1] from an offline one */
    CHECK_INT(l.nstates - before, auto_state == NC_REACH_ONLINE ? 2 : 1);
    if (auto_state == NC_REACH_ONLINE) CHECK_INT(l.states[before], NC_REACH_OFFLINE);
    CHECK_INT(l.states[l.nstates - 1], NC_REACH_ONLINE);
    /* the event stream: start, 503, retry in 600 s, retry now (network returned), 200, end */
    const char *kinds[] = {"request_start", "attempt_end", "retry",
                           "retry",         "attempt_end", "request_end"};
    CHECK_INT(l.nevents, 6);
    for (int i = 0; i < 6 && i < l.nevents; i++) {
        json_t *ev = json_loads(l.events[i], 0, NULL);
        CHECK_STR(json_string_value(json_object_get(ev, "event")), kinds[i]);
        CHECK_INT(json_integer_value(json_object_get(ev, "id")), nc_task_id(task));
        if (i == 2) CHECK_INT(json_integer_value(json_object_get(ev, "delay_ms")), 600000);
        if (i == 3) {
            CHECK_INT(json_integer_value(json_object_get(ev, "delay_ms")), 0);
            const char *reason = json_string_value(json_object_get(ev, "reason"));
            CHECK(reason && strncmp(reason, "network returned", 16) == 0);
        }
        if (i == 4) CHECK_INT(json_integer_value(json_object_get(ev, "status")), 200);
        json_decref(ev);
    }
    nc_task_free(task);
    nc_request_free(r);
    CHECK_INT(nc_client_set_reachability_handler(c, NULL, NULL), NC_OK);
    int seen = l.nstates;
    CHECK_INT(nc_client_set_reachability(c, NC_REACH_OFFLINE), NC_OK);
    CHECK_INT(l.nstates, seen); /* removed: not called */
    nc_client_free(c);

    /* queue mode: the handler runs inside nc_client_dispatch(), not before */
    g_ctx = "reachability handler, queue mode";
    struct reach_log q;
    memset(&q, 0, sizeof q);
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.cond, NULL);
    nc_client *qc = make_client(NULL, "\"callbacks\":\"queue\",\"reachability\":{\"mode\":\"online\"}");
    if (!CHECK(qc != NULL)) return;
    CHECK_INT(nc_client_set_reachability_handler(qc, reach_state, &q), NC_OK);
    CHECK_INT(nc_client_set_reachability(qc, NC_REACH_OFFLINE), NC_OK);
    CHECK_INT(nc_client_set_reachability(qc, NC_REACH_ONLINE), NC_OK);
    CHECK_INT(q.nstates, 0);
    struct pollfd pfd = {nc_client_fd(qc), POLLIN, 0};
    CHECK_INT(poll(&pfd, 1, 5000), 1);
    CHECK_INT(nc_client_dispatch(qc), NC_OK);
    CHECK_INT(q.nstates, 2);
    CHECK_INT(q.states[0], NC_REACH_OFFLINE);
    CHECK_INT(q.states[1], NC_REACH_ONLINE);
    CHECK(pthread_equal(q.thread, pthread_self()));
    nc_client_free(qc);
}

/* ---- stubs (issue 34 item 7): canned answers, sequences, only / fallback, record and replay ---- */

static char g_stub_events[8192];
static void stub_event(const char *json, size_t len, void *ud) {
    (void)ud;
    if (strstr(json, "\"request_end\"") && strlen(g_stub_events) + len + 2 < sizeof g_stub_events) {
        strcat(g_stub_events, json);
        strcat(g_stub_events, "\n");
    }
}

/* GET `path` on `client`: the status of the call, the response and the error. */
static nc_status stub_get(nc_client *client, const char *path, long long timeout_ms, nc_response **resp,
                          nc_error **err) {
    nc_request *req = NULL;
    nc_status st;
    *resp = NULL;
    *err = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) return -1;
    if (timeout_ms) nc_request_set_timeout_ms(req, timeout_ms);
    nc_request_set_cache_policy(req, NC_CACHE_ELSE_NETWORK);
    st = nc_client_send_sync(client, req, resp, err);
    nc_request_free(req);
    return st;
}

static char *stub_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) buf[0] = '\0';
    fclose(f);
    return buf;
}

/* Whether `needle` occurs in the `len` bytes at `hay`. */
static int stub_contains(const void *hay, size_t len, const char *needle) {
    size_t n = strlen(needle), i;
    for (i = 0; hay && i + n <= len; i++)
        if (memcmp((const char *)hay + i, needle, n) == 0) return 1;
    return 0;
}

static void test_stubs(void) {
    nc_client *c, *plain;
    nc_response *resp;
    nc_error *err = NULL;
    const void *body;
    size_t len = 0;
    char expected[1024], path[256], dir[128], cfg[2048], recorded_user[512];
    FILE *f;
    g_ctx = "stubs";

    /* each field: method, path placeholder, status, headers, JSON body (its Content-Type) */
    snprintf(dir, sizeof dir, "/tmp/nc-stub-test-%d", (int)getpid());
    {
        char file[256];
        snprintf(file, sizeof file, "/tmp/nc-stub-body-%d.txt", (int)getpid());
        f = fopen(file, "wb");
        if (f) {
            fputs("from a file", f);
            fclose(f);
        }
        snprintf(
            cfg, sizeof cfg,
            "\"retry\":{\"max_attempts\":3,\"backoff\":\"immediate\"},\"cache\":{},"
            "\"stubs\":{\"routes\":["
            "{\"method\":\"GET\",\"path\":\"/api/users/"
            "{id}\",\"status\":200,\"headers\":{\"X-Stub\":\"yes\"},"
            "\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":{\"id\":7,\"name\":\"Stubbed\"}}},"
            "{\"path\":\"/api/seq\",\"responses\":[{\"status\":503},{\"status\":503},"
            "{\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":\"third\"}}]},"
            "{\"path\":\"/api/once\",\"times\":1,\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":1}},"
            "{\"path\":\"/api/down\",\"error\":{\"transport\":7}},"
            "{\"path\":\"/api/slow\",\"delay_ms\":5000,\"body\":\"late\"},"
            "{\"path\":\"/api/file\",\"body_file\":\"%s\"},"
            "{\"path\":\"/api/b64\",\"body_base64\":\"AAEC/w==\"},"
            "{\"path\":\"/api/"
            "q\",\"query\":{\"page\":\"2\"},\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":\"page2\"}},"
            "{\"path\":\"/api/cached\",\"times\":1,\"headers\":{\"Cache-Control\":\"max-age=60\"},"
            "\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":\"kept\"}}"
            "]}",
            file);
        c = make_client(ENVELOPE_A, cfg);
        unlink(file);
    }
    if (!c) return;
    g_stub_events[0] = '\0';
    CHECK_INT(nc_client_set_event_handler(c, stub_event, NULL), NC_OK);

    CHECK_INT(stub_get(c, "/users/9", 0, &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) {
        CHECK_INT(nc_response_status(resp), 200);
        CHECK_STR(nc_response_header(resp, "X-Stub"), "yes");
        CHECK_STR(nc_response_header(resp, "Content-Type"), "application/json");
        CHECK_JSON(nc_response_data(resp), "{\"id\":7,\"name\":\"Stubbed\"}");
    }
    nc_response_free(resp);
    nc_error_free(err);
    CHECK(strstr(g_stub_events, "\"stubbed\":true") != NULL);

    /* a sequence: 503, 503, then the envelope, through the client's retry policy */
    CHECK_INT(stub_get(c, "/seq", 0, &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) CHECK_JSON(nc_response_data(resp), "\"third\"");
    nc_response_free(resp);
    nc_error_free(err);

    /* times: 1, then the route is passed over: only mode's CLIENT NO_STUB naming the request */
    CHECK_INT(stub_get(c, "/once", 0, &resp, &err), NC_OK);
    nc_response_free(resp);
    nc_error_free(err);
    CHECK_INT(stub_get(c, "/once", 0, &resp, &err), NC_ERR_FAILED);
    CHECK(resp == NULL);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
        CHECK_INT(nc_error_code(err), NC_CLIENT_NO_STUB);
        CHECK_INT(nc_error_attempts(err), 0);
        snprintf(expected, sizeof expected,
                 "No stub answers GET %s/once (\"stubs\" mode \"only\": nothing was sent). Add a route "
                 "for it "
                 "(nc_client_add_stub) or set \"mode\": \"fallback\" to send unmatched requests to the "
                 "network.",
                 g_base);
        CHECK_STR(nc_error_message(err), expected);
    }
    nc_error_free(err);

    /* a transport failure, retried (7 is) and given up after 3 attempts */
    CHECK_INT(stub_get(c, "/down", 0, &resp, &err), NC_ERR_FAILED);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_TRANSPORT);
        CHECK_INT(nc_error_code(err), 7);
        CHECK_INT(nc_error_attempts(err), 3);
        if (!CHECK(strstr(nc_error_message(err), "answered by the stub * /api/down") != NULL))
            printf("     message: %s\n", nc_error_message(err));
    }
    nc_response_free(resp);
    nc_error_free(err);

    /* delay_ms past the request's timeout_ms: TRANSPORT 28 (no wall clock asserted) */
    CHECK_INT(stub_get(c, "/slow", 50, &resp, &err), NC_ERR_FAILED);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_TRANSPORT);
        CHECK_INT(nc_error_code(err), 28);
    }
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL; /* a success below does not write it: not freed twice */

    /* body_file and body_base64: the bytes exactly (raw requests on the same client) */
    {
        nc_request *req = NULL;
        nc_request_new("GET", "/file", &req);
        nc_request_set_envelope(req, 0);
        CHECK_INT(nc_client_send_sync(c, req, &resp, &err), NC_OK);
        nc_request_free(req);
        body = resp ? nc_response_body(resp, &len) : NULL;
        CHECK_INT(len, 11);
        CHECK(body && memcmp(body, "from a file", 11) == 0);
        nc_response_free(resp);
        nc_error_free(err);
        nc_request_new("GET", "/b64", &req);
        nc_request_set_envelope(req, 0);
        CHECK_INT(nc_client_send_sync(c, req, &resp, &err), NC_OK);
        nc_request_free(req);
        body = resp ? nc_response_body(resp, &len) : NULL;
        CHECK_INT(len, 4);
        CHECK(body && memcmp(body, "\x00\x01\x02\xff", 4) == 0);
        nc_response_free(resp);
        nc_error_free(err);
    }

    /* query: the route answers page=2 only */
    CHECK_INT(stub_get(c, "/q?page=2&x=1", 0, &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) CHECK_JSON(nc_response_data(resp), "\"page2\"");
    nc_response_free(resp);
    nc_error_free(err);
    CHECK_INT(stub_get(c, "/q?page=3", 0, &resp, &err), NC_ERR_FAILED);
    CHECK_INT(err ? nc_error_code(err) : 0, NC_CLIENT_NO_STUB);
    nc_response_free(resp);
    nc_error_free(err);

    /* the cache stores a stubbed answer: the route answers once, the second call is the cache's */
    if (!CHECK_INT(stub_get(c, "/cached", 0, &resp, &err), NC_OK))
        printf("     error: %s\n", nc_error_json(err));
    if (CHECK(resp != NULL)) CHECK_INT(nc_response_from_cache(resp), 0);
    nc_response_free(resp);
    nc_error_free(err);
    CHECK_INT(stub_get(c, "/cached", 0, &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) {
        CHECK_INT(nc_response_from_cache(resp), 1);
        CHECK_JSON(nc_response_data(resp), "\"kept\"");
    }
    nc_response_free(resp);
    nc_error_free(err);

    /* nc_client_add_stub: appended; a wrong route refused naming the member, nothing changes */
    err = NULL;
    CHECK_INT(nc_client_add_stub(
                  c, "{\"path\":\"/api/added\",\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":\"added\"}}",
                  &err),
              NC_OK);
    CHECK(err == NULL);
    CHECK_INT(stub_get(c, "/added", 0, &resp, &err), NC_OK);
    if (CHECK(resp != NULL)) CHECK_JSON(nc_response_data(resp), "\"added\"");
    nc_response_free(resp);
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_add_stub(c, "{\"path\":\"/api/x\",\"status\":\"200\"}", &err),
              NC_ERR_INVALID_ARGUMENT);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
        CHECK_STR(nc_error_message(err), "stub: 'status' must be an integer, got string.");
    }
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_add_stub(c, "{\"path\":\"/api/x\",\"colour\":1}", &err),
              NC_ERR_INVALID_ARGUMENT);
    if (CHECK(err != NULL))
        CHECK_STR(nc_error_message(err), "stub: unknown member 'colour'. Known: method, path, query, "
                                         "times, responses, status, headers, "
                                         "body, body_base64, body_file, delay_ms, error.");
    nc_error_free(err);
    CHECK_INT(nc_client_add_stub(NULL, "{}", NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_add_stub(c, NULL, NULL), NC_ERR_INVALID_ARGUMENT);
    nc_client_free(c);

    /* a client without "stubs" refuses routes: NC_ERR_INVALID_STATE */
    plain = make_client(NULL, NULL);
    err = NULL;
    CHECK_INT(nc_client_add_stub(plain, "{\"path\":\"/x\"}", &err), NC_ERR_INVALID_STATE);
    if (CHECK(err != NULL))
        CHECK_STR(nc_error_message(err),
                  "This client has no stubs: create it with \"stubs\" in its configuration "
                  "(\"stubs\": {} is enough) to add routes later.");
    nc_error_free(err);
    nc_client_free(plain);

    /* a wrong configuration names the route and the member */
    err = NULL;
    plain = NULL;
    CHECK_INT(
        nc_client_new("{\"stubs\":{\"routes\":[{\"path\":\"/a\",\"delay_ms\":-1}]}}", &plain, &err),
        NC_ERR_INVALID_ARGUMENT);
    if (CHECK(err != NULL)) {
        CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_CONFIG);
        CHECK_STR(nc_error_message(err),
                  "Configuration key 'stubs.routes[0]': 'delay_ms' must be 0-2147483647 (got -1).");
    }
    nc_error_free(err);
    err = NULL;
    CHECK_INT(nc_client_new("{\"stubs\":{\"mode\":\"only\",\"record\":\"/tmp\"}}", &plain, &err),
              NC_ERR_INVALID_ARGUMENT);
    if (CHECK(err != NULL))
        CHECK_STR(nc_error_message(err),
                  "Configuration key 'stubs.mode' \"only\" records nothing: 'stubs.record' "
                  "needs \"fallback\" (its default).");
    nc_error_free(err);

    /* fallback: what no route answers goes to the server */
    c = make_client(ENVELOPE_A,
                    "\"stubs\":{\"mode\":\"fallback\",\"routes\":[{\"path\":\"/api/users/9\","
                    "\"body\":{\"code\":0,\"msg\":\"ok\",\"data\":\"stub\"}}]}");
    if (c) {
        expect_ok(c, "/users/9", "\"stub\"");
        expect_ok(c, "/users/7", "{\"id\":7,\"name\":\"Ada\"}");
        nc_client_free(c);
    }

    /* record against the server (a secret query parameter, a token header, a token in a body) ... */
    snprintf(cfg, sizeof cfg,
             "\"headers\":{\"Authorization\":\"Bearer TOPSECRET-1\"},\"stubs\":{\"record\":\"%s\"}",
             dir);
    c = make_client(NULL, cfg);
    recorded_user[0] = '\0';
    if (c) {
        nc_request *req = NULL;
        CHECK_INT(stub_get(c, "/users/7?api_key=S3CRET-2&lang=en", 0, &resp, &err), NC_OK);
        body = resp ? nc_response_body(resp, &len) : NULL;
        if (CHECK(body != NULL && len < sizeof recorded_user)) {
            memcpy(recorded_user, body, len);
            recorded_user[len] = '\0';
        }
        nc_response_free(resp);
        nc_error_free(err);
        nc_request_new("POST", "/login", &req);
        {
            const char *creds = "{\"username\":\"ada\",\"password\":\"secret\"}";
            nc_request_set_body(req, creds, strlen(creds), "application/json");
        }
        CHECK_INT(nc_client_send_sync(c, req, &resp, &err), NC_OK);
        nc_request_free(req);
        body = resp ? nc_response_body(resp, &len) : NULL;
        CHECK(stub_contains(body, len, "tok-ada")); /* the server's token, as received */
        nc_response_free(resp);
        nc_error_free(err);
        nc_client_free(c);
    }
    /* ... no secret in any recorded file ... */
    {
        char cmd[512], *text;
        FILE *ls;
        int files = 0;
        snprintf(cmd, sizeof cmd, "ls %s", dir);
        ls = popen(cmd, "r");
        while (ls && fgets(path, sizeof path, ls)) {
            char full[512];
            path[strcspn(path, "\n")] = '\0';
            snprintf(full, sizeof full, "%s/%s", dir, path);
            text = stub_read_file(full);
            files++;
            if (CHECK(text != NULL)) {
                CHECK(strstr(text, "TOPSECRET") == NULL);
                CHECK(strstr(text, "S3CRET") == NULL);
                CHECK(strstr(text, "tok-ada") == NULL);
                CHECK(strstr(text, "\"path\": \"/api/") != NULL);
            }
            free(text);
        }
        if (ls) pclose(ls);
        CHECK_INT(files, 2);
    }
    /* ... and replayed with no server (nothing listens on port 9): byte-identical, the token redacted */
    snprintf(cfg, sizeof cfg, "{\"base_url\":\"http://127.0.0.1:9/api\",\"stubs\":{\"dir\":\"%s\"}}",
             dir);
    c = NULL;
    err = NULL;
    if (CHECK_INT(nc_client_new(cfg, &c, &err), NC_OK)) {
        nc_request *req = NULL;
        CHECK_INT(stub_get(c, "/users/7?api_key=ANY&lang=en", 0, &resp, &err), NC_OK);
        body = resp ? nc_response_body(resp, &len) : NULL;
        CHECK_INT(len, strlen(recorded_user));
        CHECK(body && memcmp(body, recorded_user, len) == 0);
        nc_response_free(resp);
        nc_error_free(err);
        nc_request_new("POST", "/login", &req);
        CHECK_INT(nc_client_send_sync(c, req, &resp, &err), NC_OK);
        nc_request_free(req);
        body = resp ? nc_response_body(resp, &len) : NULL;
        CHECK(stub_contains(body, len, "\"token\":\"REDACTED\""));
        nc_response_free(resp);
        nc_error_free(err);
        /* another language: not recorded, so NO_STUB (nothing sent to port 9) */
        CHECK_INT(stub_get(c, "/users/7?lang=fr", 0, &resp, &err), NC_ERR_FAILED);
        CHECK_INT(err ? nc_error_code(err) : 0, NC_CLIENT_NO_STUB);
        nc_response_free(resp);
        nc_error_free(err);
        nc_client_free(c);
    } else {
        nc_error_free(err);
    }
    {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0) printf("     could not remove %s\n", dir);
    }
}

/* ---- sends held together (nc_client_cork, since 0.4) ---------------------- */

typedef struct {
    nc_client *client;
    const nc_request *req;
    waiter *next; /* sent, corked, from inside the completion */
    nc_status cork, send, uncork;
} cork_ctx;

static void cork_cb(const nc_response *resp, const nc_error *err, void *userdata) {
    cork_ctx *x = userdata;
    (void)resp;
    (void)err;
    x->cork = nc_client_cork(x->client);
    x->send = nc_client_send(x->client, x->req, loop_cb, x->next, NULL);
    x->uncork = nc_client_uncork(x->client);
}

static void test_cork(void) {
    slot s[QN], done[3];
    waiter next;
    nc_client *q = make_client(ENVELOPE_A, "\"callbacks\":\"queue\"");
    nc_client *loop = make_client(ENVELOPE_A, NULL);
    nc_request *req = NULL;
    cork_ctx x;
    int i;

    g_ctx = "cork arguments";
    memset(s, 0, sizeof s);
    memset(done, 0, sizeof done);
    waiter_init(&next);
    CHECK_INT(nc_client_cork(NULL), NC_ERR_INVALID_ARGUMENT);
    CHECK_INT(nc_client_uncork(NULL), NC_ERR_INVALID_ARGUMENT);
    if (!q || !loop) goto out;
    /* not corked: refused, nothing changed (the count does not go below zero) */
    CHECK_INT(nc_client_uncork(q), NC_ERR_INVALID_STATE);
    CHECK_INT(nc_request_new("GET", "/env/code/ok", &req), NC_OK);

    /* Nested corks; every request sent meanwhile completes exactly once, with its
     * answer, after the last uncork. */
    g_ctx = "cork queue mode";
    CHECK_INT(nc_client_cork(q), NC_OK);
    CHECK_INT(nc_client_cork(q), NC_OK);
    for (i = 0; i < QN; i++) CHECK_INT(nc_client_send(q, req, queue_cb, &s[i], NULL), NC_OK);
    CHECK_INT(nc_client_uncork(q), NC_OK);
    CHECK_INT(nc_client_uncork(q), NC_OK);
    CHECK_INT(nc_client_uncork(q), NC_ERR_INVALID_STATE); /* two corks, two uncorks */
    pump(q, s, QN, QN);
    CHECK_INT(total(s, QN), QN);
    for (i = 0; i < QN; i++) {
        CHECK_INT(s[i].count, 1);
        CHECK(s[i].success);
        CHECK(s[i].on_main);
    }
    /* uncorked for good: a plain send runs as before */
    memset(s, 0, sizeof s);
    CHECK_INT(nc_client_send(q, req, queue_cb, &s[0], NULL), NC_OK);
    pump(q, s, 1, 1);
    CHECK_INT(s[0].count, 1);
    CHECK(s[0].success);

    /* From inside a completion (loop mode, on the transfer thread): cork, send, uncork. */
    g_ctx = "cork in a completion";
    x.client = loop;
    x.req = req;
    x.next = &next;
    x.cork = x.send = x.uncork = -1;
    if (CHECK_INT(nc_client_send(loop, req, cork_cb, &x, NULL), NC_OK))
        CHECK_INT(waiter_count(&next, 1, 10000), 1);
    CHECK_INT(x.cork, NC_OK);
    CHECK_INT(x.send, NC_OK);
    CHECK_INT(x.uncork, NC_OK);
    CHECK_INT(next.domain, 0); /* no error */

    /* Freed while corked: every request sent meanwhile completes exactly once. */
    g_ctx = "cork then free";
    CHECK_INT(nc_client_cork(q), NC_OK);
    for (i = 0; i < 3; i++) CHECK_INT(nc_client_send(q, req, queue_cb, &done[i], NULL), NC_OK);
    nc_client_free(q);
    q = NULL;
    for (i = 0; i < 3; i++) {
        CHECK_INT(done[i].count, 1);
        CHECK(done[i].success ||
              (done[i].domain == NC_DOMAIN_CLIENT && done[i].code == NC_CLIENT_SHUTDOWN));
    }
out:
    nc_request_free(req);
    nc_client_free(q);
    nc_client_free(loop);
    waiter_destroy(&next);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s http://127.0.0.1:<port>/api\n", argv[0]);
        return 2;
    }
    g_base = argv[1];
    g_main_thread = pthread_self();
    setvbuf(stdout, NULL, _IOLBF, 0);

    test_shape_a();
    test_shape_b();
    test_shape_c();
    test_raw_mode();
    test_queue_mode();
    test_loop_callbacks();
    test_null_arguments();
    test_free_in_flight();
    test_misbehaving_servers();
    test_hooks();
    test_adapters();
    test_cache();
    test_cookies();
    test_log_to_stderr();
    test_api_layer();
    test_preconnect();
    test_stubs();
    test_cork();

    test_data_unpack();

    test_request_identity();
    test_reachability_watch();

    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
