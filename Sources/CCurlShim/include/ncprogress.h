/*
 * ncprogress — a request's progress callback (nc_request_set_progress) behind
 * libcurl's CURLOPT_XFERINFOFUNCTION.
 *
 * libcurl calls the xferinfo function many times a second; this passes a call on
 * to the caller at most once per NCPROGRESS_INTERVAL_NS (50 ms: at most ~20 calls a
 * second) and only when a value changed, plus the call that reports the body
 * complete (down_now == down_total). The four values never go backwards: a retry
 * or redirect hop starts libcurl's counts again from zero, and the values reported
 * hold at the highest seen until the new hop passes them. The bytes a resumed
 * download already has (`dl->offset`) are added to the download values once its
 * 206 body starts arriving, so they describe the whole file (before that, the
 * total may be the remainder the server announced). ncprogress_flush makes the last call when the last values seen
 * were not reported (before the completion, never after it).
 *
 * Threads: the thread that drives the transfer only.
 */
#ifndef NETCORE_NCPROGRESS_H
#define NETCORE_NCPROGRESS_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "ncdownload.h"

#define NCPROGRESS_INTERVAL_NS 50000000LL

typedef void (*ncprogress_fn)(int64_t down_now, int64_t down_total, int64_t up_now, int64_t up_total,
                              void *userdata);

typedef struct ncprogress {
    ncprogress_fn fn;
    void *userdata;
    const ncdownload *dl; /* a resumed download: its offset is added to the download
                             values once a 206 continues the .part */
    int64_t seen[4];      /* the latest values (down now, total, up now, total), monotonic */
    int64_t reported[4];  /* the values of the last call */
    int64_t last_ns;      /* CLOCK_MONOTONIC of the last call; 0: none yet */
    int calls;            /* calls made */
} ncprogress;

/* CURLOPT_XFERINFOFUNCTION with the ncprogress as CURLOPT_XFERINFODATA; returns 0
 * (progress never aborts a transfer). */
int ncprogress_xferinfo(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                        curl_off_t ulnow);

/* Reports the latest values if they were not reported yet. */
void ncprogress_flush(ncprogress *p);

/* Sets CURLOPT_XFERINFOFUNCTION/XFERINFODATA to `p` and CURLOPT_NOPROGRESS 0 on
 * `easy` (the caller sets NOPROGRESS 1 again for the handle's next transfer). */
CURLcode ncprogress_install(CURL *easy, ncprogress *p);

/*
 * ncstream — a request's body callback (nc_request_set_body_callback) as the sink's
 * out_fn: passes each chunk on and remembers that one was delivered (such a
 * request is not retried: the caller has already seen bytes).
 */
typedef int (*ncstream_fn)(const void *chunk, size_t len, void *userdata);

typedef struct ncstream {
    ncstream_fn fn;
    void *userdata;
    int delivered; /* a chunk reached fn */
    void *task;    /* the transfer (unretained), current while fn runs (ncstream_current) */
} ncstream;

/* The sink's out_fn with the ncstream as out_ud. */
int ncstream_chunk(const void *chunk, size_t len, void *userdata);

/* The transfer whose body or head callback runs on this thread (nc_task_current),
 * else NULL. A thread-local: set around the call by ncstream_chunk and, for the
 * head callback, by its caller with ncstream_enter (which returns the value to
 * give ncstream_leave afterwards). */
void *ncstream_current(void);
void *ncstream_enter(void *task);
void ncstream_leave(void *previous);

#endif
