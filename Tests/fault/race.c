/*
 * race.c — `make race-1m` (docs/RELIABILITY.md): exactly-once completion over N
 * cancel/complete races, and the resident set over N requests.
 *
 *   race [N]     default 1000000
 *
 * A loopback server in this process (one thread per connection, keep-alive, a
 * fixed 200 envelope) keeps the test about libnetcore, not a server's speed.
 *
 * Phase 1 (races): WINDOW requests in flight on one client; each is sent with
 * nc_client_send and cancelled with nc_task_cancel at a point that varies from
 * "at once" to "after its callback may have run" (a spin of 0..255 iterations),
 * so cancel and completion meet at every stage. Every request has its own
 * callback counter; when nc_client_free returns each must be exactly 1. Prints
 * how many ended cancelled and how many completed.
 *
 * Phase 2 (memory): N requests (nc_client_send, WINDOW in flight) on one client;
 * RSS (/proc/self/statm) after the first 10% and at the end. The run fails if
 * it grew by more than 1 MiB between the two.
 * Exits 0 when both hold.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>

#include "loopback.h"
#include "netcore.h"

#define WINDOW 16

/* ---- the server: a fixed 200 envelope ---- */

static const char RESPONSE[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 39\r\n\r\n"
    "{\"code\":0,\"msg\":\"ok\",\"data\":{\"race\":1}}"; /* 39 bytes */

static size_t respond(const char *head, char *out, size_t cap) {
    (void)head;
    if (cap < sizeof RESPONSE) return 0;
    memcpy(out, RESPONSE, sizeof RESPONSE - 1);
    return sizeof RESPONSE - 1;
}

/* ---- the client side ---- */

static unsigned char *g_calls; /* callbacks per request */
static atomic_long g_cancelled, g_completed, g_shutdown, g_failed, g_done;
static char g_other[512]; /* the first "other" error's message */

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    size_t i = (size_t)(uintptr_t)userdata;
    if (g_calls[i] < 255) g_calls[i]++;
    if (!err && resp) atomic_fetch_add(&g_completed, 1);
    else if (err && nc_error_domain(err) == NC_DOMAIN_CLIENT &&
             nc_error_code(err) == NC_CLIENT_CANCELLED)
        atomic_fetch_add(&g_cancelled, 1);
    else if (err && nc_error_domain(err) == NC_DOMAIN_CLIENT && nc_error_code(err) == NC_CLIENT_SHUTDOWN)
        atomic_fetch_add(&g_shutdown, 1); /* in flight when nc_client_free ran */
    else if (atomic_fetch_add(&g_failed, 1) == 0)
        snprintf(g_other, sizeof g_other, "%s %lld: %s",
                 err ? nc_error_domain_name(err) : "no error, no response",
                 err ? (long long)nc_error_code(err) : 0LL, err ? nc_error_message(err) : "");
    atomic_fetch_add(&g_done, 1);
}

static nc_client *new_client(int port) {
    char config[256];
    snprintf(config, sizeof config,
             "{\"base_url\":\"http://"
             "127.0.0.1:%d\",\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
             "\"limits\":{\"max_connections_per_host\":%d}}",
             port, WINDOW);
    return loopback_client(config);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int port = loopback_start(respond);
    if (port < 0 || n <= 0) return 2;
    g_calls = calloc((size_t)n, 1);
    nc_request *req = NULL;
    if (!g_calls || nc_request_new("GET", "/race", &req) != NC_OK) return 2;

    /* Phase 1: cancel/complete races. */
    nc_client *c = new_client(port);
    double t0 = now_s();
    unsigned seed = 12345;
    for (long i = 0; i < n; i++) {
        nc_task *task = NULL;
        wait_below(&g_done, i, WINDOW);
        if (nc_client_send(c, req, on_done, (void *)(uintptr_t)i, &task) != NC_OK) {
            fprintf(stderr, "send %ld refused\n", i);
            return 1;
        }
        seed = seed * 1103515245u + 12345u;
        for (volatile unsigned spin = 0; spin < ((seed >> 16) & 255) * 40; spin++) {}
        if ((seed >> 8) & 7) nc_task_cancel(task); /* 7 in 8 cancelled at some point, the rest run */
        nc_task_free(task);
    }
    nc_client_free(c);
    long wrong = 0, first = -1;
    for (long i = 0; i < n; i++)
        if (g_calls[i] != 1) {
            if (first < 0) first = i;
            wrong++;
        }
    printf("races: %ld requests in %.1f s: %ld cancelled, %ld completed, %ld ended by nc_client_free, "
           "%ld other errors; callbacks != 1: %ld%s\n",
           n, now_s() - t0, atomic_load(&g_cancelled), atomic_load(&g_completed),
           atomic_load(&g_shutdown), atomic_load(&g_failed), wrong, wrong ? " (FAIL)" : "");
    if (g_other[0]) printf("first other error: %s\n", g_other);
    g_other[0] = 0;
    long races_failed = atomic_load(&g_failed);
    if (wrong) printf("first request with %d callbacks: %ld\n", g_calls[first], first);

    /* Phase 2: RSS over n requests. */
    memset(g_calls, 0, (size_t)n);
    atomic_store(&g_done, 0);
    atomic_store(&g_completed, 0);
    atomic_store(&g_failed, 0);
    c = new_client(port);
    t0 = now_s();
    long rss_early = 0, mark = n / 10 > 0 ? n / 10 : 1;
    for (long i = 0; i < n; i++) {
        wait_below(&g_done, i, WINDOW);
        if (i == mark) {
            wait_below(&g_done, i, 1);
            rss_early = rss_kib();
        }
        if (nc_client_send(c, req, on_done, (void *)(uintptr_t)i, NULL) != NC_OK) return 1;
    }
    wait_below(&g_done, n, 1);
    long rss_end = rss_kib();
    nc_client_free(c);
    long growth = rss_end - rss_early;
    printf("memory: %ld requests in %.1f s (%ld completed, %ld failed); RSS %ld KiB after %ld, %ld KiB "
           "at the "
           "end: %+ld KiB%s\n",
           n, now_s() - t0, atomic_load(&g_completed), atomic_load(&g_failed), rss_early, mark, rss_end,
           growth, growth > 1024 ? " (FAIL: more than 1 MiB)" : "");
    if (g_other[0]) printf("first error: %s\n", g_other);
    nc_request_free(req);
    free(g_calls);
    return (wrong || races_failed || growth > 1024 || atomic_load(&g_failed)) ? 1 : 0;
}
