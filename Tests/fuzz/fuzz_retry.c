/*
 * fuzz_retry.c — libFuzzer target: retry policies as JSON text, in the three places
 * that read them (RetryPolicy+JSON.swift's parsePatch and RetryOverride): a
 * request's nc_request_set_retry_json, an endpoint's "retry" and the
 * configuration's "retry". The input is the policy, as written.
 * Checked: each call accepts or refuses (NC_ERR_INVALID_ARGUMENT, or a client
 * refused with a CLIENT 4 error that has a message) and the three agree — an
 * object or false is accepted by the request exactly when the endpoint accepts it,
 * and a configuration accepts only what the request accepts; a request with an
 * accepted policy is then sent NC_CACHE_ONLY (nothing sent: NC_CLIENT_NOT_CACHED,
 * attempts 0) through the endpoint, so the policy is applied over the client's.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "netcore.h"

static nc_client *g_client;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096 || memchr(data, 0, size)) return 0;
    if (!g_client) {
        nc_error *err = NULL;
        if (nc_client_new("{\"reachability\":{\"mode\":\"online\"},\"coalesce\":false,\"cache\":{"
                          "\"memory_bytes\":1024},"
                          "\"retry\":{\"max_attempts\":3}}",
                          &g_client, &err) != NC_OK)
            abort();
    }
    static char text[4097], spec[4200], config[4200];
    memcpy(text, data, size);
    text[size] = 0;

    /* 1. a request's own policy */
    nc_request *req = NULL;
    if (nc_request_new_endpoint("ep", &req) != NC_OK) abort();
    nc_status on_request = nc_request_set_retry_json(req, text, size);
    if (on_request != NC_OK && on_request != NC_ERR_INVALID_ARGUMENT) abort();

    /* 2. an endpoint's "retry" */
    snprintf(spec, sizeof spec,
             "{\"path\":\"http://127.0.0.1:9/r\",\"cache\":\"cache_only\",\"retry\":%s}", text);
    nc_status on_endpoint = nc_client_define_endpoint(g_client, "ep", spec);
    if (on_endpoint != NC_OK && on_endpoint != NC_ERR_INVALID_ARGUMENT) abort();
    if (on_endpoint != NC_OK &&
        nc_client_define_endpoint(
            g_client, "ep", "{\"path\":\"http://127.0.0.1:9/r\",\"cache\":\"cache_only\"}") != NC_OK)
        abort();

    /* 3. the configuration's "retry" */
    snprintf(config, sizeof config, "{\"reachability\":{\"mode\":\"online\"},\"retry\":%s}", text);
    nc_client *c = NULL;
    nc_error *err = NULL;
    nc_status on_config = nc_client_new(config, &c, &err);
    if (on_config == NC_OK) {
        nc_client_free(c);
    } else {
        if (on_config != NC_ERR_INVALID_ARGUMENT && on_config != NC_ERR_FAILED) {
            fprintf(stderr, "nc_client_new: %d\n", (int)on_config);
            abort();
        }
        if (err && !nc_error_message(err)[0]) abort();
        nc_error_free(err);
    }

    /* The three agree: the request and the endpoint read objects and false alike
     * (null: the request's "use the client's", which the endpoint does not take). */
    /* Only for one JSON value: other text may close the spec or the configuration's
     * object and add keys of its own. */
    json_error_t jerr;
    json_t *value = json_loadb(text, size, JSON_DECODE_ANY, &jerr);
    int single = value != NULL, is_null = json_is_null(value);
    json_decref(value);
    if (single && !is_null && (on_request == NC_OK) != (on_endpoint == NC_OK)) {
        fprintf(stderr, "request %d, endpoint %d for %s\n", (int)on_request, (int)on_endpoint, text);
        abort();
    }
    if (single && on_config == NC_OK && on_request != NC_OK) {
        fprintf(stderr, "the configuration accepts what the request refuses: %s\n", text);
        abort();
    }

    nc_response *resp = NULL;
    err = NULL;
    nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    if (st != NC_ERR_FAILED || !err || resp || nc_error_domain(err) != NC_DOMAIN_CLIENT ||
        nc_error_code(err) != NC_CLIENT_NOT_CACHED || nc_error_attempts(err) > 1)
        abort();
    nc_error_free(err);
    return 0;
}
