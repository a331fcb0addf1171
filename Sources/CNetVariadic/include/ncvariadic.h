/* ncvariadic.h — what the C half of netcore.h's variadic functions needs from the
 * Swift half (Sources/CNetAPI). Not part of the public API: the names do not start
 * with nc_, so the version script keeps them out of libnetcore.so's exports. */
#ifndef NCVARIADIC_H
#define NCVARIADIC_H

#ifdef __cplusplus
extern "C" {
#endif

/* A new PARSE NC_PARSE_DECODING_FAILED error with `message` and the response's
 * http_status, body and data (Sources/CNetAPI/ResponseAPI.swift). NULL only when
 * `response` is NULL. The caller owns the result (nc_error_free). */
void *ncvariadic_unpack_failed(const void *response, const char *message);

#ifdef __cplusplus
}
#endif
#endif
