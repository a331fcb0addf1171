/* retry.c — retry with backoff, what is not retried, and a deadline.
 * usage: retry http://127.0.0.1:8080/api
 *
 * The client retries failed GETs (HTTP 5xx, connection trouble) after an
 * exponential wait; every retry is an event. A POST is sent once unless it says
 * it may be repeated (an Idempotency-Key header). A deadline bounds all the
 * attempts and waits of one request together. */
#include <netcore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Prints each retry the client schedules: its wait and its reason. */
static void on_event(const char *event_json, size_t len, void *userdata) {
    (void)userdata;
    json_error_t jerr;
    json_t *e = json_loadb(event_json, len, 0, &jerr);
    if (e && !strcmp(json_string_value(json_object_get(e, "event")), "retry"))
        printf("  retry in %lld ms: %s\n", (long long)json_integer_value(json_object_get(e, "delay_ms")),
               json_string_value(json_object_get(e, "reason")));
    json_decref(e);
}

/* Sends `method path` (with an Idempotency-Key when `key` is set) and prints the outcome. */
static void run(nc_client *c, const char *method, const char *path, const char *key,
                int64_t deadline_ms) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (nc_request_new(method, path, &req) != NC_OK) return;
    if (!strcmp(method, "POST")) nc_request_set_params_json(req, "{\"order\":1}", 11);
    if (key) nc_request_set_header(req, "Idempotency-Key", key);
    if (deadline_ms > 0) nc_request_set_deadline_ms(req, deadline_ms);
    printf("%s %.*s\n", method, (int)strcspn(path, "?"), path);
    if (nc_client_send_sync(c, req, &resp, &err) == NC_OK) {
        json_error_t jerr;
        json_t *m = json_loads(nc_response_metrics_json(resp), 0, &jerr);
        printf("  => %d after %lld attempt(s)\n", nc_response_status(resp),
               (long long)json_integer_value(json_object_get(m, "attempts")));
        json_decref(m);
    } else {
        json_error_t jerr;
        json_t *j = json_loads(nc_error_json(err), 0, &jerr);
        json_t *timeout = json_object_get(j, "timeout");
        printf("  => %s %lld after %d attempt(s)%s%s\n", nc_error_domain_name(err),
               (long long)nc_error_code(err), nc_error_attempts(err),
               json_is_string(timeout) ? ", timeout: " : "",
               json_is_string(timeout) ? json_string_value(timeout) : "");
        json_decref(j);
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
}

int main(int argc, char **argv) {
    char config[1024], path[256];
    nc_client *client = NULL;
    nc_error *err = NULL;
    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    /* Three attempts at most, waiting 50 ms then 100 ms (no jitter, to print the same
       waits every run; leave jitter on in an app). */
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{},"
             "\"retry\":{\"max_attempts\":3,\"backoff\":\"exponential\",\"initial_ms\":50,"
             "\"multiplier\":2,\"max_delay_ms\":2000,\"jitter\":false}}",
             argv[1]);
    if (nc_client_new(config, &client, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    nc_client_set_event_handler(client, on_event, NULL);
    /* The mock server's /flaky fails the first `fails` requests with each key. */
    long stamp = (long)time(NULL) * 1000 + (long)getpid() % 1000;

    snprintf(path, sizeof path, "/flaky?key=get-%ld&fails=2&status=503", stamp);
    run(client, "GET", path, NULL, 0); /* two retries, then 200 */

    snprintf(path, sizeof path, "/flaky?key=post-%ld&fails=1&status=503", stamp);
    run(client, "POST", path, NULL, 0); /* not retried: it may have taken effect */

    snprintf(path, sizeof path, "/flaky?key=keyed-%ld&fails=1&status=503", stamp);
    run(client, "POST", path, "order-1", 0); /* an Idempotency-Key: retried */

    snprintf(path, sizeof path, "/flaky?key=late-%ld&fails=9&status=503&retry_after=30", stamp);
    run(client, "GET", path, NULL, 1000); /* Retry-After 30 s (capped at 2 s) ends past the deadline */

    nc_client_free(client);
    return 0;
}
