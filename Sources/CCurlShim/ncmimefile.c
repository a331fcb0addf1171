#define _GNU_SOURCE
#include "ncmimefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ncmimefile {
    int fd;
    curl_off_t size, offset;
    ncbody *report;
    int index;
} ncmimefile;

static size_t ncmimefile_read(char *buffer, size_t size, size_t nitems, void *arg) {
    ncmimefile *f = arg;
    size_t room = size * nitems;
    curl_off_t rest = f->size - f->offset;
    ssize_t got;
    if (rest <= 0) return 0;
    if ((curl_off_t)room > rest) room = (size_t)rest;
    do { got = pread(f->fd, buffer, room, (off_t)f->offset); } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        /* The file shrank (or cannot be read) after its size was announced. */
        f->report->file_short = got == 0;
        f->report->file_errno = got < 0 ? errno : 0;
        f->report->file_part = f->index;
        return CURL_READFUNC_ABORT;
    }
    f->offset += got;
    return (size_t)got;
}

static int ncmimefile_seek(void *arg, curl_off_t offset, int origin) {
    ncmimefile *f = arg;
    if (origin == SEEK_CUR) offset += f->offset;
    else if (origin == SEEK_END) offset += f->size;
    if (offset < 0 || offset > f->size) return CURL_SEEKFUNC_FAIL;
    f->offset = offset;
    return CURL_SEEKFUNC_OK;
}

static void ncmimefile_free(void *arg) {
    ncmimefile *f = arg;
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    free(f);
}

CURLcode ncmimefile_attach(curl_mimepart *part, const char *path, ncbody *report, int index) {
    struct stat st;
    ncmimefile *f;
    CURLcode rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return CURLE_READ_ERROR;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return CURLE_READ_ERROR;
    }
    f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        return CURLE_OUT_OF_MEMORY;
    }
    f->fd = fd;
    f->size = (curl_off_t)st.st_size;
    f->report = report;
    f->index = index;
    rc = curl_mime_data_cb(part, f->size, ncmimefile_read, ncmimefile_seek, ncmimefile_free, f);
    if (rc != CURLE_OK) ncmimefile_free(f);
    return rc;
}
