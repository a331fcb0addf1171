/*
 * loopback.h — what race.c and soak.c share: a keep-alive HTTP/1.1 server in the
 * test's own process (one thread per connection, GET requests only), the resident
 * set, a monotonic clock, making a client and waiting for completions. An in-process server keeps their figures about
 * libnetcore, not about a Python server's speed.
 *
 * The server hands each request's head (request line and headers, NUL-terminated)
 * to the test's `loopback_respond_fn`, which writes the whole response (status
 * line, headers, body) into `out` and returns its length.
 */
#ifndef NC_TEST_LOOPBACK_H
#define NC_TEST_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netcore.h"

typedef size_t (*loopback_respond_fn)(const char *head, char *out, size_t cap);

static loopback_respond_fn loopback_respond;

static void *loopback_conn(void *arg) {
    int fd = (int)(intptr_t)arg, one = 1;
    char buf[16384], out[2048];
    size_t have = 0;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof buf - have - 1);
        if (r <= 0) break;
        have += (size_t)r;
        buf[have] = 0;
        char *end;
        while ((end = strstr(buf, "\r\n\r\n")) != NULL) { /* GETs only: no body */
            end[2] = 0;                                   /* the head, its last CRLF kept */
            size_t n = loopback_respond(buf, out, sizeof out);
            if (n == 0 || write(fd, out, n) < 0) goto done;
            size_t used = (size_t)(end + 4 - buf);
            memmove(buf, buf + used, have - used);
            have -= used;
            buf[have] = 0;
        }
        if (have >= sizeof buf - 1) break;
    }
done:
    close(fd);
    return NULL;
}

static void *loopback_accept(void *arg) {
    int listener = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        pthread_t t;
        if (pthread_create(&t, NULL, loopback_conn, (void *)(intptr_t)fd) == 0) pthread_detach(t);
        else close(fd);
    }
    return NULL;
}

/* Starts the server on a free port of 127.0.0.1; returns the port, -1 on failure. */
static int loopback_start(loopback_respond_fn respond) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    loopback_respond = respond;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 512) ||
        getsockname(l, (struct sockaddr *)&a, &len))
        return -1;
    pthread_t t;
    if (pthread_create(&t, NULL, loopback_accept, (void *)(intptr_t)l) != 0) return -1;
    pthread_detach(t);
    return ntohs(a.sin_port);
}

/* The resident set in KiB (/proc/self/statm), -1 when it cannot be read. */
static long rss_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A client made from the JSON `config`; exits 2 when nc_client_new refuses it. */
static nc_client *loopback_client(const char *config) {
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "nc_client_new: %s\n", nc_error_message(err));
        exit(2);
    }
    return c;
}

/* Waits until fewer than `limit` of the `sent` requests have not yet counted
   themselves in `*done`. */
static void wait_below(atomic_long *done, long sent, long limit) {
    while (sent - atomic_load(done) >= limit) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

#endif
