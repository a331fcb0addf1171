/*
 * fuzz_response.c — libFuzzer target: the response path (libcurl's parser, the
 * sink's limits and framing checks, the classifier and the envelope) on any bytes
 * a server can send. A loopback listener in this process answers each connection
 * with the input, verbatim, then closes; the client (envelope mode, small limits)
 * must complete with success or an error of a known domain, exactly once.
 * The client also runs what reads a response's headers past the classifier: a
 * retry policy (two attempts, waits capped at 2 ms, so a Retry-After of any form
 * is read), a memory cache (Cache-Control, Expires, ETag, Vary, Age; cleared
 * after each input, so nothing is served from it), the cookie jar (Set-Cookie;
 * read back as JSON, then cleared), the auth-expired handler, an
 * event handler and a TRACE log handler. Every event must be valid JSON and
 * every log line one line.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_listener.h"
#include "netcore.h"

static int g_listener = -1;
static nc_client *g_client;
static int g_port;
static const uint8_t *g_data;
static size_t g_size;
static int g_wake[2] = {-1, -1};

/* Answers every connection (the first attempt's, a retry's) with the input until
 * the send has returned and written a byte to g_wake. */
static void *serve(void *arg) {
    (void)arg;
    for (;;) {
        struct pollfd pfd[2] = {{.fd = g_listener, .events = POLLIN},
                                {.fd = g_wake[0], .events = POLLIN}};
        if (poll(pfd, 2, -1) <= 0) continue;
        if (pfd[1].revents) {
            char byte;
            (void)!read(g_wake[0], &byte, 1);
            return NULL;
        }
        int fd = accept(g_listener, NULL, NULL);
        if (fd < 0) continue;
        char buf[4096];
        (void)!read(fd, buf, sizeof buf); /* the request (one read is enough for a GET) */
        size_t off = 0;
        while (off < g_size) {
            /* The client may have closed first: no SIGPIPE. */
            ssize_t w = send(fd, g_data + off, g_size - off, MSG_NOSIGNAL);
            if (w <= 0) break;
            off += (size_t)w;
        }
        shutdown(fd, SHUT_WR);
        close(fd);
    }
    return NULL;
}

static void on_event(const char *event_json, size_t len, void *userdata) {
    (void)userdata;
    if (strlen(event_json) != len) abort();
    json_error_t jerr;
    json_t *ev = json_loads(event_json, 0, &jerr);
    if (!json_is_object(ev)) abort();
    json_decref(ev);
}

static void on_log(const char *line, size_t len, void *userdata) {
    (void)userdata;
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s\n", line); /* to read what a seed does */
    if (strlen(line) != len || !is_one_line(line)) abort();
}

static void on_auth_expired(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp, (void)userdata;
    if (!err) abort();
}

static void setup(void) {
    g_listener = fuzz_listen(&g_port, g_wake);
    nc_error *err = NULL;
    static const char config[] =
        "{\"timeout_ms\":2000,\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
        "\"retry\":{\"max_attempts\":2,\"initial_ms\":1,\"max_delay_ms\":2},"
        "\"cache\":{\"memory_bytes\":1048576},\"cookies\":{\"enabled\":true},"
        "\"limits\":{\"max_redirects\":0,\"max_response_bytes\":65536,\"max_header_count\":50,"
        "\"max_header_bytes\":8192},"
        "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\","
        "\"auth_expired_codes\":[401001,\"E_AUTH\"]}}";
    if (nc_client_new(config, &g_client, &err) != NC_OK) abort();
    if (nc_client_set_event_handler(g_client, on_event, NULL) != NC_OK ||
        nc_client_set_log_handler(g_client, NC_LOG_TRACE, on_log, NULL) != NC_OK ||
        nc_client_set_auth_expired_handler(g_client, on_auth_expired, NULL) != NC_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) setup();
    g_data = data;
    g_size = size;
    pthread_t t;
    if (pthread_create(&t, NULL, serve, NULL) != 0) abort();
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/api/x", g_port);
    nc_request *req = NULL;
    if (nc_request_new("GET", url, &req) != NC_OK) abort();
    nc_request_set_header(req, "Connection", "close"); /* one connection per attempt */
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
    if (write(g_wake[1], "x", 1) != 1) abort();
    pthread_join(t, NULL);
    if (st == NC_OK) {
        if (!resp || err) abort();
    } else {
        if (st != NC_ERR_FAILED || !err || !nc_error_message(err)[0]) abort();
        int d = nc_error_domain(err);
        if (d < NC_DOMAIN_CLIENT || d > NC_DOMAIN_PARSE) abort();
        /* A received body comes with HTTP, API and PARSE errors; none with the others. */
        if ((d == NC_DOMAIN_CLIENT || d == NC_DOMAIN_TRANSPORT) && resp) abort();
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    /* The jar, as JSON, holds what Set-Cookie lines were kept. */
    char *cookies = NULL;
    if (nc_client_cookies_json(g_client, &cookies) != NC_OK || !cookies) abort();
    json_error_t jerr;
    json_t *jar = json_loads(cookies, 0, &jerr);
    if (!json_is_array(jar)) abort();
    json_decref(jar);
    nc_string_free(cookies);
    /* What was stored is dropped: an input leaves nothing behind (libFuzzer's leak
     * check scans the heap after any input that allocated more than it freed). */
    nc_client_cache_clear(g_client);
    nc_client_cookies_clear(g_client);
    return 0;
}
