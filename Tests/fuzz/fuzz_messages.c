/*
 * fuzz_messages.c — libFuzzer target: the messages table (texts for people,
 * nc_client_set_messages_json) and its lookup (nc_error_user_message).
 * The input is split at NUL bytes into a messages table (JSON text), an HTTP
 * status (decimal text) and a response body. Each input:
 *   1. installs the table with nc_client_set_messages_json: NC_OK, or
 *      NC_ERR_INVALID_ARGUMENT and the table in force unchanged;
 *   2. makes three errors and reads their user message: the status and body as a
 *      stored answer (an entry file of the on-disk cache, read with NC_CACHE_ONLY,
 *      envelope mode: success, HTTP, API or PARSE), an unknown endpoint (CLIENT 3)
 *      and a refused connection (127.0.0.1:9, TRANSPORT 7).
 * Checked against a lookup of this file's own over the table last accepted: the
 * most specific key — "DOMAIN.code" (an API code as nc_error_code_str gives it),
 * then "HTTP.Nxx" for HTTP, then "DOMAIN" — or NULL; and the developer message is
 * never empty.
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

#define URL "http://127.0.0.1:9/m"
#define KEY "GET " URL

static nc_client *g_client;
static json_t *g_table; /* the table in force (last accepted), NULL for none */
static char g_dir[] = "/tmp/nc-fuzz-messages-XXXXXX";
static char g_file[512];

static void remove_dir(void) {
    unlink(g_file);
    rmdir(g_dir);
}

static void setup(void) {
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    char config[512];
    snprintf(
        config, sizeof config,
        "{\"reachability\":{\"mode\":\"online\"},\"coalesce\":false,"
        "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0,\"OK\"],\"message\":\"msg\",\"data\":\"data\"},"
        "\"cache\":{\"memory_bytes\":0,\"dir\":\"%s\"}}",
        g_dir);
    nc_error *err = NULL;
    if (nc_client_new(config, &g_client, &err) != NC_OK) abort();
    cache_entry_path(g_file, sizeof g_file, g_dir, KEY);
}

static const char *domain_name(int d) {
    switch (d) {
    case NC_DOMAIN_CLIENT:
        return "CLIENT";
    case NC_DOMAIN_TRANSPORT:
        return "TRANSPORT";
    case NC_DOMAIN_HTTP:
        return "HTTP";
    case NC_DOMAIN_API:
        return "API";
    case NC_DOMAIN_PARSE:
        return "PARSE";
    default:
        abort();
    }
}

/* The text the table gives `err`, by the rule of nc_error_user_message. */
static const char *expected(const nc_error *err) {
    if (!g_table) return NULL;
    const char *dom = domain_name(nc_error_domain(err));
    char key[600];
    if (nc_error_domain(err) == NC_DOMAIN_API)
        snprintf(key, sizeof key, "%s.%s", dom, nc_error_code_str(err));
    else snprintf(key, sizeof key, "%s.%lld", dom, (long long)nc_error_code(err));
    const char *t = json_string_value(json_object_get(g_table, key));
    if (t) return t;
    int64_t code = nc_error_code(err);
    if (nc_error_domain(err) == NC_DOMAIN_HTTP && code >= 100 && code <= 999) {
        snprintf(key, sizeof key, "HTTP.%dxx", (int)(code / 100));
        if ((t = json_string_value(json_object_get(g_table, key)))) return t;
    }
    return json_string_value(json_object_get(g_table, dom));
}

static void check(nc_status st, nc_response *resp, nc_error *err) {
    if (st == NC_OK) {
        if (err) abort();
    } else {
        if (st != NC_ERR_FAILED || !err || !nc_error_message(err)[0]) abort();
        const char *want = expected(err), *got = nc_error_user_message(err);
        if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
            fprintf(stderr, "domain %d code %s: user message \"%s\", expected \"%s\"\n",
                    nc_error_domain(err), nc_error_code_str(err), got ? got : "(null)",
                    want ? want : "(null)");
            abort();
        }
    }
    nc_response_free(resp);
    nc_error_free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) setup();
    const char *p = (const char *)data, *end = p + size;
    static char table[8192], status[32];
    next_part(&p, end, table, sizeof table);
    next_part(&p, end, status, sizeof status);

    nc_status st = nc_client_set_messages_json(g_client, table);
    if (st == NC_OK) {
        json_error_t jerr;
        json_t *t = json_loads(table, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!t) abort(); /* the library accepted text jansson refuses */
        json_decref(g_table);
        g_table = json_is_null(t) ? NULL : t;
        if (g_table && !json_is_object(g_table)) abort();
        if (!g_table) json_decref(t);
    } else if (st != NC_ERR_INVALID_ARGUMENT) {
        abort();
    }

    /* 1. a stored answer */
    char *stop = NULL;
    unsigned long code = strtoul(status, &stop, 10);
    if (!status[0] || *stop || code < 100 || code > 999) code = 200;
    cache_write_entry(g_file, KEY, URL, (uint32_t)code, "Content-Type: application/json\r\n",
                      (const uint8_t *)p, (size_t)(end - p));
    nc_request *req = NULL;
    if (nc_request_new("GET", URL, &req) != NC_OK ||
        nc_request_set_cache_policy(req, NC_CACHE_ONLY) != NC_OK)
        abort();
    nc_response *resp = NULL;
    nc_error *err = NULL;
    st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    check(st, resp, err);

    /* 2. an unknown endpoint: CLIENT 3, nothing sent */
    resp = NULL, err = NULL;
    st = nc_client_call_sync(g_client, "no.such.endpoint", NULL, 0, &resp, &err);
    if (st != NC_ERR_FAILED || nc_error_domain(err) != NC_DOMAIN_CLIENT) abort();
    check(st, resp, err);

    /* 3. a refused connection: TRANSPORT 7 */
    resp = NULL, err = NULL;
    if (nc_request_new("GET", "http://127.0.0.1:9/refused", &req) != NC_OK) abort();
    st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    if (st != NC_ERR_FAILED || nc_error_domain(err) != NC_DOMAIN_TRANSPORT) abort();
    check(st, resp, err);
    return 0;
}
