#include "nccrypto.h"

#include <limits.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

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
    if (EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL) != 1) return 0;
    return out_len == 32;
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
