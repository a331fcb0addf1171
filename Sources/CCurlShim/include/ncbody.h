/*
 * ncbody — the request body of a non-idempotent request (POST, PATCH, …), given to
 * libcurl through a read callback instead of CURLOPT_POSTFIELDS, so that libcurl
 * cannot send it twice on its own.
 *
 * Why: when a request goes out on a kept-alive connection and the server closes
 * that connection without answering a byte, libcurl sends the same request again
 * on a fresh connection, silently (Curl_retry_request in lib/transfer.c: "Connection
 * died, retrying a fresh connect"), whatever the method. For a POST the server may
 * already have acted on the first copy. libcurl 7.88 has no option to forbid it
 * (CURLOPT_FORBID_RETRY_ON_REUSE arrived in 8.16). But a resend of a body that was
 * already sent must first rewind the body, and a body read through
 * CURLOPT_READFUNCTION is rewound through CURLOPT_SEEKFUNCTION; ncbody_seek refuses,
 * so libcurl ends the transfer with CURLE_SEND_FAIL_REWIND (65) before it sends
 * anything on the new connection. Whether to send the request again is then the
 * retry policy's decision, made visibly (an event, counted in attempts).
 * (A body-less non-idempotent request has nothing to rewind: the caller gives it
 * CURLOPT_FRESH_CONNECT instead.)
 *
 * One ncbody belongs to one pooled easy handle (CURLOPT_READDATA/SEEKDATA point at
 * it for the handle's life); it borrows the body bytes of the transfer in progress.
 * Threads: used by the thread that drives its easy handle only.
 */
#ifndef NETCORE_NCBODY_H
#define NETCORE_NCBODY_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct ncbody {
    const char *data; /* borrowed: the transfer's body */
    size_t len;
    size_t offset; /* bytes handed to libcurl so far */
    /* A body streamed from a file (nc_request_set_body_file): fd >= 0 (borrowed: the
     * transfer opens and closes it), read with pread from file_offset; file_size is
     * the length announced to the server. rewindable: an idempotent request, whose
     * body libcurl may read again from the start (seek to 0). A file that ends before
     * file_size, or a read error, aborts the transfer (CURL_READFUNC_ABORT) and sets
     * file_short / file_errno, so a wrong Content-Length is never sent silently. */
    int fd;
    curl_off_t file_size, file_offset;
    int rewindable;
    int file_short;
    int file_errno;
    /* 0: the body file above; n > 0: the n-th part of a multipart body, a file part
       read by ncmimefile.c, is the file that ended early or failed to read. */
    int file_part;
} ncbody;

/* A new body reader for `easy`, with the read and seek callbacks installed on it
   (no file: fd -1); NULL when out of memory. Free with ncbody_free after
   curl_easy_cleanup. */
ncbody *ncbody_new(CURL *easy);
void ncbody_free(ncbody *body);

/* CURLOPT_READFUNCTION: the next bytes of the body. */
size_t ncbody_read(char *buffer, size_t size, size_t nitems, void *userdata);
/* CURLOPT_SEEKFUNCTION: CURL_SEEKFUNC_FAIL (see above), except for the file body of
   an idempotent request (rewindable), which may be read again from any offset. */
int ncbody_seek(void *userdata, curl_off_t offset, int origin);

#endif
