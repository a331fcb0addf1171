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

static void *nc_calloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p && n && size) failed = 1;
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
