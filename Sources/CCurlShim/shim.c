#include "ccurlshim.h"

CURLcode ncshim_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode ncshim_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode ncshim_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode ncshim_easy_setopt_data_fn(CURL *easy, CURLoption option, ncshim_data_fn fn) {
    return curl_easy_setopt(easy, option, fn);
}

CURLcode ncshim_easy_getinfo_long(CURL *easy, CURLINFO info, long *out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLcode ncshim_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLcode ncshim_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLcode ncshim_easy_getinfo_str(CURL *easy, CURLINFO info, const char **out) {
    return curl_easy_getinfo(easy, info, out);
}

CURLMcode ncshim_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLcode ncshim_msg_result(const CURLMsg *msg) {
    return msg->data.result;
}

const char *ncshim_curl_version(int *features) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    if (features) *features = info ? info->features : 0;
    return info && info->version ? info->version : "";
}
