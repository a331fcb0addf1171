/*
 * A libcurl share object (curl_share) holding the cookie store of one client,
 * with the lock functions libcurl calls around every access to it: the client's
 * easy handles run on its transfer thread and on the threads of synchronous
 * sends (SyncLanes.swift) at the same time, so the store needs real locks.
 */
#ifndef NETCORE_NCSHARE_H
#define NETCORE_NCSHARE_H

#include <curl/curl.h>

typedef struct ncshare ncshare;

/* A share of CURL_LOCK_DATA_COOKIE with its locks; NULL when out of memory. */
ncshare *ncshare_new_cookies(void);

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
