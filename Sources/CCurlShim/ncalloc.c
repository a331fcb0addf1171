#include "ncalloc.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local int failed;

static void *nc_malloc(size_t size) {
    void *p = malloc(size);
    if (!p && size) failed = 1;
    return p;
}

static void *nc_realloc(void *p, size_t size) {
    void *q = realloc(p, size);
    if (!q && size) failed = 1;
    return q;
}

static char *nc_strdup(const char *s) {
    char *d = strdup(s);
    if (!d) failed = 1;
    return d;
}

/* libcurl callocs about ten blocks a transfer, all but one small (at 7.88:
 * header records, the URL handle's copy, request state; and one larger). glibc's
 * calloc (2.36, Debian 12) does not take from the per-thread cache (tcache) that its
 * malloc serves small blocks from: every call takes the arena's lock, which a
 * multi-threaded process pays for, and the blocks freed into the cache are not taken
 * back by calloc. Up to the cache's largest size (1,032 bytes) malloc and memset do
 * the same from the cache, measurably cheaper for the C API at 16 in flight
 * (bench/RESULTS.md, "Figures that justified code choices"). Larger blocks keep
 * calloc, which can skip clearing fresh pages. A glibc whose calloc uses the cache
 * itself gains nothing here and loses nothing. */
enum { NC_CALLOC_VIA_MALLOC_MAX = 1024 };

static void *nc_calloc(size_t n, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        failed = 1;
        return NULL;
    }
    void *p;
    if (total <= NC_CALLOC_VIA_MALLOC_MAX) {
        p = malloc(total);
        /* Hides where p came from: compilers fold malloc + memset back into calloc. */
        __asm__("" : "+r"(p));
        if (p) memset(p, 0, total);
    } else {
        p = calloc(n, size);
    }
    if (!p && total) failed = 1;
    return p;
}

CURLcode ncalloc_global_init(long flags) {
    /* free itself: nothing to note, and libcurl frees (often NULL) about a hundred
       times a request, so a wrapper would cost a call each. */
    return curl_global_init_mem(flags, nc_malloc, free, nc_realloc, nc_strdup, nc_calloc);
}

int ncalloc_take_failure(void) {
    int f = failed;
    failed = 0;
    return f;
}
