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

/* Frees the share; every easy handle attached to it must be cleaned up first. NULL is a no-op. */
void ncshare_free(ncshare *share);

#endif
