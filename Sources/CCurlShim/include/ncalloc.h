/*
 * ncalloc — libcurl's memory functions (curl_global_init_mem), which note on the
 * calling thread that an allocation failed.
 *
 * Why: libcurl 7.88 answers some of its own failed allocations with codes that
 * mean something else — an over-long header line and a failed allocation both end
 * as CURLE_OUT_OF_MEMORY inside the headers (mapped to NC_CLIENT_HEADERS_TOO_LARGE),
 * a URL that could not be copied as CURLE_URL_MALFORMAT "No URL set". With the
 * note, a hop that failed on a thread where an allocation had failed is reported
 * as what it was: out of memory (NC_CLIENT_INTERNAL). Each function calls the C
 * library's and adds a branch or two; nothing is counted on success. calloc of up
 * to 1,024 bytes is malloc and memset instead (glibc 2.36's calloc bypasses its
 * per-thread cache and takes the arena's lock; see ncalloc.c).
 *
 * Threads: the note is per thread (thread-local); a transfer's hops run on the
 * thread that drives its handle, which reads the note when a hop fails.
 */
#ifndef NETCORE_NCALLOC_H
#define NETCORE_NCALLOC_H

#include <curl/curl.h>

/* curl_global_init_mem(flags, …) with the noting functions. */
CURLcode ncalloc_global_init(long flags);
/* 1 if an allocation made through libcurl failed on this thread since the last
 * call, else 0; clears the note. */
int ncalloc_take_failure(void);

#endif
