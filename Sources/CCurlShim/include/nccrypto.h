/*
 * Thin wrappers over OpenSSL's libcrypto for request signing and basic auth
 * (Signing.swift, NetClient+Adapters.swift): no crypto is implemented here.
 */
#ifndef NETCORE_NCCRYPTO_H
#define NETCORE_NCCRYPTO_H

#include <stddef.h>

/* HMAC-SHA256 of `data` with `key`; writes 32 bytes to `out`. 1 on success. */
int ncshim_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[32]);

/* A secret prepared once for many HMAC-SHA256 signatures (the key schedule and the
   algorithm lookup are done here, not per signature). NULL on failure. The key bytes
   are copied by libcrypto; the caller may clear its copy. Free with
   ncshim_hmac_key_free (NULL is a no-op). A key may sign on several threads at once:
   each signature works on its own copy of the prepared context. */
typedef struct ncshim_hmac_key ncshim_hmac_key;
ncshim_hmac_key *ncshim_hmac_key_new(const void *key, size_t key_len);
void ncshim_hmac_key_free(ncshim_hmac_key *key);
/* HMAC-SHA256 of `data` with a prepared key; writes 32 bytes to `out`. 1 on success. */
int ncshim_hmac_key_sign(const ncshim_hmac_key *key, const void *data, size_t len,
                         unsigned char out[32]);

/* SHA-256 of `data`; writes 32 bytes to `out`. 1 on success. */
int ncshim_sha256(const void *data, size_t len, unsigned char out[32]);

/* SHA-256 of the file at `path`, read through once (a signed request's body file);
   writes 32 bytes to `out`. 1 on success; 0 on failure with the errno of the open
   or read that failed in `*err` (0 when libcrypto failed). */
int ncshim_sha256_file(const char *path, unsigned char out[32], int *err);

/* Standard base64 (with padding) of `data` into `out`, NUL-terminated. `out_cap`
   must be at least 4 * ((len + 2) / 3) + 1. Returns the characters written, or 0
   when `out_cap` is too small or `len` too large. */
size_t ncshim_base64(const void *data, size_t len, char *out, size_t out_cap);

#endif
