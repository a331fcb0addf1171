/*
 * failmalloc.c — an LD_PRELOAD allocator that fails one chosen allocation
 * (libcurl's "torture" idea; docs/RELIABILITY.md, `make alloc-fail`).
 *
 * malloc, calloc, realloc, aligned_alloc, posix_memalign and memalign go to
 * glibc's own (__libc_*, no dlsym: dlsym allocates). Only calls made on the
 * thread that armed it count, so one synchronous request (nc_client_send_sync
 * runs its transfer on the caller's thread) sees the same sequence every run.
 *
 *   failmalloc_arm(n)    count this thread's allocations from now; the n-th
 *                        (1-based) returns NULL (errno ENOMEM). n = 0: never fail,
 *                        only count (and record up to FM_SITES call sites)
 *   failmalloc_disarm()  stop counting; returns how many calls were counted
 *   failmalloc_site(i)   the return address of the i-th counted call (i < FM_SITES)
 *   failmalloc_failed()  the return address of the call that was failed, or NULL
 *
 * The driver finds these with dlsym(RTLD_DEFAULT, …): the library is preloaded,
 * not linked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

#define FM_SITES 65536

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static __thread int fm_armed;
static __thread long fm_count, fm_target;
static __thread void *fm_failed;
static void *fm_sites[FM_SITES]; /* only the arming thread writes it */

void failmalloc_arm(long n) {
    fm_count = 0;
    fm_target = n;
    fm_failed = NULL;
    fm_armed = 1;
}

long failmalloc_disarm(void) {
    fm_armed = 0;
    return fm_count;
}

void *failmalloc_site(long i) {
    return i >= 0 && i < FM_SITES ? fm_sites[i] : NULL;
}

void *failmalloc_failed(void) {
    return fm_failed;
}

/* 1 when this call must fail. */
static int fm_fail(void *caller) {
    if (!fm_armed) return 0;
    long i = fm_count++;
    if (i < FM_SITES) fm_sites[i] = caller;
    if (fm_target > 0 && fm_count == fm_target) {
        fm_failed = caller;
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n) {
    return fm_fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n) {
    return fm_fail(__builtin_return_address(0)) ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    /* realloc(p, 0) frees: not an allocation that can fail. */
    if (n != 0 && fm_fail(__builtin_return_address(0))) return NULL;
    return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n) {
    return fm_fail(__builtin_return_address(0)) ? NULL : __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    return fm_fail(__builtin_return_address(0)) ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (fm_fail(__builtin_return_address(0))) return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
