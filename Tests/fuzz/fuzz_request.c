/*
 * fuzz_request.c — libFuzzer target: URL and header validation at the boundary.
 * The input is split at NUL bytes into a method, a URL, then header name/value
 * pairs and query/params text: nc_request_new, nc_request_set_header,
 * nc_request_set_query and nc_request_set_params_json must accept or refuse
 * (NC_ERR_INVALID_ARGUMENT) without crashing. A header with CR, LF or NUL must be
 * refused. Then a request whose URL is a path is sent to a port where nothing
 * listens (127.0.0.1:9, refused at once), so what was accepted is also built.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "netcore.h"

static nc_client *g_client;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) {
        nc_error *err = NULL;
        if (nc_client_new("{\"base_url\":\"http://127.0.0.1:9/api\",\"timeout_ms\":2000,"
                          "\"reachability\":{\"mode\":\"online\"}}",
                          &g_client, &err) != NC_OK)
            abort();
    }
    const char *p = (const char *)data, *end = p + size;
    char method[64], url[4096], name[512], value[2048];
    next_part(&p, end, method, sizeof method);
    next_part(&p, end, url, sizeof url);
    nc_request *req = NULL;
    if (nc_request_new(method, url, &req) != NC_OK) {
        if (req) abort();
        return 0;
    }
    while (p < end) {
        next_part(&p, end, name, sizeof name);
        next_part(&p, end, value, sizeof value);
        nc_status st = nc_request_set_header(req, name, value);
        if (st == NC_OK && (strpbrk(value, "\r\n") || strpbrk(name, "\r\n"))) abort();
        if (name[0] == '?') nc_request_set_query(req, name + 1, value);
        if (name[0] == '{') nc_request_set_params_json(req, name, strlen(name));
    }
    /* Only paths under base_url are sent: an absolute URL could name any host. */
    if (url[0] == '/' && url[1] != '/') {
        nc_response *resp = NULL;
        nc_error *err = NULL;
        nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
        if (st != NC_OK && st != NC_ERR_FAILED) abort();
        if (st == NC_ERR_FAILED && (!err || !nc_error_message(err)[0])) abort();
        nc_response_free(resp);
        nc_error_free(err);
    }
    nc_request_free(req);
    return 0;
}
