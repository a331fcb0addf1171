#define _GNU_SOURCE
#include "ncdownload.h"

#include "ncascii.h"
#include "ncsink.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ncdownload_header(const char *head, size_t len, const char *name, size_t *len_out) {
    size_t nlen = strlen(name);
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && head[end] != '\n') end++;
        /* A line "Name: value\r\n" from i to end. */
        if (end - i > nlen && head[i + nlen] == ':') {
            size_t k = 0;
            while (k < nlen && ncascii_lower((unsigned char)head[i + k]) == (unsigned char)name[k]) k++;
            if (k == nlen) {
                size_t a = i + nlen + 1, b = end;
                while (a < b && (head[a] == ' ' || head[a] == '\t')) a++;
                while (b > a && (head[b - 1] == '\r' || head[b - 1] == ' ' || head[b - 1] == '\t')) b--;
                *len_out = b - a;
                return head + a;
            }
        }
        i = end + 1;
    }
    return NULL;
}

/* Writes the sidecar for the response whose headers are `head`, or removes it
 * when that response cannot be resumed. Failing to write it only makes the .part
 * not resumable (the file is removed then). */
static void write_meta(const ncdownload *d, const char *head, size_t len) {
    size_t vlen = 0, rlen = 0, elen = 0;
    const char *v = ncdownload_header(head, len, "etag", &vlen);
    if (!v || vlen == 0) v = ncdownload_header(head, len, "last-modified", &vlen);
    const char *r = ncdownload_header(head, len, "accept-ranges", &rlen);
    const char *e = ncdownload_header(head, len, "content-encoding", &elen);
    int ranges = r && rlen >= 5 && memmem(r, rlen, "bytes", 5) != NULL;
    int encoded = e && !(elen == 8 && ncascii_equal_n(e, "identity", 8));
    /* A validator with a newline could not be read back as one line. */
    int ok = v && vlen > 0 && vlen < 1024 && ranges && !encoded && memchr(v, '\n', vlen) == NULL;
    unlink(d->meta_path);
    if (!ok) return;
    int fd = open(d->meta_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return;
    int good = write(fd, v, vlen) == (ssize_t)vlen && write(fd, "\n", 1) == 1;
    if (close(fd) != 0 || !good) unlink(d->meta_path);
}

/* The first byte position of "bytes A-B/N"; -1 when it does not parse. */
static long long range_start(const char *v, size_t len) {
    if (!v || len < 7 || !ncascii_equal_n(v, "bytes ", 6)) return -1;
    long long n = 0;
    size_t i = 6;
    if (!isdigit((unsigned char)v[i])) return -1;
    while (i < len && isdigit((unsigned char)v[i])) {
        if (n > (0x7fffffffffffffffLL - 9) / 10) return -1;
        n = n * 10 + (v[i] - '0');
        i++;
    }
    return i < len && v[i] == '-' ? n : -1;
}

static int start_over(ncdownload *d) {
    if (ftruncate(d->fd, 0) != 0 || lseek(d->fd, 0, SEEK_SET) != 0) return 0;
    d->offset = 0;
    return 1;
}

int ncdownload_begin(ncdownload *d, const struct ncsink *s, long status, int *err) {
    const char *head = s->head ? s->head : "";
    size_t len = s->head ? s->head_len : 0;
    if (status == 206 && d->offset > 0) {
        size_t clen = 0;
        const char *cr = ncdownload_header(head, len, "content-range", &clen);
        if (range_start(cr, clen) == d->offset) {
            d->appended = 1;
            return 1;
        }
        /* Not the continuation asked for: the .part is no longer trusted. */
        if (d->meta_path) unlink(d->meta_path);
        start_over(d);
        *err = ERANGE;
        return 0;
    }
    if (!start_over(d)) {
        *err = errno;
        return 0;
    }
    d->restarted = 1;
    if (d->meta_path) write_meta(d, head, len);
    return 1;
}
