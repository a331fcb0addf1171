/*
 * ncmimefile — the content of a multipart file part (nc_request_add_file_part),
 * read by us through curl_mime_data_cb instead of libcurl's curl_mime_filedata.
 *
 * Why: libcurl 7.88's file reader announces the file's size when the part is made
 * and, if the file then becomes shorter, simply ends the part early: the body is
 * shorter than the Content-Length libcurl sent, silently, and the server waits for
 * bytes that never come (the request ends on its timeout). This reader reads with
 * pread from a descriptor opened when the part is made and, when the file ends
 * before the size announced (or a read fails), aborts the transfer
 * (CURL_READFUNC_ABORT) and records which part in the handle's ncbody
 * (file_short / file_errno / file_part), as ncbody does for a body file — a wrong
 * length is never sent silently.
 *
 * libcurl may rewind a part (a redirect that keeps the body, an authentication
 * round); the seek callback allows it: a non-idempotent multipart request is
 * protected from libcurl's own resend by going on a connection of its own
 * (EasyHandle+Upload.swift), not by refusing the rewind.
 * Threads: used by the thread that drives its easy handle only.
 */
#ifndef NETCORE_NCMIMEFILE_H
#define NETCORE_NCMIMEFILE_H

#include <curl/curl.h>

#include "ncbody.h"

/* Makes `part`'s content the file at `path`, opened now (O_CLOEXEC) and closed when
   libcurl frees the part; its size is the file's size now. `report` (borrowed: the
   easy handle's body reader, which outlives the part's transfers) receives a short
   file or a read error, with `index` (1-based) as file_part. Returns CURLE_OK, or
   CURLE_READ_ERROR when the file cannot be opened (errno set), CURLE_OUT_OF_MEMORY:
   the part is then unchanged. */
CURLcode ncmimefile_attach(curl_mimepart *part, const char *path, ncbody *report, int index);

#endif
