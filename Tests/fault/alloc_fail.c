/*
 * alloc_fail.c — one step of the allocation-failure sweep (`make alloc-fail`,
 * Tests/fault/alloc-fail.sh, docs/RELIABILITY.md). Runs with
 * LD_PRELOAD=failmalloc.so.
 *
 *   alloc_fail BASE census   sends the request once with counting on; prints
 *                            "calls N" and one "site I OBJECT+0xOFFSET" line per call
 *   alloc_fail BASE fail N   fails the N-th allocation of the request; prints
 *                            "N OUTCOME site OBJECT+0xOFFSET ..."; exits 0 when the
 *                            outcome is clean, 3 when it is a wrong answer, and dies
 *                            (after printing the failed site) when the process cannot
 *                            survive that allocation failing
 *
 * The request: a client with an envelope, a kept-alive connection (one request
 * before, not counted), then GET BASE/env/code/ok?q=1 with a header, sent with
 * nc_client_send_sync() (its transfer runs on this thread: only this thread's
 * allocations are counted). Clean outcomes: success with the right data (the
 * failure was absorbed), NC_CLIENT_INTERNAL, or NC_ERR_NO_MEMORY; then the same
 * client must serve the next request, and nc_client_free() must return.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcore.h"

static void (*fm_arm)(long);
static long (*fm_disarm)(void);
static void *(*fm_site)(long);
static void *(*fm_failed)(void);

/* "object+0xoffset" of a code address (no allocation: dladdr reads loaded tables). */
static void site_text(void *addr, char *out, size_t n) {
    Dl_info info;
    if (addr && dladdr(addr, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        snprintf(out, n, "%s+0x%lx", slash ? slash + 1 : info.dli_fname,
                 (unsigned long)((char *)addr - (char *)info.dli_fbase));
    } else {
        snprintf(out, n, "?+%p", addr);
    }
}

static long g_n;

static void on_crash(int sig) {
    char site[512], line[700];
    site_text(fm_failed ? fm_failed() : NULL, site, sizeof site);
    int len = snprintf(line, sizeof line, "%ld crash(signal %d) site %s\n", g_n, sig, site);
    if (len > 0) (void)!write(1, line, (size_t)len);
    signal(sig, SIG_DFL);
    raise(sig);
}

static nc_status get(nc_client *c, const char *url, nc_response **resp, nc_error **err) {
    nc_request *req = NULL;
    *resp = NULL;
    *err = NULL;
    if (nc_request_new("GET", url, &req) != NC_OK) return NC_ERR_NO_MEMORY;
    nc_request_set_header(req, "X-Sweep", "1");
    nc_status st = nc_client_send_sync(c, req, resp, err);
    nc_request_free(req);
    return st;
}

static int data_ok(const nc_response *resp) {
    json_t *data = resp ? nc_response_data(resp) : NULL;
    return json_is_object(data) && json_integer_value(json_object_get(data, "id")) == 7;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BASE census | BASE fail N\n", argv[0]);
        return 2;
    }
    fm_arm = (void (*)(long))dlsym(RTLD_DEFAULT, "failmalloc_arm");
    fm_disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "failmalloc_disarm");
    fm_site = (void *(*)(long))dlsym(RTLD_DEFAULT, "failmalloc_site");
    fm_failed = (void *(*)(void))dlsym(RTLD_DEFAULT, "failmalloc_failed");
    if (!fm_arm || !fm_disarm || !fm_site || !fm_failed) {
        fprintf(stderr, "failmalloc.so is not preloaded\n");
        return 2;
    }
    int census = strcmp(argv[2], "census") == 0;
    g_n = census ? 0 : (argc > 3 ? atol(argv[3]) : 0);
    char config[512], url[512];
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"reachability\":{\"mode\":\"online\"},"
             "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}}",
             argv[1]);
    snprintf(url, sizeof url, "%s/env/code/ok?q=1", argv[1]);
    nc_client *c = NULL;
    nc_error *err = NULL;
    nc_response *resp = NULL;
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "nc_client_new: %s\n", nc_error_message(err));
        return 2;
    }
    /* Warm up twice: the connection is kept alive, one-time state is made. */
    for (int i = 0; i < 2; i++) {
        if (get(c, url, &resp, &err) != NC_OK || !data_ok(resp)) {
            fprintf(stderr, "warm-up failed: %s\n", err ? nc_error_message(err) : "wrong data");
            return 2;
        }
        nc_response_free(resp);
        nc_error_free(err);
    }
    int sigs[] = {SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_crash);

    fm_arm(census ? 0 : g_n);
    nc_status st = get(c, url, &resp, &err);
    long calls = fm_disarm();
    void *failed = fm_failed();

    char outcome[1024], site[512];
    int clean = 1;
    if (st == NC_OK && data_ok(resp)) {
        snprintf(outcome, sizeof outcome, "ok");
    } else if (st == NC_ERR_NO_MEMORY) {
        snprintf(outcome, sizeof outcome, "no-memory");
    } else if (st == NC_ERR_FAILED && err && nc_error_domain(err) == NC_DOMAIN_CLIENT &&
               nc_error_code(err) == NC_CLIENT_INTERNAL) {
        snprintf(outcome, sizeof outcome, "internal");
    } else {
        clean = 0;
        snprintf(outcome, sizeof outcome, "WRONG(status %d, %s %lld: %s)", (int)st,
                 err ? nc_error_domain_name(err) : "-", err ? (long long)nc_error_code(err) : 0LL,
                 err ? nc_error_message(err) : "success with wrong data");
    }
    nc_response_free(resp);
    nc_error_free(err);

    if (census) {
        printf("calls %ld\n", calls);
        for (long i = 0; i < calls && i < 65536; i++) {
            site_text(fm_site(i), site, sizeof site);
            printf("site %ld %s\n", i + 1, site);
        }
    } else {
        site_text(failed, site, sizeof site);
        /* The same client serves the next request. */
        nc_status next = get(c, url, &resp, &err);
        int next_ok = next == NC_OK && data_ok(resp);
        nc_response_free(resp);
        nc_error_free(err);
        if (!next_ok) clean = 0;
        printf("%ld %s site %s%s%s\n", g_n, outcome, failed ? site : "(none: fewer calls)",
               next_ok ? "" : " NEXT-REQUEST-FAILED", calls < g_n ? " beyond-the-request" : "");
    }
    fflush(stdout);
    nc_client_free(c);
    return clean ? 0 : 3;
}
