/*
 * fuzz_dates.c — libFuzzer target: Retry-After and HTTP dates (RetryAfter.swift,
 * HTTPDate.swift: seconds, IMF-fixdate, RFC 850, asctime; Freshness.swift's
 * Expires). The input, cut at its first CR, LF or NUL, is a header value. A
 * loopback listener in this process answers the first connection of each input
 * "503" with "Retry-After: <value>", and every later one "200" with "Date: <now>"
 * and "Expires: <value>". The client (raw mode, a memory cache) retries once with
 * respect_retry_after (waits: constant 1 ms, at most 3 ms), then sends a second
 * GET with NC_CACHE_ELSE_NETWORK.
 * Checked against this file's own reading of the two strict forms (digits only;
 * an IMF-fixdate of exactly 29 bytes, fields in range, in GMT):
 *   - the retry event's reason names Retry-After exactly when its delay_ms is the
 *     header's (0 for 0 or a past date, 3 for a future one), else the backoff's 1;
 *   - digits, or a valid IMF-fixdate more than 5 s away from now, are read as such;
 *   - an Expires more than a minute ahead serves the second GET from the cache,
 *     one more than a minute behind does not;
 *   - the sends complete with a response or an error with a message.
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
#include <time.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_listener.h"
#include "netcore.h"

static int g_listener = -1;
static nc_client *g_client;
static int g_port;
static char g_value[256];
static int g_wake[2] = {-1, -1};
static int g_retry_events;
static int64_t g_delay;
static int g_names_retry_after;

static void *serve(void *arg) {
    (void)arg;
    for (int k = 0;; k++) {
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
        (void)!read(fd, buf, sizeof buf);
        static char answer[1024];
        int n;
        if (k == 0) {
            n = snprintf(
                answer, sizeof answer,
                "HTTP/1.1 503 Busy\r\nRetry-After: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                g_value);
        } else {
            char date[64];
            time_t now = time(NULL);
            struct tm t;
            gmtime_r(&now, &t);
            strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &t);
            n = snprintf(
                answer, sizeof answer,
                "HTTP/1.1 200 OK\r\nDate: %s\r\nExpires: %s\r\nContent-Type: application/json\r\n"
                "Content-Length: 2\r\nConnection: close\r\n\r\n{}",
                date, g_value);
        }
        (void)!send(fd, answer, (size_t)n, MSG_NOSIGNAL);
        shutdown(fd, SHUT_WR);
        close(fd);
    }
}

static void on_event(const char *event_json, size_t len, void *userdata) {
    (void)len, (void)userdata;
    json_error_t jerr;
    json_t *ev = json_loads(event_json, 0, &jerr);
    if (!json_is_object(ev)) abort();
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *reason = json_string_value(json_object_get(ev, "reason"));
    if (kind && strcmp(kind, "retry") == 0 && reason && strncmp(reason, "HTTP 503", 8) == 0) {
        g_retry_events++;
        g_delay = json_integer_value(json_object_get(ev, "delay_ms"));
        g_names_retry_after = strstr(reason, "Retry-After") != NULL;
    }
    json_decref(ev);
}

static void setup(void) {
    g_listener = fuzz_listen(&g_port, g_wake);
    nc_error *err = NULL;
    static const char config[] =
        "{\"timeout_ms\":2000,\"coalesce\":false,\"reachability\":{\"mode\":\"online\"},"
        "\"retry\":{\"max_attempts\":2,\"backoff\":\"constant\",\"initial_ms\":1,\"max_delay_ms\":3,"
        "\"jitter\":false,\"respect_retry_after\":true},"
        "\"cache\":{\"memory_bytes\":1048576}}";
    if (nc_client_new(config, &g_client, &err) != NC_OK) abort();
    if (nc_client_set_event_handler(g_client, on_event, NULL) != NC_OK) abort();
}

static int days_in(int m, int y) {
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 29 : d[m - 1];
}

/* An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") as RFC 9110 §5.6.7 lays it out
 * (the day name's letters are not checked, as the library does not): 1, Unix
 * seconds in *out; 0 otherwise. Years 1900-9999, the library's range. */
static int fixdate(const char *s, int64_t *out) {
    static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (strlen(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
        s[19] != ':' || s[22] != ':' || strcmp(s + 25, " GMT") != 0)
        return 0;
    int v[5], pos[5] = {5, 17, 20, 23, 12}, width[5] = {2, 2, 2, 2, 4};
    for (int f = 0; f < 5; f++) {
        v[f] = 0;
        for (int i = 0; i < width[f]; i++) {
            char c = s[pos[f] + i];
            if (c < '0' || c > '9') return 0;
            v[f] = v[f] * 10 + (c - '0');
        }
    }
    int mon = 0;
    while (mon < 12 && strncmp(s + 8, months[mon], 3) != 0) mon++;
    if (mon == 12) return 0;
    int day = v[0], h = v[1], mi = v[2], sec = v[3], year = v[4];
    if (year < 1900 || day < 1 || day > days_in(mon + 1, year) || h > 23 || mi > 59 || sec > 60)
        return 0;
    int64_t days = 0;
    for (int y = 1970; y < year; y++) days += 365 + (days_in(2, y) == 29);
    for (int y = year; y < 1970; y++) days -= 365 + (days_in(2, y) == 29);
    for (int m = 1; m <= mon; m++) days += days_in(m, year);
    *out = (days + day - 1) * 86400 + h * 3600 + mi * 60 + sec;
    return 1;
}

static void send_get(int32_t policy, nc_response **resp_out) {
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/d", g_port);
    nc_request *req = NULL;
    if (nc_request_new("GET", url, &req) != NC_OK || nc_request_set_cache_policy(req, policy) != NC_OK)
        abort();
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_send_sync(g_client, req, &resp, &err);
    nc_request_free(req);
    if (st != NC_OK && (st != NC_ERR_FAILED || !err || !nc_error_message(err)[0])) abort();
    nc_error_free(err);
    *resp_out = resp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_client) setup();
    size_t n = 0;
    while (n < size && n < sizeof g_value - 1 && data[n] != '\r' && data[n] != '\n' && data[n] != 0) n++;
    memcpy(g_value, data, n);
    g_value[n] = 0;
    g_retry_events = 0, g_delay = -1, g_names_retry_after = 0;

    pthread_t t;
    if (pthread_create(&t, NULL, serve, NULL) != 0) abort();
    nc_response *first = NULL, *second = NULL;
    send_get(NC_CACHE_NETWORK_ONLY, &first);
    int64_t now = (int64_t)time(NULL);
    send_get(NC_CACHE_ELSE_NETWORK, &second);
    if (write(g_wake[1], "x", 1) != 1) abort();
    pthread_join(t, NULL);

    if (getenv("FUZZ_VERBOSE")) /* to read what a seed does */
        fprintf(stderr,
                "\"%s\": retry events %d, delay %lld, names Retry-After %d; second from the cache %d\n",
                g_value, g_retry_events, (long long)g_delay, g_names_retry_after,
                second ? nc_response_from_cache(second) : -1);
    int64_t when = 0;
    int is_date = fixdate(g_value, &when);
    int is_digits = n > 0 && strspn(g_value, "0123456789") == n;
    if (g_retry_events == 1) {
        int64_t want = -1; /* -1: no expectation */
        if (is_digits) want = strspn(g_value, "0") == n ? 0 : 3;
        if (is_date && when <= now - 5) want = 0;
        if (is_date && when >= now + 5) want = 3;
        if (g_names_retry_after ? (g_delay != 0 && g_delay != 3) : g_delay != 1) abort();
        if (want >= 0 && (!g_names_retry_after || g_delay != want)) {
            fprintf(stderr, "Retry-After \"%s\": delay %lld, reason %s Retry-After; expected %lld\n",
                    g_value, (long long)g_delay, g_names_retry_after ? "names" : "does not name",
                    (long long)want);
            abort();
        }
    }
    if (first && second && is_date && nc_response_status(first) == 200) {
        int cached = nc_response_from_cache(second);
        if ((when >= now + 60 && !cached) || (when <= now - 60 && cached)) {
            fprintf(stderr, "Expires \"%s\": served from the cache %d\n", g_value, cached);
            abort();
        }
    }
    nc_response_free(first);
    nc_response_free(second);
    nc_client_cache_clear(g_client);
    return 0;
}
