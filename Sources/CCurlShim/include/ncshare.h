/*
 * A libcurl share object (curl_share) holding TLS sessions and DNS answers, and for
 * a client with a cookie jar its cookie store, with the lock functions libcurl calls
 * around every access to them: easy handles attached to one share run on several
 * threads at once (a client's transfer thread and the threads of synchronous sends,
 * SyncLanes.swift; the transfer threads of every client of the process for the
 * process-wide share, CurlShare.swift), so the share needs real locks.
 */
#ifndef NETCORE_NCSHARE_H
#define NETCORE_NCSHARE_H

#include <curl/curl.h>

typedef struct ncshare ncshare;

/* A share of CURL_LOCK_DATA_SSL_SESSION and CURL_LOCK_DATA_DNS, and of
 * CURL_LOCK_DATA_COOKIE when `cookies` is non-zero, with its locks; NULL when out of
 * memory. */
ncshare *ncshare_new(int cookies);

/* CURLOPT_SSL_CTX_FUNCTION of every handle attached to a share: the TLS sessions
 * libcurl caches are copies no connection holds, so they stay resumable after
 * their connection closes (libcurl 7.88.1 spoils an HTTP/2 connection's session
 * when it closes it; ncshare.c). Leaves everything else as libcurl set it. */
CURLcode ncshare_ssl_ctx(CURL *easy, void *ssl_ctx, void *userptr);

/* Attaches `easy` to the share (CURLOPT_SHARE) with ncshare_ssl_ctx as its
 * CURLOPT_SSL_CTX_FUNCTION. */
void ncshare_attach(ncshare *share, CURL *easy);

/* The CURLSH handle, for CURLOPT_SHARE. */
CURLSH *ncshare_handle(ncshare *share);

/* Changes of the cookie store that the library can see: each Set-Cookie line a
 * handle's header callback is handed (ncsink.c: libcurl stored the cookie just
 * before), each clear. Any thread; the count only grows. The response cache reads
 * it before and after a request to know whether the cookies it partitioned the
 * answer by may have changed meanwhile (NetClient+Cache.swift). */
void ncshare_note_change(ncshare *share);
unsigned long long ncshare_changes(ncshare *share);

/* Frees the share; every easy handle attached to it must be cleaned up first. NULL is a no-op. */
void ncshare_free(ncshare *share);

#endif
