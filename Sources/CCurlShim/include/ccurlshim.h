/*
 * Typed wrappers over libcurl's variadic functions, which Swift cannot call.
 * Each wrapper forwards its arguments unchanged and returns libcurl's result.
 */
#ifndef NETCORE_CCURLSHIM_H
#define NETCORE_CCURLSHIM_H

#include <curl/curl.h>
#include <sys/eventfd.h>

#include "ncalloc.h"
#include "ncascii.h"
#include "ncbody.h"
#include "nccrypto.h"
#include "ncmimefile.h"
#include "ncroute.h"
#include "ncshare.h"
#include "ncsink.h"

typedef size_t (*ncshim_data_fn)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*ncshim_xferinfo_fn)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                  curl_off_t ultotal, curl_off_t ulnow);

CURLcode ncshim_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode ncshim_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
CURLcode ncshim_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value);
CURLcode ncshim_easy_setopt_data_fn(CURL *easy, CURLoption option, ncshim_data_fn fn);

CURLcode ncshim_easy_getinfo_long(CURL *easy, CURLINFO info, long *out);
CURLcode ncshim_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **out);
CURLcode ncshim_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *out);
CURLcode ncshim_easy_getinfo_str(CURL *easy, CURLINFO info, const char **out);

CURLMcode ncshim_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/* CURLMsg.data is a union; Swift reads it through these. */
CURLcode ncshim_msg_result(const CURLMsg *msg);

/* curl_version_info(CURLVERSION_NOW) of the libcurl loaded: its version text
   ("7.88.1", static) and, in `features`, its CURL_VERSION_* bits. */
const char *ncshim_curl_version(int *features);

#endif
