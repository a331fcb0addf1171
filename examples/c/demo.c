/*
 * demo.c — a guided tour of libnetcore's C API.
 *
 *   usage: demo <config.json>        (`make demo` runs it against the mock API)
 *
 * Every step checks what it got, so the demo doubles as an end-to-end test:
 * it exits 0 only when every step behaved as expected.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcore.h"

/* If `cond` is false: say what went wrong and jump to the step's cleanup. */
#define EXPECT(cond, what)                                                                              \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "  FAILED: %s\n    (expected %s)\n", what, #cond);                                \
      goto out;                                                                                         \
    }                                                                                                   \
  } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void section(const char *title) {
    printf("\n== %s ==\n", title);
}

/* Prints every field of an error; all accessors accept any error. */
static void print_error(const nc_error *err) {
    const char *trace = nc_error_trace_id(err);
    const char *data = nc_error_data_json(err, NULL);
    printf("  domain:      %s (%d)\n", nc_error_domain_name(err), (int)nc_error_domain(err));
    printf("  code:        %lld (code_str \"%s\")\n", (long long)nc_error_code(err),
           nc_error_code_str(err));
    printf("  message:     %s\n", nc_error_message(err));
    printf("  trace id:    %s\n", trace ? trace : "(none)");
    printf("  http status: %d\n", (int)nc_error_http_status(err));
    printf("  data:        %s\n", data ? data : "(none)");
}

/* ---- The async pattern: a callback that hands its result to a waiting thread. */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    nc_response *response; /* our own references: the callback's are borrowed */
    nc_error *error;
} waiter;

static void waiter_init(waiter *w) {
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->done = 0;
    w->response = NULL;
    w->error = NULL;
}

static void waiter_destroy(waiter *w) {
    nc_response_free(w->response);
    nc_error_free(w->error);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mutex);
}

/* Runs on the client's transfer thread, exactly once per nc_client_send(). */
static void on_complete(const nc_response *response, const nc_error *error, void *userdata) {
    waiter *w = userdata;
    pthread_mutex_lock(&w->mutex);
    w->response = nc_response_retain(response); /* NULL stays NULL */
    w->error = nc_error_copy(error);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->mutex);
}

static void waiter_wait(waiter *w) {
    pthread_mutex_lock(&w->mutex);
    while (!w->done) pthread_cond_wait(&w->cond, &w->mutex);
    pthread_mutex_unlock(&w->mutex);
}

/* ---- The steps. Each returns 1 when everything went as expected. */

static int step_login(nc_client *client) {
    static const char creds[] = "{\"username\":\"ada\",\"password\":\"secret\"}";
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    char auth[256];
    int ok = 0;

    section("1. Log in: POST /login with a JSON body (sync)");
    EXPECT(nc_request_new("POST", "/login", &req) == NC_OK, "create the request");
    EXPECT(nc_request_set_params_json(req, creds, strlen(creds)) == NC_OK, "set the params");
    EXPECT(nc_request_set_encoding(req, NC_ENCODING_JSON) == NC_OK, "choose JSON encoding");
    if (nc_client_send_sync(client, req, &resp, &err) != NC_OK) print_error(err);
    EXPECT(err == NULL && resp != NULL, "login succeeds");

    /* The envelope's data, as a borrowed jansson value: {"token":...,"expires_in":...} */
    const char *token = json_string_value(json_object_get(nc_response_data(resp), "token"));
    EXPECT(token != NULL && strcmp(token, "tok-ada") == 0, "the data carries token \"tok-ada\"");
    printf("  token:       %s\n", token);

    /* Every later request of this client sends the token. */
    snprintf(auth, sizeof auth, "Bearer %s", token);
    EXPECT(nc_client_set_header(client, "Authorization", auth) == NC_OK, "set the header");
    printf("  client default header set: Authorization: %s\n", auth);
    ok = 1;
out:
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    return ok;
}

static int step_profile(nc_client *client) {
    nc_request *req = NULL;
    waiter w;
    int ok = 0;

    waiter_init(&w);
    section("2. Fetch the profile: GET /profile (async, callback + condvar)");
    EXPECT(nc_request_new("GET", "/profile", &req) == NC_OK, "create the request");
    EXPECT(nc_client_send(client, req, on_complete, &w, NULL) == NC_OK, "start the request");
    nc_request_free(req); /* send copied it: the builder may go right away */
    req = NULL;
    waiter_wait(&w);
    if (w.error) print_error(w.error);
    EXPECT(w.error == NULL && w.response != NULL, "the profile arrives");
    const char *data = nc_response_data_json(w.response, NULL);
    printf("  http status: %d\n", (int)nc_response_status(w.response));
    printf("  data:        %s\n", data ? data : "(none)");
    const char *name = json_string_value(json_object_get(nc_response_data(w.response), "name"));
    EXPECT(name != NULL && strcmp(name, "ada") == 0, "the profile is ada's");
    ok = 1;
out:
    nc_request_free(req);
    waiter_destroy(&w);
    return ok;
}

static int step_business_errors(nc_client *client) {
    static const char creds[] = "{\"username\":\"ada\",\"password\":\"wrong\"}";
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int ok = 0;

    section("3a. A business error: POST /login with a wrong password");
    EXPECT(nc_request_new("POST", "/login", &req) == NC_OK, "create the request");
    EXPECT(nc_request_set_params_json(req, creds, strlen(creds)) == NC_OK, "set the params");
    EXPECT(nc_request_set_encoding(req, NC_ENCODING_JSON) == NC_OK, "choose JSON encoding");
    EXPECT(nc_client_send_sync(client, req, &resp, &err) == NC_ERR_FAILED, "the login fails");
    print_error(err);
    EXPECT(nc_error_domain(err) == NC_DOMAIN_API && nc_error_code(err) == 1001,
           "an API error with the server's code 1001");
    EXPECT(strcmp(nc_error_message(err), "wrong username or password") == 0, "the server's message");
    EXPECT(strcmp(nc_error_code_str(err), "1001") == 0 && nc_error_http_status(err) == 200,
           "code_str \"1001\", HTTP status 200");
    EXPECT(nc_error_trace_id(err) && strcmp(nc_error_trace_id(err), "trace-login") == 0, "the trace id");
    EXPECT(json_integer_value(json_object_get(nc_error_data(err), "attempts_left")) == 2,
           "the error data says how many attempts are left");
    nc_request_free(req);
    nc_response_free(resp); /* the response of an API error is kept for inspection */
    nc_error_free(err);
    req = NULL, resp = NULL, err = NULL;

    section("3b. Token expired: GET /profile with \"Authorization: Bearer nope\"");
    EXPECT(nc_request_new("GET", "/profile", &req) == NC_OK, "create the request");
    /* A request's own header wins over the client default of the same name. */
    EXPECT(nc_request_set_header(req, "Authorization", "Bearer nope") == NC_OK, "set header");
    EXPECT(nc_client_send_sync(client, req, &resp, &err) == NC_ERR_FAILED, "the call fails");
    print_error(err);
    printf("  auth expired: %s\n",
           nc_error_is_auth_expired(err) ? "yes -> show the login screen" : "no");
    EXPECT(nc_error_code(err) == 401001 && nc_error_is_auth_expired(err),
           "code 401001, listed in envelope.auth_expired_codes");
    ok = 1;
out:
    nc_request_free(req);
    nc_response_free(resp);
    nc_error_free(err);
    return ok;
}

static int step_cancel(nc_client *client) {
    nc_request *req = NULL;
    nc_task *task = NULL;
    waiter w;
    int ok = 0;

    waiter_init(&w);
    section("4. Cancel: GET /slow?ms=5000, cancelled after ~100 ms");
    EXPECT(nc_request_new("GET", "/slow?ms=5000", &req) == NC_OK, "create the request");
    EXPECT(nc_client_send(client, req, on_complete, &w, &task) == NC_OK, "start the request");
    sleep_ms(100);
    double t0 = now_ms();
    nc_task_cancel(task); /* when it returns, the callback has returned */
    double took = now_ms() - t0;
    pthread_mutex_lock(&w.mutex);
    int done = w.done;
    pthread_mutex_unlock(&w.mutex);
    EXPECT(done, "the callback has run when nc_task_cancel() returns");
    print_error(w.error);
    printf("  nc_task_cancel() took %.2f ms\n", took);
    EXPECT(nc_error_domain(w.error) == NC_DOMAIN_CLIENT && nc_error_code(w.error) == NC_CLIENT_CANCELLED,
           "the callback got NC_CLIENT_CANCELLED");
    ok = 1;
out:
    nc_task_free(task);
    nc_request_free(req);
    waiter_destroy(&w);
    return ok;
}

static int step_raw(nc_client *client) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int ok = 0;

    section("5. Raw mode: GET /status/404?body=text without the envelope");
    EXPECT(nc_request_new("GET", "/status/404?body=text", &req) == NC_OK, "create the request");
    EXPECT(nc_request_set_envelope(req, 0) == NC_OK, "switch the envelope off");
    EXPECT(nc_client_send_sync(client, req, &resp, &err) == NC_ERR_FAILED, "the call fails");
    print_error(err);
    EXPECT(nc_error_domain(err) == NC_DOMAIN_HTTP && nc_error_code(err) == 404 &&
               nc_error_http_status(err) == 404,
           "an HTTP error 404");
    /* HTTP errors come with the response: status, headers and body stay readable. */
    EXPECT(resp != NULL && nc_response_status(resp) == 404, "the response is kept");
    printf("  body:        %s\n", (const char *)nc_response_body(resp, NULL));
    ok = 1;
out:
    nc_request_free(req);
    nc_response_free(resp);
    nc_error_free(err);
    return ok;
}

static int step_throughput(nc_client *client) {
    enum { N = 1000 };
    nc_request *req = NULL;
    int i, ok = 0;

    section("6. Throughput: sequential sync GET /env/code/ok");
    EXPECT(nc_request_new("GET", "/env/code/ok", &req) == NC_OK, "create the request");
    double t0 = now_ms();
    for (i = 0; i < N; i++) { /* one builder, sent N times; the connection is reused */
        nc_error *err = NULL;
        nc_status st = nc_client_send_sync(client, req, NULL, &err);
        if (st != NC_OK) print_error(err);
        nc_error_free(err);
        EXPECT(st == NC_OK, "every request succeeds");
    }
    double secs = (now_ms() - t0) / 1e3;
    printf("  %d requests in %.2f s: %.0f requests/second\n", N, secs, N / secs);
    ok = 1;
out:
    nc_request_free(req);
    return ok;
}

/* Reads a whole file into a NUL-terminated buffer (free() it), or NULL. */
static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL) {
        buf[fread(buf, 1, (size_t)size, f)] = '\0';
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    nc_client *client = NULL;
    nc_error *err = NULL;
    char *config;
    int ok;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <config.json>\n", argv[0]);
        return 2;
    }
    if (!(config = read_file(argv[1]))) {
        perror(argv[1]);
        return 1;
    }
    printf("libnetcore %s demo (header %s), config %s\n", nc_version(), NC_VERSION_STRING, argv[1]);
    if (nc_client_new(config, &client, &err) != NC_OK) {
        fprintf(stderr, "cannot create the client: %s\n", nc_error_message(err));
        nc_error_free(err);
        free(config);
        return 1;
    }
    free(config);

    ok = step_login(client) && step_profile(client) && step_business_errors(client) &&
         step_cancel(client) && step_raw(client) && step_throughput(client);

    nc_client_free(client); /* waits for every callback, stops the transfer thread */
    printf("\n%s\n", ok ? "demo OK: every step behaved as expected" : "demo FAILED");
    return ok ? 0 : 1;
}
