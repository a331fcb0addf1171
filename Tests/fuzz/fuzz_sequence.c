/*
 * fuzz_sequence.c — libFuzzer target: random call sequences on one client.
 * Each input byte is one call: send (async, to the mock server's /fault/ok or
 * /slow), send_sync, nc_task_cancel / nc_task_free of an earlier task,
 * nc_client_cancel_all, nc_client_cancel_group; the input ends with
 * nc_client_free. Checked: every send that returned NC_OK had its callback called
 * exactly once by the time nc_client_free returned; no crash, hang or leak.
 * FUZZ_BASE names the mock server (http://127.0.0.1:P/api; Tests/fuzz/run.sh).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "netcore.h"

#define MAX_OPS 48

static atomic_int g_calls[MAX_OPS];

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    (void)err;
    atomic_fetch_add((atomic_int *)userdata, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *base = getenv("FUZZ_BASE");
    if (!base) abort();
    char config[512], url[256];
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"timeout_ms\":3000,\"coalesce\":%s,\"reachability\":{\"mode\":"
             "\"online\"}}",
             base, size && (data[0] & 1) ? "true" : "false");
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &c, &err) != NC_OK) abort();
    nc_task *tasks[MAX_OPS] = {0};
    int sent[MAX_OPS] = {0};
    size_t n = size > MAX_OPS ? MAX_OPS : size;
    for (size_t i = 0; i < n; i++) atomic_store(&g_calls[i], 0);
    for (size_t i = 1; i < n; i++) {
        uint8_t op = data[i] & 7, arg = (uint8_t)(data[i] >> 3);
        size_t target = arg % i; /* an earlier step */
        nc_request *req = NULL;
        switch (op) {
        case 0:
        case 5:
        case 7:
            snprintf(url, sizeof url, op == 0 ? "/fault/ok" : "/slow?ms=%d", (arg & 3) * 10);
            if (nc_request_new("GET", url, &req) != NC_OK) abort();
            if (op == 7) nc_request_set_group(req, "g");
            if (nc_client_send(c, req, on_done, &g_calls[i], &tasks[i]) == NC_OK) sent[i] = 1;
            nc_request_free(req);
            break;
        case 1:
            nc_task_cancel(tasks[target]);
            break;
        case 2:
            nc_task_free(tasks[target]);
            tasks[target] = NULL;
            break;
        case 3:
            sync_get(c, "/fault/ok", 0);
            break;
        case 4:
            nc_client_cancel_all(c, NULL);
            break;
        case 6:
            nc_client_cancel_group(c, "g", NULL);
            break;
        }
    }
    nc_client_free(c);
    check_exactly_once(sent, g_calls, tasks, n, data);
    return 0;
}
