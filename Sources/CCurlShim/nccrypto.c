#include "nccrypto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Algorithms fetched once per process: an implicit fetch (EVP_sha256(), HMAC())
   looks the implementation up again on every call, which costs more than hashing a
   short message. */
static EVP_MD *sha256_md;
static EVP_MAC *hmac_mac;
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;
static void fetch_algorithms(void) {
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    hmac_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
}
static int fetched(void) {
    if (pthread_once(&fetch_once, fetch_algorithms) != 0) return 0;
    return sha256_md != NULL && hmac_mac != NULL;
}

struct ncshim_hmac_key {
    EVP_MAC_CTX *ctx; /* initialised with the key; only ever duplicated */
    /* One context ready for the next signature: taken with an atomic exchange, used,
       re-initialised with the same key (EVP_MAC_init with a NULL key keeps it) and
       put back. Two threads signing at once: the second duplicates `ctx`. */
    _Atomic(EVP_MAC_CTX *) spare;
};

ncshim_hmac_key *ncshim_hmac_key_new(const void *key, size_t key_len) {
    static const unsigned char empty = 0;
    if (!fetched()) return NULL;
    if (key == NULL) key = &empty;
    ncshim_hmac_key *k = calloc(1, sizeof *k);
    if (k == NULL) return NULL;
    k->ctx = EVP_MAC_CTX_new(hmac_mac);
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    if (k->ctx == NULL || EVP_MAC_init(k->ctx, key, key_len, params) != 1) {
        ncshim_hmac_key_free(k);
        return NULL;
    }
    return k;
}

void ncshim_hmac_key_free(ncshim_hmac_key *key) {
    if (key == NULL) return;
    EVP_MAC_CTX_free(atomic_exchange(&key->spare, NULL));
    EVP_MAC_CTX_free(key->ctx);
    free(key);
}

int ncshim_hmac_key_sign(const ncshim_hmac_key *key, const void *data, size_t len,
                         unsigned char out[32]) {
    static const unsigned char empty = 0;
    if (key == NULL) return 0;
    if (data == NULL) data = &empty;
    /* The spare is not const state: the key hands it out and takes it back. */
    ncshim_hmac_key *k = (ncshim_hmac_key *)key;
    EVP_MAC_CTX *ctx = atomic_exchange(&k->spare, NULL);
    if (ctx == NULL) ctx = EVP_MAC_CTX_dup(k->ctx);
    if (ctx == NULL) return 0;
    size_t out_len = 0;
    int ok = EVP_MAC_update(ctx, data, len) == 1 && EVP_MAC_final(ctx, out, &out_len, 32) == 1 &&
             out_len == 32;
    /* Ready for the next signature with the same key; a context that cannot be
       re-initialised is dropped. */
    if (EVP_MAC_init(ctx, NULL, 0, NULL) == 1) ctx = atomic_exchange(&k->spare, ctx);
    EVP_MAC_CTX_free(ctx);
    return ok;
}

int ncshim_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[32]) {
    unsigned int out_len = 0;
    if (key_len > INT_MAX) return 0;
    static const unsigned char empty = 0;
    if (data == NULL) data = &empty;
    if (key == NULL) key = &empty;
    if (HMAC(EVP_sha256(), key, (int)key_len, data, len, out, &out_len) == NULL) return 0;
    return out_len == 32;
}

int ncshim_sha256(const void *data, size_t len, unsigned char out[32]) {
    unsigned int out_len = 0;
    static const unsigned char empty = 0;
    if (data == NULL) data = &empty;
    if (!fetched()) return 0;
    if (EVP_Digest(data, len, out, &out_len, sha256_md, NULL) != 1) return 0;
    return out_len == 32;
}

int ncshim_sha256_file(const char *path, unsigned char out[32], int *err) {
    if (err) *err = 0;
    if (path == NULL || !fetched()) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (err) *err = errno;
        return 0;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    /* On the heap: a synchronous send runs on the caller's thread, whose stack may
       be small. */
    enum { CHUNK = 65536 };
    unsigned char *buf = malloc(CHUNK);
    int ok = ctx != NULL && buf != NULL && EVP_DigestInit_ex(ctx, sha256_md, NULL) == 1;
    while (ok) {
        ssize_t n = read(fd, buf, CHUNK);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            if (err) *err = errno;
            ok = 0;
            break;
        }
        ok = EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
    }
    unsigned int out_len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &out_len) == 1 && out_len == 32;
    EVP_MD_CTX_free(ctx);
    free(buf);
    close(fd);
    return ok;
}

size_t ncshim_base64(const void *data, size_t len, char *out, size_t out_cap) {
    if (len > (size_t)INT_MAX / 4 * 3 - 3) return 0;
    size_t need = 4 * ((len + 2) / 3) + 1;
    if (out == NULL || out_cap < need) return 0;
    static const unsigned char empty = 0;
    if (data == NULL) data = &empty;
    int n = EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)data, (int)len);
    return n < 0 ? 0 : (size_t)n;
}
