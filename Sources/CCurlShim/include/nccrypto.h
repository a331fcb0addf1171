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

/* SHA-256 of `data`; writes 32 bytes to `out`. 1 on success. */
int ncshim_sha256(const void *data, size_t len, unsigned char out[32]);

/* Standard base64 (with padding) of `data` into `out`, NUL-terminated. `out_cap`
   must be at least 4 * ((len + 2) / 3) + 1. Returns the characters written, or 0
   when `out_cap` is too small or `len` too large. */
size_t ncshim_base64(const void *data, size_t len, char *out, size_t out_cap);

#endif
