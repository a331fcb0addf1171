/*
 * reach_netns_test.c — reachability in AUTO mode on a machine without a route off
 * it: run by Tests/C/run.sh inside a new network namespace (`unshare -rn`), where
 * only loopback exists, against a mock server listening on 0.0.0.0:<port> there.
 *
 *   usage: reach_netns_test <port>
 *
 * 1. A request to a name fails NC_CLIENT_UNREACHABLE, while the same request with
 *    reachability forced ONLINE fails as its DNS lookup does (TRANSPORT 6): the
 *    AUTO gate answered before any lookup.
 * 2. Loopback is reached in AUTO.
 * 3. With wait_for_network_ms, a request to 10.9.0.1 waits; this program then
 *    gives the namespace a route (a veth pair with 10.9.0.1/24) and the request is
 *    sent when the watcher sees it, reaching the server; the AUTO client's
 *    reachability handler is called once, with NC_REACH_ONLINE, on the watcher's
 *    thread (not this one).
 * Prints "N passed, M failed" last; exits non-zero on any failure, 77 when the
 * namespace cannot get an interface (step 3 skipped).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcore.h"

static int g_passed, g_failed;

#define CHECK(c)                                                                                        \
  do {                                                                                                  \
    if (c) {                                                                                            \
      g_passed++;                                                                                       \
    } else {                                                                                            \
      g_failed++;                                                                                       \
      printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c);                                                \
    }                                                                                                   \
  } while (0)

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static nc_client *client_with(const char *config) {
    nc_client *c = NULL;
    nc_error *e = NULL;
    if (nc_client_new(config, &c, &e) != NC_OK) {
        printf("FAIL nc_client_new(%s): %s\n", config, nc_error_message(e));
        g_failed++;
        nc_error_free(e);
    }
    return c;
}

/* Sends GET url synchronously; returns the error's domain*1000+code, 0 on success. */
static long long outcome_of(nc_client *c, const char *url) {
    nc_request *r = NULL;
    nc_response *resp = NULL;
    nc_error *e = NULL;
    long long result = -1;
    if (nc_request_new("GET", url, &r) != NC_OK) return -1;
    if (nc_client_send_sync(c, r, &resp, &e) == NC_OK) {
        result = 0;
    } else if (e) {
        result = nc_error_domain(e) * 1000LL + nc_error_code(e);
        printf("     %s: %s %s\n", url, nc_error_domain_name(e), nc_error_message(e));
    }
    nc_response_free(resp);
    nc_error_free(e);
    nc_request_free(r);
    return result;
}

struct waiter {
    pthread_mutex_t lock;
    int calls;
    int status;
    long long error;
};

static void on_done(const nc_response *resp, const nc_error *e, void *userdata) {
    struct waiter *w = userdata;
    pthread_mutex_lock(&w->lock);
    w->calls++;
    w->status = nc_response_status(resp);
    w->error = e ? nc_error_domain(e) * 1000LL + nc_error_code(e) : 0;
    pthread_mutex_unlock(&w->lock);
}

/* The states a reachability handler saw, and on which thread. */
struct states {
    pthread_mutex_t lock;
    int n;
    int last;
    pthread_t thread;
};

static void on_state(int32_t state, void *userdata) {
    struct states *s = userdata;
    pthread_mutex_lock(&s->lock);
    s->n++;
    s->last = state;
    s->thread = pthread_self();
    pthread_mutex_unlock(&s->lock);
}

static int states_of(struct states *s) {
    pthread_mutex_lock(&s->lock);
    int n = s->n;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static int calls_of(struct waiter *w) {
    pthread_mutex_lock(&w->lock);
    int n = w->calls;
    pthread_mutex_unlock(&w->lock);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <port>\n", argv[0]);
        return 2;
    }
    const char *port = argv[1];
    char url[256];
    const long long unreachable = NC_DOMAIN_CLIENT * 1000LL + NC_CLIENT_UNREACHABLE;
    const long long dns_failed = NC_DOMAIN_TRANSPORT * 1000LL + 6; /* CURLE_COULDNT_RESOLVE_HOST */

    /* 1. no route: fail fast, before DNS */
    nc_client *automatic = client_with("{\"reachability\":{\"mode\":\"auto\"}}");
    nc_client *online =
        client_with("{\"reachability\":{\"mode\":\"online\"},\"connect_timeout_ms\":2000}");
    if (!automatic || !online) return 1;
    CHECK(nc_client_reachability(automatic) == NC_REACH_OFFLINE);
    CHECK(nc_client_reachability(online) == NC_REACH_ONLINE);
    struct states seen = {PTHREAD_MUTEX_INITIALIZER, 0, 0, pthread_self()};
    CHECK(nc_client_set_reachability_handler(automatic, on_state, &seen) == NC_OK);
    CHECK(outcome_of(automatic, "http://api.example.invalid/users") == unreachable);
    CHECK(outcome_of(online, "http://api.example.invalid/users") == dns_failed);

    /* 2. loopback is never blocked in AUTO */
    snprintf(url, sizeof url, "http://127.0.0.1:%s/api/echo", port);
    CHECK(outcome_of(automatic, url) == 0);
    snprintf(url, sizeof url, "http://localhost:%s/api/echo", port);
    CHECK(outcome_of(automatic, url) == 0);
    nc_client_free(online);

    /* 3. wait for the network: a route appears, the request goes */
    int code = 0;
    nc_client *waiting = client_with("{\"reachability\":{\"wait_for_network_ms\":60000}}");
    if (!waiting) return 1;
    struct waiter w = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};
    nc_request *r = NULL;
    snprintf(url, sizeof url, "http://10.9.0.1:%s/api/echo", port);
    CHECK(nc_request_new("GET", url, &r) == NC_OK);
    CHECK(nc_client_send(waiting, r, on_done, &w, NULL) == NC_OK);
    nc_request_free(r);
    sleep_ms(200);
    CHECK(calls_of(&w) == 0); /* held, not failed */
    if (system("ip link add nc0 type veth peer name nc1 && ip addr add 10.9.0.1/24 dev nc0 && "
               "ip link set nc1 up && ip link set nc0 up") != 0) {
        printf("skip - the namespace cannot get a veth interface: waiting for a route not tested\n");
        code = 77;
        nc_client_free(waiting); /* ends the waiting request with SHUTDOWN */
        CHECK(calls_of(&w) == 1);
    } else {
        for (int i = 0; i < 2000 && calls_of(&w) == 0; i++) sleep_ms(10);
        CHECK(calls_of(&w) == 1);
        CHECK(w.error == 0);
        CHECK(w.status == 200);
        CHECK(nc_client_reachability(automatic) == NC_REACH_ONLINE);
        /* the routing change reached the AUTO client's handler, once, from the watcher */
        for (int i = 0; i < 2000 && states_of(&seen) == 0; i++) sleep_ms(10);
        CHECK(states_of(&seen) == 1);
        CHECK(seen.last == NC_REACH_ONLINE);
        CHECK(!pthread_equal(seen.thread, pthread_self()));
        nc_client_free(waiting);
        CHECK(calls_of(&w) == 1);
    }
    nc_client_free(automatic);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : code;
}
