/*
 * fuzz_common.h — what several libFuzzer targets of Tests/fuzz share: reading an
 * input in NUL-separated parts, the exactly-once check of the call-sequence
 * targets and their synchronous GET, and what makes a log line one line. Each target is one .c file built on its own (Tests/fuzz/run.sh), so
 * these are static inline functions.
 */
#ifndef NC_FUZZ_COMMON_H
#define NC_FUZZ_COMMON_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcore.h"

/* Copies the input's next part (up to a NUL byte or its end, at most cap - 1
 * bytes) into buf, NUL-terminated, and moves *p past it and its NUL. */
static inline const char *next_part(const char **p, const char *end, char *buf, size_t cap) {
    size_t n = 0;
    while (*p < end && **p != 0 && n + 1 < cap) buf[n++] = *(*p)++;
    buf[n] = 0;
    if (*p < end) (*p)++;
    return buf;
}

/* After nc_client_free: each of the n steps whose send returned NC_OK (sent[i])
 * had its callback called exactly once, the others never; frees the tasks.
 * Aborts, naming the step and its input byte, otherwise. */
static inline void check_exactly_once(const int *sent, atomic_int *calls, nc_task **tasks, size_t n,
                                      const uint8_t *data) {
    for (size_t i = 0; i < n; i++) {
        int got = atomic_load(&calls[i]);
        if (got != (sent[i] ? 1 : 0)) {
            fprintf(stderr, "step %zu (byte 0x%02x, sent %d): %d callbacks\n", i, data[i], sent[i], got);
            abort();
        }
        nc_task_free(tasks[i]);
    }
}

/* A synchronous GET of `path` (with a deadline when deadline_ms > 0), everything
 * it returns freed. Aborts unless it ends NC_OK, or NC_ERR_FAILED with an error. */
static inline void sync_get(nc_client *c, const char *path, int64_t deadline_ms) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    if (nc_request_new("GET", path, &req) != NC_OK) abort();
    if (deadline_ms > 0) nc_request_set_deadline_ms(req, deadline_ms);
    nc_status st = nc_client_send_sync(c, req, &resp, &err);
    if (st != NC_OK && st != NC_ERR_FAILED) abort();
    if (st == NC_ERR_FAILED && !err) abort();
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
}

/* Whether a log line is one line that drives no terminal: no C0 control but tab,
 * no DEL, no C1 control (UTF-8 C2 80-9F: NEL among them), no U+2028/U+2029
 * (E2 80 A8/A9). The library escapes all of these (LogLines.oneLine). */
static inline int is_one_line(const char *line) {
    const unsigned char *p = (const unsigned char *)line;
    for (; *p; p++) {
        if ((*p < 0x20 && *p != '\t') || *p == 0x7F) return 0;
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) return 0;
        if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) return 0;
    }
    return 1;
}

/* ---- the on-disk cache's entry files (DiskStore.swift's layout) ----------------
 * A response can be made without a server: a client with "cache": {"dir"} and a
 * request with NC_CACHE_ONLY are answered from the entry file of the request's key,
 * through the same classifier and envelope as a network answer. The targets that
 * need a response of their making (messages, unpack) write one here. */

static inline uint64_t cache_fnv1a(const uint8_t *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x00000100000001b3ULL;
    }
    return h;
}

#define CACHE_FNV_BASIS 0xcbf29ce484222325ULL

static inline void cache_put_le(uint8_t *out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* The file name (in `dir`) of the entry of `key` ("GET http://…"). */
static inline void cache_entry_path(char *out, size_t cap, const char *dir, const char *key) {
    uint64_t h = cache_fnv1a((const uint8_t *)key, strlen(key), CACHE_FNV_BASIS);
    snprintf(out, cap, "%s/%016llx.nce", dir, (unsigned long long)h);
}

/* Writes the whole file `path` (magic, version, length, checksum) around `payload`. */
static inline void cache_write_file(const char *path, const uint8_t *payload, size_t n) {
    uint8_t head[24];
    memcpy(head, "NCC1", 4);
    cache_put_le(head + 4, 1, 4);
    cache_put_le(head + 8, n, 8);
    cache_put_le(head + 16, cache_fnv1a(payload, n, CACHE_FNV_BASIS), 8);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(head, 1, 24, f) != 24 || (n && fwrite(payload, 1, n, f) != n) || fclose(f) != 0)
        abort();
}

/* An entry for `key` (URL `url`): `status`, the header lines (CRLF-terminated
 * "Name: value" lines), `body`; stored now, fresh for a day, no validators, no Vary. */
static inline void cache_write_entry(const char *path, const char *key, const char *url, uint32_t status,
                                     const char *header_lines, const uint8_t *body, size_t body_len) {
    size_t kl = strlen(key), ul = strlen(url), hl = strlen(header_lines);
    size_t n = 4 + kl + 2 * (4 + ul) + 4 + 8 + 8 + 1 + 1 + 1 + 4 + 4 + hl + 8 + body_len;
    uint8_t *p = malloc(n), *q = p;
    if (!p) abort();
#define PUT_STR(s, l) (cache_put_le(q, (l), 4), memcpy(q + 4, (s), (l)), q += 4 + (l))
    PUT_STR(key, kl);
    PUT_STR(url, ul);
    PUT_STR(url, ul);
#undef PUT_STR
    cache_put_le(q, status, 4), q += 4;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now_ms = (uint64_t)ts.tv_sec * 1000;
    cache_put_le(q, now_ms, 8), q += 8;
    cache_put_le(q, now_ms + 86400000ULL, 8), q += 8;
    *q++ = 0;                      /* must-revalidate */
    *q++ = 0;                      /* no ETag */
    *q++ = 0;                      /* no Last-Modified */
    cache_put_le(q, 0, 4), q += 4; /* no Vary */
    cache_put_le(q, hl, 4), memcpy(q + 4, header_lines, hl), q += 4 + hl;
    cache_put_le(q, body_len, 8), q += 8;
    if (body_len) memcpy(q, body, body_len);
    cache_write_file(path, p, n);
    free(p);
}

#endif
