/*
 * fuzz_unpack.c — libFuzzer target: nc_response_data_unpack (ncvariadic.c: its own
 * walk of the format, the saved and restored targets, the error's path) on any
 * format and any data. The input is split at its first NUL byte into a format (at
 * most 40 bytes; 'O' is read as 'o', so no reference is left to release) and a
 * response body, served as a stored answer in raw mode (an entry file of the
 * on-disk cache, read with NC_CACHE_ONLY): the data is the whole body.
 * Every call gets 48 distinct argument buffers, so a format never reads past what
 * was passed (each key or target takes at least one format byte): as a key a
 * buffer is the text "a".."z", as a target its bytes are a known pattern.
 * Checked against jansson's own json_unpack_ex on the same data and format with a
 * second set of buffers (the behaviour the header documents):
 *   - NC_OK exactly when jansson succeeds, every buffer then equal to jansson's;
 *   - NC_ERR_FAILED (a mismatch) with a PARSE 5 error whose message names the
 *     path, NC_ERR_INVALID_ARGUMENT (a bad format) with *error_out untouched;
 *     after either, every buffer as it was before the call (nothing written).
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "netcore.h"

#define URL   "http://127.0.0.1:9/u"
#define KEY   "GET " URL
#define NARGS 48
#define BUFSZ 16

static nc_client *g_client;
static char g_dir[] = "/tmp/nc-fuzz-unpack-XXXXXX";
static char g_file[512];

static void remove_dir(void) {
    unlink(g_file);
    rmdir(g_dir);
}

static void setup(void) {
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    char config[256];
    snprintf(config, sizeof config,
             "{\"reachability\":{\"mode\":\"online\"},\"cache\":{\"memory_bytes\":0,\"dir\":\"%s\"}}",
             g_dir);
    nc_error *err = NULL;
    if (nc_client_new(config, &g_client, &err) != NC_OK) abort();
    cache_entry_path(g_file, sizeof g_file, g_dir, KEY);
}

static void fill(unsigned char (*b)[BUFSZ]) {
    for (int i = 0; i < NARGS; i++) {
        memset(b[i], 0xA5, BUFSZ);
        b[i][0] = (unsigned char)('a' + i % 26);
        b[i][1] = 0;
    }
}

#define ARGS(b)                                                                                         \
  b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15], \
      b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23], b[24], b[25], b[26], b[27], b[28], b[29], \
      b[30], b[31], b[32], b[33], b[34], b[35], b[36], b[37], b[38], b[39], b[40], b[41], b[42], b[43], \
      b[44], b[45], b[46], b[47]

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) setup();
    const char *p = (const char *)data, *end = p + size;
    char fmt[64];
    const char *body = memchr(p, 0, size);
    if (!body || body - p > 40) return 0;
    memcpy(fmt, p, (size_t)(body - p));
    fmt[body - p] = 0;
    body++;
    for (char *c = fmt; *c; c++)
        if (*c == 'O') *c = 'o';

    cache_write_entry(g_file, KEY, URL, 200, "Content-Type: application/json\r\n", (const uint8_t *)body,
                      (size_t)(end - body));
    nc_request *req = NULL;
    if (nc_request_new("GET", URL, &req) != NC_OK ||
        nc_request_set_cache_policy(req, NC_CACHE_ONLY) != NC_OK)
        abort();
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    if (st != NC_OK || !resp) abort(); /* raw mode, status 200: a success, JSON or not */
    json_t *value = nc_response_data(resp);

    static unsigned char ours[NARGS][BUFSZ], theirs[NARGS][BUFSZ], before[NARGS][BUFSZ];
    fill(ours);
    fill(theirs);
    fill(before);
    nc_error *uerr = (nc_error *)&ours; /* a sentinel: must stay untouched unless FAILED */
    st = nc_response_data_unpack(resp, &uerr, fmt, ARGS(ours));
    int jrc = -1;
    json_error_t jerr;
    if (value) jrc = json_unpack_ex(value, &jerr, 0, fmt, ARGS(theirs));

    if (st == NC_OK) {
        if (uerr != (nc_error *)&ours) abort();
        if (jrc != 0 || memcmp(ours, theirs, sizeof ours) != 0) {
            fprintf(stderr, "NC_OK where jansson says %d (%s)\n", jrc, jrc ? jerr.text : "");
            abort();
        }
    } else {
        if (memcmp(ours, before, sizeof ours) != 0) abort(); /* a target was written */
        if (st == NC_ERR_FAILED) {
            if (uerr == (nc_error *)&ours || !uerr) abort();
            if (nc_error_domain(uerr) != NC_DOMAIN_PARSE ||
                nc_error_code(uerr) != NC_PARSE_DECODING_FAILED ||
                !strstr(nc_error_message(uerr), "data"))
                abort();
            nc_error_free(uerr);
        } else if (st == NC_ERR_INVALID_ARGUMENT) {
            if (uerr != (nc_error *)&ours) abort();
        } else {
            abort();
        }
        if (jrc == 0) {
            fprintf(stderr, "status %d where jansson succeeds with \"%s\"\n", (int)st, fmt);
            abort();
        }
    }
    nc_response_free(resp);
    return 0;
}
