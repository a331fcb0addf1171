#include "ncshare.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* One mutex per kind of shared data: libcurl locks CURL_LOCK_DATA_SHARE (the share
 * itself), CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_DNS and CURL_LOCK_DATA_COOKIE,
 * and may hold the first while taking another, so they must be distinct. Plain
 * (non-recursive) mutexes: libcurl never takes the same kind twice, and never holds
 * two kinds but SHARE and one other (7.88.1: setopt.c and url.c take SHARE alone). */
struct ncshare {
    CURLSH *sh;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
    _Atomic unsigned long long changes;
};

static void ncshare_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)easy;
    (void)access; /* shared and single access both take the mutex: simple and rare */
    struct ncshare *s = userptr;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&s->locks[data]);
}

static void ncshare_unlock(CURL *easy, curl_lock_data data, void *userptr) {
    (void)easy;
    struct ncshare *s = userptr;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&s->locks[data]);
}

ncshare *ncshare_new(int cookies) {
    struct ncshare *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sh = curl_share_init();
    if (!s->sh) {
        free(s);
        return NULL;
    }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&s->locks[i], NULL);
    if (curl_share_setopt(s->sh, CURLSHOPT_LOCKFUNC, ncshare_lock) != CURLSHE_OK ||
        curl_share_setopt(s->sh, CURLSHOPT_UNLOCKFUNC, ncshare_unlock) != CURLSHE_OK ||
        curl_share_setopt(s->sh, CURLSHOPT_USERDATA, s) != CURLSHE_OK ||
        curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK ||
        curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
        (cookies && curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE) != CURLSHE_OK)) {
        ncshare_free(s);
        return NULL;
    }
    return s;
}

void ncshare_note_change(ncshare *share) {
    atomic_fetch_add_explicit(&share->changes, 1, memory_order_release);
}

unsigned long long ncshare_changes(ncshare *share) {
    return atomic_load_explicit(&share->changes, memory_order_acquire);
}

CURLSH *ncshare_handle(ncshare *share) {
    return share->sh;
}

void ncshare_free(ncshare *share) {
    if (!share) return;
    curl_share_cleanup(share->sh);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}
