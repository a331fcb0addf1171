/*
 * fuzz_endpoint.c — libFuzzer target: the API layer's inputs (endpoints, retry, headers).
 * The input is split at NUL bytes into an endpoint spec, params, a per-request
 * retry policy, then header name/value pairs (with neither, the request is sent
 * by nc_client_call_sync). nc_client_define_endpoint must
 * accept or refuse the spec (NC_ERR_INVALID_ARGUMENT); the request naming it is
 * then resolved (path templating, percent-encoding, the encodings), adapted
 * (common params, the token, signing) and sent, with an event handler and a
 * TRACE log handler installed, to a port where nothing listens (127.0.0.1:9,
 * refused at once; the client's deadline bounds any retries).
 * Checked, besides no crash, hang or leak:
 *   - the send fails with an error that has a message;
 *   - every event is valid JSON, and a resolved request's URL stays on the base
 *     URL's host (a param cannot move it);
 *   - every log line is one line (no control character or line separator: a
 *     param cannot forge a line) and
 *     begins with its level's word;
 *   - neither the token nor the signing secret is in any event or log line.
 */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "netcore.h"

#define TOKEN  "T0KEN-s3cr3t-VALUE"
#define SECRET "S1GN-s3cr3t-KEY"

static nc_client *g_client;

static void check_secrets(const char *text) {
    if (strstr(text, TOKEN) || strstr(text, SECRET)) abort();
}

static void on_event(const char *event_json, size_t len, void *userdata) {
    (void)userdata;
    if (strlen(event_json) != len) abort();
    check_secrets(event_json);
    json_error_t jerr;
    json_t *ev = json_loads(event_json, 0, &jerr);
    if (!json_is_object(ev)) abort();
    const char *url = json_string_value(json_object_get(ev, "url"));
    if (url && strncmp(url, "http://127.0.0.1:9/", 19) != 0) abort();
    json_decref(ev);
}

static void on_log(const char *line, size_t len, void *userdata) {
    (void)userdata;
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n", line); /* to read what a seed does */
    if (strlen(line) != len) abort();
    check_secrets(line);
    if (!is_one_line(line)) abort();
    static const char *words[] = {"ERROR ", "WARN ", "INFO ", "DEBUG ", "TRACE "};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strncmp(line, words[i], strlen(words[i])) == 0) return;
    abort();
}

static void setup(void) {
    nc_error *err = NULL;
    if (nc_client_new("{\"base_url\":\"http://127.0.0.1:9/api\",\"timeout_ms\":1000,\"deadline_ms\":300,"
                      "\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
                      "\"common_params\":{\"app\":\"fuzz\",\"v\":3},"
                      "\"signing\":{\"secret\":\"" SECRET "\"},"
                      "\"retry\":{\"max_attempts\":2,\"backoff\":\"immediate\"},"
                      "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\","
                      "\"data\":\"data\",\"auth_expired_codes\":[401001]}}",
                      &g_client, &err) != NC_OK)
        abort();
    if (nc_client_set_token(g_client, TOKEN) != NC_OK) abort();
    if (nc_client_set_event_handler(g_client, on_event, NULL) != NC_OK) abort();
    if (nc_client_set_log_handler(g_client, NC_LOG_TRACE, on_log, NULL) != NC_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* An input that holds a secret may put it in a URL itself; an absolute URL in
     * the spec may name any host. Neither is what this target checks. */
    if (memmem(data, size, "s3cr3t", 6) || memmem(data, size, "//", 2)) return 0;
    if (!g_client) setup();
    const char *p = (const char *)data, *end = p + size;
    static char spec[4096], params[4096], retry[1024], name[256], value[1024];
    next_part(&p, end, spec, sizeof spec);
    next_part(&p, end, params, sizeof params);
    next_part(&p, end, retry, sizeof retry);
    nc_status st = nc_client_define_endpoint(g_client, "ep", spec);
    if (st != NC_OK && st != NC_ERR_INVALID_ARGUMENT) abort();
    /* A refused spec leaves the catalog as it was: "ep" is made the same for every
     * such input, so that what an input does never depends on the one before. */
    if (st != NC_OK && nc_client_define_endpoint(g_client, "ep", "{\"path\":\"/fixed/{id}\"}") != NC_OK)
        abort();

    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (!retry[0] && p >= end) {
        /* No retry policy and no headers: the one-call form. */
        st = nc_client_call_sync(g_client, "ep", params, strlen(params), &resp, &err);
        if (st == NC_ERR_INVALID_ARGUMENT) {
            if (resp || err) abort();
            return 0;
        }
    } else {
        nc_request *req = NULL;
        if (nc_request_new_endpoint("ep", &req) != NC_OK) abort();
        nc_request_set_params_json(req, params, strlen(params));
        nc_request_set_retry_json(req, retry, strlen(retry));
        while (p < end) {
            next_part(&p, end, name, sizeof name);
            next_part(&p, end, value, sizeof value);
            nc_request_set_header(req, name, value);
        }
        st = nc_client_send_sync(g_client, req, &resp, &err);
        nc_request_free(req);
    }
    /* Nothing listens on port 9: every send fails, with a message. */
    if (st != NC_ERR_FAILED || !err || !nc_error_message(err)[0]) abort();
    nc_response_free(resp);
    nc_error_free(err);
    return 0;
}
