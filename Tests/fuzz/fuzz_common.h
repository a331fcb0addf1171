/*
 * fuzz_common.h — what several libFuzzer targets of Tests/fuzz share: reading an
 * input in NUL-separated parts, and the exactly-once check of the call-sequence
 * targets. Each target is one .c file built on its own (Tests/fuzz/run.sh), so
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

#endif
