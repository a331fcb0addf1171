/*
 * fuzz_stubs.c — libFuzzer target: stub routes and recorded stub files
 * ("stubs": {"dir"}, nc_client_add_stub; docs/configuration.md, "Stubs"). The input
 * is a route file as "record" writes them (a route or an array of routes), which any
 * process that can write the directory may have written:
 *   1. it is the one file of "stubs.dir" of a new client ("mode": "only", so
 *      nothing reaches the network): the client is made, or refused with an error
 *      whose message is not empty;
 *   2. the same bytes are added with nc_client_add_stub (to that client, else to a
 *      client with "stubs": {}): NC_OK, or NC_ERR_INVALID_ARGUMENT with a message;
 *   3. three requests are sent synchronously after each: a response with a status
 *      in 100-599, or an error with a message (with the response only for HTTP,
 *      API and PARSE errors, as nc_client_send_sync says).
 * Never a crash, a hang or a leak. "timeout_ms": 50 cuts a route's "delay_ms".
 * The files live in /dev/shm when it exists. Built and run by `make fuzz`
 * (Tests/fuzz/run.sh); seeds in corpus/stubs.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcore.h"

static char g_dir[128];
static char g_file[192];
static char g_config[512];
static const char g_bare[] = "{\"base_url\":\"http://127.0.0.1:9/api\",\"timeout_ms\":50,\"stubs\":{}}";

static void remove_dir(void) {
    unlink(g_file);
    rmdir(g_dir);
}

static void setup(void) {
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/nc-fuzz-stubs-XXXXXX", base);
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    snprintf(g_file, sizeof g_file, "%s/route.json", g_dir);
    snprintf(g_config, sizeof g_config,
             "{\"base_url\":\"http://127.0.0.1:9/api\",\"timeout_ms\":50,"
             "\"stubs\":{\"mode\":\"only\",\"dir\":\"%s\"}}",
             g_dir);
}

/* An error must say something. */
static void check_error(nc_error *err) {
    if (!err || !nc_error_message(err) || !nc_error_message(err)[0]) abort();
    nc_error_free(err);
}

/* One request: exactly one of a response (status 100-599) and an error. */
static void send_one(nc_client *c, const char *method, const char *path, const char *body) {
    nc_request *req = NULL;
    if (nc_request_new(method, path, &req) != NC_OK) abort();
    if (body && nc_request_set_body(req, body, strlen(body), "application/json") != NC_OK) abort();
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_send_sync(c, req, &resp, &err);
    if (st == NC_OK) {
        if (!resp || err) abort();
        int32_t status = nc_response_status(resp);
        if (status < 100 || status > 599) abort();
        size_t len = 0;
        const void *bytes = nc_response_body(resp, &len);
        if (len && !bytes) abort();
        nc_response_free(resp);
    } else {
        /* HTTP, API and PARSE errors come with the response received. */
        if (st != NC_ERR_FAILED) abort();
        nc_domain d = nc_error_domain(err);
        if (resp && d != NC_DOMAIN_HTTP && d != NC_DOMAIN_API && d != NC_DOMAIN_PARSE) abort();
        nc_response_free(resp);
        check_error(err);
    }
    nc_request_free(req);
}

static void send_three(nc_client *c) {
    send_one(c, "GET", "/users/7", NULL);
    send_one(c, "POST", "/users?page=2", "{\"a\":null}");
    send_one(c, "DELETE", "/v1/feed/x/y", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_dir[0]) setup();
    FILE *f = fopen(g_file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = 0;

    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(g_config, &c, &err) == NC_OK) {
        if (!c || err) abort();
        send_three(c);
    } else {
        if (c) abort();
        check_error(err);
        err = NULL;
        if (nc_client_new(g_bare, &c, &err) != NC_OK) abort();
    }
    err = NULL;
    nc_status st = nc_client_add_stub(c, text, &err);
    if (st == NC_OK) {
        if (err) abort();
        send_three(c);
    } else {
        if (st != NC_ERR_INVALID_ARGUMENT) abort();
        check_error(err);
    }
    nc_client_free(c);
    free(text);
    return 0;
}
