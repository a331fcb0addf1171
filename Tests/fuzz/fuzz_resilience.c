/*
 * fuzz_resilience.c — libFuzzer target: random call sequences over the features
 * that keep requests going (coalescing, waiting for the network, token refresh,
 * groups, retry, deadlines, batches) on one client. The first input byte chooses
 * the client (coalescing on or off, a wait for the network or none, how the token
 * refresher answers: at once with a good token, at once with a failure, or only
 * when a later step says so); each next byte is one call (low 4 bits) and its
 * argument (high 4):
 * plain, slow, grouped, retried (HTTP 503, constant 5 ms waits), endpoint and
 * deadline-bound sends; batches of 1-4 members, settle or fail-fast; requests
 * that expire the token (a refresh); nc_task_cancel / nc_task_free of an earlier
 * task or batch, nc_client_cancel_all / cancel_group, nc_client_refresh_done,
 * nc_client_set_token, nc_client_set_reachability (forced offline and back), and
 * a synchronous send (with a deadline, so that a refresh nobody answers cannot
 * hold it). The input ends with nc_client_free.
 * Checked: every send and batch that returned NC_OK had its callback called
 * exactly once by the time nc_client_free returned, the others never; no crash,
 * hang or leak.
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
static int g_refresh_mode; /* 0: answers later (a step), 1: a good token at once, 2: a failure at once */

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    (void)err;
    atomic_fetch_add((atomic_int *)userdata, 1);
}

static void on_batch(const nc_batch *batch, void *userdata) {
    for (size_t i = 0; i < nc_batch_count(batch); i++) {
        /* Each member ended: a response or an error (or both), never neither for a failure. */
        if (!nc_batch_response(batch, i) && !nc_batch_error(batch, i)) abort();
    }
    atomic_fetch_add((atomic_int *)userdata, 1);
}

static void on_refresh(nc_client *client, const nc_error *error, void *userdata) {
    (void)error;
    (void)userdata;
    if (g_refresh_mode == 1) nc_client_refresh_done(client, "T", NULL);
    if (g_refresh_mode == 2) nc_client_refresh_done(client, NULL, "refresh refused");
}

static int send_get(nc_client *c, const char *path, const char *group, uint32_t flags,
                    int64_t deadline_ms, atomic_int *calls, nc_task **task) {
    nc_request *req = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) abort();
    if (group) nc_request_set_group(req, group);
    if (flags) nc_request_set_flags(req, flags);
    if (deadline_ms) nc_request_set_deadline_ms(req, deadline_ms);
    int ok = nc_client_send(c, req, on_done, calls, task) == NC_OK;
    nc_request_free(req);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *base = getenv("FUZZ_BASE");
    if (!base) abort();
    if (size == 0) return 0;
    g_refresh_mode = (data[0] >> 2) % 3;
    char config[1024], path[128];
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"timeout_ms\":3000,\"coalesce\":%s,"
             "\"reachability\":{\"mode\":\"online\",\"wait_for_network_ms\":%d},"
             "\"retry\":{\"max_attempts\":3,\"backoff\":\"constant\",\"initial_ms\":5,\"jitter\":false},"
             "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\","
             "\"auth_expired_codes\":[401001]},"
             "\"endpoints\":{\"slow\":{\"path\":\"/slow\",\"group\":\"g\"}}}",
             base, data[0] & 1 ? "true" : "false", data[0] & 2 ? 100 : 0);
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &c, &err) != NC_OK) abort();
    if (nc_client_set_token_refresher(c, on_refresh, NULL) != NC_OK) abort();
    nc_task *tasks[MAX_OPS] = {0};
    int sent[MAX_OPS] = {0};
    size_t n = size > MAX_OPS ? MAX_OPS : size;
    for (size_t i = 0; i < n; i++) atomic_store(&g_calls[i], 0);
    for (size_t i = 1; i < n; i++) {
        uint8_t op = data[i] & 15, arg = (uint8_t)(data[i] >> 4);
        size_t target = arg % i; /* an earlier step */
        switch (op) {
        case 0:
            sent[i] = send_get(c, "/fault/ok", NULL, 0, 0, &g_calls[i], &tasks[i]);
            break;
        case 1:
            nc_task_cancel(tasks[target]);
            break;
        case 2:
            nc_task_free(tasks[target]);
            tasks[target] = NULL;
            break;
        case 3:
            sync_get(c, arg & 1 ? "/auth/check?valid=T" : "/fault/ok", 200);
            break;
        case 4:
            nc_client_cancel_all(c, NULL);
            break;
        case 5:
            snprintf(path, sizeof path, "/slow?ms=%d", (arg & 3) * 10);
            sent[i] = send_get(c, path, NULL, 0, 0, &g_calls[i], &tasks[i]);
            break;
        case 6:
            nc_client_cancel_group(c, "g", NULL);
            break;
        case 7:
            snprintf(path, sizeof path, "/slow?ms=%d", (arg & 3) * 10);
            sent[i] = send_get(c, path, "g", 0, 0, &g_calls[i], &tasks[i]);
            break;
        case 8: /* retried twice, 5 ms apart, unless the flag says not to */
            sent[i] = send_get(c, "/status/503", arg & 1 ? "g" : NULL, arg & 2 ? NC_REQUEST_NO_RETRY : 0,
                               0, &g_calls[i], &tasks[i]);
            break;
        case 9: {
            nc_batch *b = NULL;
            if (nc_batch_new(c, arg & 8 ? NC_BATCH_FAIL_FAST : NC_BATCH_SETTLE, &b) != NC_OK) abort();
            static const char *members[] = {"/fault/ok", "/slow?ms=10", "/status/500",
                                            "/auth/check?valid=T"};
            for (int m = 0; m <= (arg & 3); m++) {
                nc_request *req = NULL;
                if (nc_request_new("GET", members[(m + arg) & 3], &req) != NC_OK) abort();
                if (nc_batch_add(b, req) != NC_OK) abort();
                nc_request_free(req);
            }
            sent[i] = nc_batch_send(b, on_batch, &g_calls[i], &tasks[i]) == NC_OK;
            nc_batch_free(b);
            break;
        }
        case 10: /* expired unless the token is "T": a refresh */
            sent[i] =
                send_get(c, "/auth/check?valid=T", arg & 1 ? "g" : NULL, 0, 0, &g_calls[i], &tasks[i]);
            break;
        case 11:
            sent[i] =
                nc_client_call(c, "slow", "{\"ms\":10}", 9, on_done, &g_calls[i], &tasks[i]) == NC_OK;
            break;
        case 12:
            nc_client_refresh_done(c, arg & 1 ? "T" : NULL, "refresh failed");
            break;
        case 13:
            if (nc_client_set_token(c, arg & 1 ? "T" : "old") != NC_OK) abort();
            break;
        case 14:
            if (nc_client_set_reachability(c, arg & 1 ? NC_REACH_ONLINE : NC_REACH_OFFLINE) != NC_OK)
                abort();
            break;
        case 15:
            sent[i] = send_get(c, "/slow?ms=50", NULL, 0, (int64_t)arg * 5 + 1, &g_calls[i], &tasks[i]);
            break;
        }
    }
    nc_client_free(c);
    check_exactly_once(sent, g_calls, tasks, n, data);
    return 0;
}
