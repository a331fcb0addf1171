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

#endif
