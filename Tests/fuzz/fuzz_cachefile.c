/*
 * fuzz_cachefile.c — libFuzzer target: the on-disk cache's entry files
 * ("cache": {"dir"}), which any process that can write the directory may have
 * written. The input is an entry's payload after its key; the target writes a
 * whole file around it (magic, version, length and the FNV-1a checksum, so the
 * input reaches the decoder instead of being refused as torn) under the name of
 * the key of GET http://127.0.0.1:9/x, then sends that request with
 * NC_CACHE_ONLY (nothing is sent) and reads what comes back: status, URL,
 * every header, the body, the envelope data and the metrics.
 * Checked: the send gives a response, or fails with an error that has a message
 * (NC_CLIENT_NOT_CACHED for a refused file; a stored answer may also be an HTTP
 * or API error); never a crash, a hang or a leak.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcore.h"

#define KEY "GET http://127.0.0.1:9/x"

static nc_client *g_client;
static char g_dir[] = "/tmp/nc-fuzz-cache-XXXXXX";
static char g_file[512];

/* The directory goes when the fuzzer exits (libFuzzer returns through exit()). */
static void remove_dir(void) {
    unlink(g_file);
    rmdir(g_dir);
}

static uint64_t fnv1a(const uint8_t *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x00000100000001b3ULL;
    }
    return h;
}

static void put_le(uint8_t *out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) out[i] = (uint8_t)(v >> (8 * i));
}

static void setup(void) {
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    char config[256];
    snprintf(config, sizeof config,
             "{\"reachability\":{\"mode\":\"online\"},\"envelope\":{},"
             "\"cache\":{\"memory_bytes\":0,\"dir\":\"%s\"}}",
             g_dir);
    nc_error *err = NULL;
    if (nc_client_new(config, &g_client, &err) != NC_OK) abort();
    uint64_t h = fnv1a((const uint8_t *)KEY, strlen(KEY), 0xcbf29ce484222325ULL);
    snprintf(g_file, sizeof g_file, "%s/%016llx.nce", g_dir, (unsigned long long)h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) setup();
    /* payload = the key (u32 length + bytes) + the input */
    size_t key_len = strlen(KEY), payload = 4 + key_len + size;
    uint8_t *file = malloc(24 + payload);
    if (!file) return 0;
    uint8_t *p = file + 24;
    put_le(p, key_len, 4);
    memcpy(p + 4, KEY, key_len);
    if (size) memcpy(p + 4 + key_len, data, size);
    memcpy(file, "NCC1", 4);
    put_le(file + 4, 1, 4);
    put_le(file + 8, payload, 8);
    put_le(file + 16, fnv1a(p, payload, 0xcbf29ce484222325ULL), 8);
    FILE *f = fopen(g_file, "wb");
    if (!f || fwrite(file, 1, 24 + payload, f) != 24 + payload || fclose(f) != 0) abort();
    free(file);

    nc_request *req = NULL;
    if (nc_request_new("GET", "http://127.0.0.1:9/x", &req) != NC_OK) abort();
    if (nc_request_set_cache_policy(req, NC_CACHE_ONLY) != NC_OK) abort();
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    if (resp) {
        (void)nc_response_status(resp);
        (void)nc_response_url(resp);
        size_t n = nc_response_header_count(resp);
        for (size_t i = 0; i < n; i++) {
            const char *name = NULL, *value = NULL;
            if (nc_response_header_at(resp, i, &name, &value) != NC_OK || !name || !value) abort();
            (void)nc_response_header(resp, name);
        }
        size_t len = 0;
        (void)nc_response_body(resp, &len);
        (void)nc_response_data(resp); /* borrowed */
        (void)nc_response_json(resp);
        if (!nc_response_metrics_json(resp)) abort();
    }
    if (getenv("FUZZ_VERBOSE")) /* to read what a seed does */
        fprintf(stderr, "status %d, error %s\n", resp ? nc_response_status(resp) : 0,
                err ? nc_error_message(err) : "none");
    /* A refused file is a miss (NOT_CACHED); a stored answer may be an HTTP or API error. */
    if (st != NC_OK && (!err || !nc_error_message(err)[0])) abort();
    nc_response_free(resp);
    nc_error_free(err);
    return 0;
}
