/*
 * fuzz_params.c — libFuzzer target: an endpoint's parameter declarations
 * ("params", "additional_params": ParamRules.swift — type, required, enum, min,
 * max, pattern, max_length, and the pattern subset's parser and matcher) and a
 * call whose params are checked against them. The first byte picks the form:
 *   - even: the rest is split at NUL bytes into a pattern and a string (up to the
 *     next NUL), each made
 *     a JSON string by this file (bytes that are not UTF-8 end the input): the
 *     endpoint declares {"s": {"pattern": P}}, the call sends {"s": S}; when the
 *     pattern is accepted, the same string is also checked against the pattern made
 *     of S itself, every ASCII punctuation escaped — which must match (S contains
 *     S), anchored ("^…$") too;
 *   - odd: the rest is split into the "params" declarations (JSON text), the
 *     "additional_params" value and the call's params (JSON text), as written.
 * The endpoint's "cache" is "cache_only" (a memory cache that holds nothing): a call
 * whose params hold completes with NC_CLIENT_NOT_CACHED, one that breaks a rule (or
 * lacks the path's placeholder "id") with NC_CLIENT_INVALID_REQUEST naming the
 * parameter; nothing is sent.
 * Checked: nc_client_define_endpoint accepts or refuses (NC_ERR_INVALID_ARGUMENT,
 * the catalog unchanged); a call fails with one of those two errors only, its
 * message naming "the parameter '", attempts 0; never a crash, a hang
 * (the matcher's memo bounds it) or a leak.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "netcore.h"

static nc_client *g_client;

static void setup(void) {
    nc_error *err = NULL;
    if (nc_client_new("{\"base_url\":\"http://127.0.0.1:9/api\",\"reachability\":{\"mode\":\"online\"},"
                      "\"coalesce\":false,\"cache\":{\"memory_bytes\":1024}}",
                      &g_client, &err) != NC_OK)
        abort();
}

/* Calls "ep" with `params`; 1 if the params held (NOT_CACHED), 0 if a rule broke. */
static int call(const char *params) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_call_sync(g_client, "ep", params, strlen(params), &resp, &err);
    if (st == NC_ERR_INVALID_ARGUMENT) { /* params that are not a JSON object */
        if (resp || err) abort();
        return -1;
    }
    if (st != NC_ERR_FAILED || !err || resp || nc_error_domain(err) != NC_DOMAIN_CLIENT) abort();
    int64_t code = nc_error_code(err);
    const char *msg = nc_error_message(err);
    int held = code == NC_CLIENT_NOT_CACHED;
    /* A broken rule names it; a missing or unusable placeholder names the parameter. */
    if (!held && (code != NC_CLIENT_INVALID_REQUEST || !strstr(msg, "the parameter '"))) {
        fprintf(stderr, "unexpected: CLIENT %lld %s\n", (long long)code, msg);
        abort();
    }
    if (nc_error_attempts(err) != 0) abort(); /* nothing was sent */
    nc_error_free(err);
    return held;
}

/* {"path":"/p","cache":"cache_only","params":{"s":{"pattern":<pattern>}}} */
static nc_status define_pattern(json_t *pattern) {
    json_t *spec = json_pack("{s:s, s:s, s:{s:{s:O}}}", "path", "/p", "cache", "cache_only", "params",
                             "s", "pattern", pattern);
    if (!spec) abort();
    char *text = json_dumps(spec, JSON_COMPACT);
    nc_status st = nc_client_define_endpoint(g_client, "ep", text);
    free(text);
    json_decref(spec);
    return st;
}

static int call_string(json_t *s) {
    json_t *params = json_pack("{s:O}", "s", s);
    char *text = json_dumps(params, JSON_COMPACT);
    int held = call(text);
    free(text);
    json_decref(params);
    return held;
}

static void pattern_form(const char **p, const char *end) {
    static char pat[512], str[512];
    size_t pn = 0, sn = 0;
    while (*p < end && **p && pn < sizeof pat - 1) pat[pn++] = *(*p)++;
    if (*p < end) (*p)++;
    while (*p < end && **p && sn < sizeof str - 1) str[sn++] = *(*p)++; /* a pattern has no NUL */
    json_t *pj = json_stringn(pat, pn), *sj = json_stringn(str, sn);
    if (!pj || !sj) { /* not UTF-8 */
        json_decref(pj);
        json_decref(sj);
        return;
    }
    nc_status st = define_pattern(pj);
    if (st != NC_OK && st != NC_ERR_INVALID_ARGUMENT) abort();
    if (st == NC_OK) (void)call_string(sj);
    /* S escaped is a pattern that S matches, unanchored and anchored. */
    static char esc[2 * sizeof str + 3];
    for (int anchored = 0; anchored < 2; anchored++) {
        size_t n = 0;
        if (anchored) esc[n++] = '^';
        for (size_t i = 0; i < sn; i++) {
            unsigned char c = (unsigned char)str[i];
            if (c < 0x80 && c > 0x20 && c != 0x7F &&
                !((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
                esc[n++] = '\\';
            esc[n++] = (char)c;
        }
        if (anchored) esc[n++] = '$';
        esc[n] = 0;
        json_t *ej = json_stringn(esc, n);
        if (!ej) abort();
        if (define_pattern(ej) != NC_OK) {
            fprintf(stderr, "the escaped string %s was refused as a pattern\n", esc);
            abort();
        }
        if (call_string(sj) != 1) {
            fprintf(stderr, "the string does not match its own escaped form %s\n", esc);
            abort();
        }
        json_decref(ej);
    }
    json_decref(pj);
    json_decref(sj);
}

static void declarations_form(const char **p, const char *end) {
    static char decl[4096], additional[64], params[4096];
    next_part(p, end, decl, sizeof decl);
    next_part(p, end, additional, sizeof additional);
    next_part(p, end, params, sizeof params);
    static char spec[sizeof decl + 256];
    snprintf(spec, sizeof spec, "{\"path\":\"/p/{id}\",\"cache\":\"cache_only\",\"params\":%s%s%s}",
             decl, additional[0] ? ",\"additional_params\":" : "", additional);
    nc_status st = nc_client_define_endpoint(g_client, "ep", spec);
    if (st != NC_OK && st != NC_ERR_INVALID_ARGUMENT) abort();
    if (st != NC_OK) return;
    (void)call(params);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (!g_client) setup();
    /* A refused spec leaves the catalog as it was: start every input from the same one. */
    if (nc_client_define_endpoint(g_client, "ep", "{\"path\":\"/p\",\"cache\":\"cache_only\"}") != NC_OK)
        abort();
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    if (data[0] % 2 == 0) pattern_form(&p, end);
    else declarations_form(&p, end);
    return 0;
}
