#include "ncshare.h"

#include <openssl/ssl.h>
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

/* TLS sessions that outlive their connection (libcurl 7.88.1 with OpenSSL).
 *
 * libcurl stores the SSL_SESSION OpenSSL hands its new-session callback, which in
 * TLS 1.3 is the connection's own current session object. When a connection is
 * freed without SSL_shutdown, OpenSSL marks that object not resumable
 * (SSL_free -> ssl_clear_bad_session), and libcurl 7.88.1 frees an HTTP/2
 * connection's TLS filter after detaching the filter below it, so it never calls
 * SSL_shutdown for one (vtls/openssl.c ossl_close: "if(cf->next &&
 * cf->next->connected)"). The session in the cache was then spoiled the moment
 * its HTTP/2 connection closed: a later connection offered it and the server made
 * a full handshake (bench/RESULTS.md, "Round trips").
 *
 * So libcurl's callback is handed a copy (SSL_SESSION_dup), which no connection
 * holds: closing the connection changes nothing in the cache. libcurl installs its
 * callback on each new SSL_CTX before calling CURLOPT_SSL_CTX_FUNCTION, which
 * reads it (the same function every time) and puts this one in front. */
typedef int (*ncshare_new_session_fn)(SSL *, SSL_SESSION *);
static _Atomic(ncshare_new_session_fn) curl_new_session;

static int ncshare_new_session(SSL *ssl, SSL_SESSION *session) {
    ncshare_new_session_fn curl_cb = atomic_load_explicit(&curl_new_session, memory_order_acquire);
    SSL_SESSION *copy = curl_cb ? SSL_SESSION_dup(session) : NULL;
    if (copy && !curl_cb(ssl, copy)) SSL_SESSION_free(copy); /* 1: libcurl keeps it */
    return 0; /* the connection's own object is not kept */
}

CURLcode ncshare_ssl_ctx(CURL *easy, void *ssl_ctx, void *userptr) {
    (void)easy;
    (void)userptr;
    SSL_CTX *ctx = ssl_ctx;
    ncshare_new_session_fn curl_cb = SSL_CTX_sess_get_new_cb(ctx);
    if (curl_cb && curl_cb != ncshare_new_session) {
        atomic_store_explicit(&curl_new_session, curl_cb, memory_order_release);
        SSL_CTX_sess_set_new_cb(ctx, ncshare_new_session);
    }
    return CURLE_OK;
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

void ncshare_attach(ncshare *share, CURL *easy) {
    curl_easy_setopt(easy, CURLOPT_SHARE, share->sh);
    curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, ncshare_ssl_ctx);
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
