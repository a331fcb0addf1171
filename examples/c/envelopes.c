/* envelopes.c — the three business-envelope shapes, and raw mode.
 * usage: envelopes http://127.0.0.1:8080/api
 *
 * Many APIs wrap every answer in an envelope that says whether the call worked:
 *   A {"code":0,"msg":"ok","data":{…}}                     success when code is in ok_codes
 *   B {"success":true,"code":2001,"msg":…,"traceId":…,"data":…}   success when success is true
 *   C {"status":"OK","errorCode":"0","errorMsg":"","content":…}  status in ok_status (+ code)
 * The "envelope" config tells the client where to look; nc_response_data_json() is
 * then the data alone, and a business failure is an NC_DOMAIN_API error with the
 * server's code, message and trace id — even though HTTP said 200. Exits 1 if any
 * answer is not the one expected. */
#include <netcore.h>
#include <stdio.h>
#include <string.h>

static int unexpected;

/* GETs `path` and prints "ok: DATA" or "api error CODE: MESSAGE [trace T]";
 * `want_ok` says which one the mock API gives for it. */
static void show(nc_client *c, const char *path, int want_ok) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) {
        unexpected++;
        return;
    }
    nc_status st = nc_client_send_sync(c, req, &resp, &err);
    if (st == NC_OK) {
        printf("  %-20s ok: %s\n", path, nc_response_data_json(resp, NULL));
    } else if (nc_error_domain(err) == NC_DOMAIN_API) {
        /* A business error: the code as the server sent it (a number or a string). */
        const char *trace = nc_error_trace_id(err); /* NULL when the envelope has none */
        printf("  %-20s api error %s: %s", path, nc_error_code_str(err), nc_error_message(err));
        printf(trace ? " [trace %s]\n" : "\n", trace);
    } else {
        printf("  %-20s %s %lld: %s\n", path, nc_error_domain_name(err), (long long)nc_error_code(err),
               nc_error_message(err));
    }
    if ((st == NC_OK) != want_ok || (st != NC_OK && nc_error_domain(err) != NC_DOMAIN_API)) unexpected++;
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
}

static nc_client *client_for(const char *base, const char *envelope) {
    char config[1024];
    nc_client *c = NULL;
    nc_error *err = NULL;
    snprintf(config, sizeof config, "{\"base_url\":\"%s\",\"envelope\":%s}", base, envelope);
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "config refused: %s\n", nc_error_message(err));
        nc_error_free(err);
        unexpected++;
    }
    return c;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    static const struct {
        const char *name, *envelope, *ok_path, *fail_path;
    } shapes[] = {
        {"A (code)", "{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}",
         "/env/code/ok", "/env/code/fail"},
        {"B (success flag)",
         "{\"success\":\"success\",\"code\":\"code\",\"message\":\"msg\",\"data\":\"data\",\"trace_id\":"
         "\"traceId\"}",
         "/env/success/ok", "/env/success/fail"},
        {"C (status)",
         "{\"status\":\"status\",\"ok_status\":[\"OK\"],\"code\":\"errorCode\",\"ok_codes\":[\"0\"],"
         "\"message\":\"errorMsg\",\"data\":\"content\"}",
         "/env/status/ok", "/env/status/fail"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        nc_client *c = client_for(argv[1], shapes[i].envelope);
        if (!c) continue;
        printf("envelope %s\n", shapes[i].name);
        show(c, shapes[i].ok_path, 1);
        show(c, shapes[i].fail_path, 0);
        nc_client_free(c);
    }

    /* Raw mode ("envelope": null): the body is the data; only HTTP errors fail. */
    nc_client *raw = client_for(argv[1], "null");
    if (raw) {
        nc_request *req = NULL;
        nc_response *resp = NULL;
        nc_error *err = NULL;
        printf("raw mode\n");
        if (nc_request_new("GET", "/env/code/fail", &req) == NC_OK &&
            nc_client_send_sync(raw, req, &resp, &err) == NC_OK) {
            /* The business failure is just a 200 with a JSON body here. */
            printf("  %-20s ok: %s\n", "/env/code/fail", nc_response_data_json(resp, NULL));
        } else {
            unexpected++;
        }
        nc_response_free(resp);
        nc_error_free(err);
        nc_request_free(req);
        nc_client_free(raw);
    }
    if (unexpected) fprintf(stderr, "%d unexpected result(s)\n", unexpected);
    return unexpected ? 1 : 0;
}
