#include "ncbody.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ncbody *ncbody_new(CURL *easy) {
    ncbody *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->fd = -1;
    curl_easy_setopt(easy, CURLOPT_READFUNCTION, ncbody_read);
    curl_easy_setopt(easy, CURLOPT_READDATA, b);
    curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, ncbody_seek);
    curl_easy_setopt(easy, CURLOPT_SEEKDATA, b);
    return b;
}

void ncbody_free(ncbody *body) {
    free(body);
}

size_t ncbody_read(char *buffer, size_t size, size_t nitems, void *userdata) {
    ncbody *b = userdata;
    size_t room = size * nitems; /* libcurl: size is 1 */
    if (b->fd >= 0) {
        curl_off_t rest = b->file_size - b->file_offset;
        if (rest <= 0) return 0;
        size_t want = (curl_off_t)room < rest ? room : (size_t)rest;
        ssize_t got;
        do {
            got = pread(b->fd, buffer, want, (off_t)b->file_offset);
        } while (got < 0 && errno == EINTR);
        if (got <= 0) {
            /* The file shrank (or cannot be read) after its size was announced. */
            b->file_short = got == 0;
            b->file_errno = got < 0 ? errno : 0;
            return CURL_READFUNC_ABORT;
        }
        b->file_offset += got;
        return (size_t)got;
    }
    size_t left = b->len - b->offset;
    size_t n = left < room ? left : room;
    if (n) memcpy(buffer, b->data + b->offset, n);
    b->offset += n;
    return n;
}

int ncbody_seek(void *userdata, curl_off_t offset, int origin) {
    ncbody *b = userdata;
    if (b->fd >= 0 && b->rewindable && origin == SEEK_SET && offset >= 0 && offset <= b->file_size) {
        b->file_offset = offset;
        return CURL_SEEKFUNC_OK;
    }
    return CURL_SEEKFUNC_FAIL;
}
