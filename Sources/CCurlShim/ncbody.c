#include "ncbody.h"

#include <stdlib.h>
#include <string.h>

ncbody *ncbody_new(CURL *easy) {
    ncbody *b = calloc(1, sizeof *b);
    if (!b) return NULL;
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
    size_t left = b->len - b->offset;
    size_t n = left < room ? left : room;
    if (n) memcpy(buffer, b->data + b->offset, n);
    b->offset += n;
    return n;
}

int ncbody_seek(void *userdata, curl_off_t offset, int origin) {
    (void)userdata;
    (void)offset;
    (void)origin;
    return CURL_SEEKFUNC_FAIL;
}
