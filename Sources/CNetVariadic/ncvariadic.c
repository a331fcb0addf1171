/*
 * ncvariadic.c — the functions of netcore.h that only C can implement: the
 * variadic nc_response_data_unpack() and its va_list form. Swift cannot define a
 * variadic C function nor copy or walk a va_list, so the format and the arguments
 * are handled here, jansson's json_vunpack_ex() does the unpacking, and the error
 * object comes from the Swift half (ncvariadic_unpack_failed, ResponseAPI.swift).
 *
 * What this file adds to jansson's unpack (netcore.h, nc_response_data_unpack):
 *  - the format is checked before any argument is read, and every key and target
 *    before anything is written: bad input is NC_ERR_INVALID_ARGUMENT, nothing
 *    written (jansson would write through a NULL target);
 *  - on a mismatch no target keeps a value: jansson writes as it goes, so each
 *    target's bytes are saved first and put back (a reference `O` took released);
 *  - the error names the path of the value that failed ("data.user.id"): the
 *    format is walked again, with the keys, up to the position jansson reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/netcore.h"
#include "ncvariadic.h"

/* Formats nested deeper than this are refused (the walks below recurse). */
#define NCV_MAX_DEPTH 256
/* Targets saved on the stack; a format with more allocates. */
#define NCV_LOCAL_TARGETS 16

static const char *ncv_skip(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',' || *p == ':') p++;
    return p;
}

/* ---- 1. the format's syntax, no argument read ------------------------------ */

/* One value at *pp (jansson's unpack grammar); counts the target pointers it takes
 * into *targets. 0, or -1 for a format jansson would refuse. */
static int ncv_syntax(const char **pp, size_t *targets, int depth) {
    const char *p = ncv_skip(*pp);
    if (depth > NCV_MAX_DEPTH) return -1;
    switch (*p) {
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        p++;
        for (;;) {
            p = ncv_skip(p);
            if (*p == close) break;
            if (*p == '!' || *p == '*') {
                p = ncv_skip(p + 1);
                if (*p != close) return -1;
                break;
            }
            if (close == '}') {
                if (*p != 's') return -1;
                p = ncv_skip(p + 1);
                if (*p == '?') p++;
            }
            if (ncv_syntax(&p, targets, depth + 1) != 0) return -1;
        }
        p++;
        break;
    }
    case 's': {
        const char *q = ncv_skip(p + 1);
        if (*q == '%') {
            *targets += 2;
            p = q + 1;
        } else {
            *targets += 1;
            p++;
        }
        break;
    }
    case 'i':
    case 'I':
    case 'b':
    case 'f':
    case 'F':
    case 'o':
    case 'O':
        *targets += 1;
        p++;
        break;
    case 'n':
        p++;
        break;
    default:
        return -1;
    }
    *pp = p;
    return 0;
}

/* ---- 2. the targets, saved --------------------------------------------------- */

typedef struct {
    void *ptr;
    char kind; /* the format character; '%' for an s% length */
    unsigned char saved[sizeof(double) > sizeof(void *) ? sizeof(double) : sizeof(void *)];
} ncv_target;

static size_t ncv_size(char kind) {
    switch (kind) {
    case 'i':
    case 'b':
        return sizeof(int);
    case 'I':
        return sizeof(json_int_t);
    case 'f':
    case 'F':
        return sizeof(double);
    case '%':
        return sizeof(size_t);
    default:
        return sizeof(void *); /* s, o, O */
    }
}

typedef struct {
    va_list ap;
    ncv_target *targets;
    size_t count;
} ncv_collect;

/* Reads the keys and targets of one value (the format is known to be valid).
 * 0, or -1 for a NULL key or target. */
static int ncv_collect_value(ncv_collect *c, const char **pp) {
    const char *p = ncv_skip(*pp);
    switch (*p) {
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        p++;
        for (;;) {
            p = ncv_skip(p);
            if (*p == close) break;
            if (*p == '!' || *p == '*') {
                p++;
                continue;
            }
            if (close == '}') {
                if (va_arg(c->ap, const char *) == NULL) return -1;
                p = ncv_skip(p + 1);
                if (*p == '?') p++;
            }
            if (ncv_collect_value(c, &p) != 0) return -1;
        }
        p++;
        break;
    }
    case 'n':
        p++;
        break;
    default: { /* s i I b f F o O */
        char kind = *p;
        void *t = va_arg(c->ap, void *);
        if (t == NULL) return -1;
        c->targets[c->count].ptr = t;
        c->targets[c->count].kind = kind;
        c->count++;
        p++;
        if (kind == 's') {
            const char *q = ncv_skip(p);
            if (*q == '%') {
                t = va_arg(c->ap, void *);
                if (t == NULL) return -1;
                c->targets[c->count].ptr = t;
                c->targets[c->count].kind = '%';
                c->count++;
                p = q + 1;
            }
        }
        break;
    }
    }
    *pp = p;
    return 0;
}

/* ---- 3. the path of the value at a format position -------------------------- */

typedef struct {
    va_list ap;
    const char *fmt;
    size_t stop; /* jansson's position: the failing token's index + 1 */
    char *path;
    size_t len, cap;
    int nomem;
} ncv_path;

static void ncv_append(ncv_path *w, const char *s, size_t n) {
    if (w->nomem) return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = (w->len + n + 1) * 2;
        char *grown = realloc(w->path, cap);
        if (!grown) {
            w->nomem = 1;
            return;
        }
        w->path = grown;
        w->cap = cap;
    }
    memcpy(w->path + w->len, s, n);
    w->len += n;
    w->path[w->len] = '\0';
}

static size_t ncv_pos(const ncv_path *w, const char *p) {
    return (size_t)(p - w->fmt) + 1;
}

/* Walks one value: 1 when the stop position is its token or inside it (the path is
 * then w->path), else 0 with w->path as it was. */
static int ncv_path_value(ncv_path *w, const char **pp) {
    const char *p = ncv_skip(*pp);
    if (ncv_pos(w, p) == w->stop) return 1;
    switch (*p) {
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        unsigned long index = 0;
        p++;
        for (;;) {
            size_t mark = w->len;
            p = ncv_skip(p);
            if (*p == close || *p == '!' || *p == '*') {
                if (ncv_pos(w, p) == w->stop) return 1; /* left over members: the container's path */
                if (*p == close) break;
                p++;
                continue;
            }
            if (close == '}') {
                const char *key = va_arg(w->ap, const char *);
                ncv_append(w, ".", 1);
                ncv_append(w, key, strlen(key));
                p = ncv_skip(p + 1);
                if (*p == '?') p++;
            } else {
                char num[32];
                int n = snprintf(num, sizeof num, "[%lu]", index++);
                ncv_append(w, num, (size_t)n);
            }
            if (ncv_path_value(w, &p)) return 1;
            w->len = mark;
            if (w->path) w->path[mark] = '\0';
        }
        p++;
        break;
    }
    case 'n':
        p++;
        break;
    default: /* s i I b f F o O: one target, s% two */
        (void)va_arg(w->ap, void *);
        p++;
        if (p[-1] == 's') {
            const char *q = ncv_skip(p);
            if (*q == '%') {
                if (ncv_pos(w, q) == w->stop) return 1;
                (void)va_arg(w->ap, void *);
                p = q + 1;
            }
        }
        break;
    }
    *pp = p;
    return 0;
}

/* ---- the functions ---------------------------------------------------------- */

nc_status nc_response_data_vunpack(const nc_response *response, nc_error **error_out, const char *fmt,
                                   va_list ap) {
    size_t count = 0, i;
    const char *p = fmt;
    ncv_target local[NCV_LOCAL_TARGETS];
    ncv_collect c;
    json_t *data;
    json_error_t jerr;
    va_list run;
    int rc;

    if (!response || !fmt) return NC_ERR_INVALID_ARGUMENT;
    if (ncv_syntax(&p, &count, 0) != 0 || *ncv_skip(p) != '\0') return NC_ERR_INVALID_ARGUMENT;

    /* Most formats name a few targets: those live on the stack. */
    c.targets = local;
    c.count = 0;
    if (count > NCV_LOCAL_TARGETS) {
        c.targets = calloc(count, sizeof *c.targets);
        if (!c.targets) return NC_ERR_NO_MEMORY;
    }
    p = fmt;
    va_copy(c.ap, ap);
    rc = ncv_collect_value(&c, &p);
    va_end(c.ap);
    if (rc != 0) {
        if (c.targets != local) free(c.targets);
        return NC_ERR_INVALID_ARGUMENT;
    }

    data = nc_response_data(response);
    if (!data) {
        void *e =
            ncvariadic_unpack_failed(response, "Could not unpack the data: data: the body is not JSON.");
        if (c.targets != local) free(c.targets);
        if (!e) return NC_ERR_NO_MEMORY;
        if (error_out) *error_out = (nc_error *)e;
        else nc_error_free((nc_error *)e);
        return NC_ERR_FAILED;
    }

    /* Saved, so a mismatch leaves every target as it was; an O target starts NULL so
     * that a reference jansson took shows. */
    for (i = 0; i < c.count; i++) {
        memcpy(c.targets[i].saved, c.targets[i].ptr, ncv_size(c.targets[i].kind));
        if (c.targets[i].kind == 'O') *(json_t **)c.targets[i].ptr = NULL;
    }

    va_copy(run, ap);
    rc = json_vunpack_ex(data, &jerr, 0, fmt, run);
    va_end(run);

    if (rc == 0) {
        /* An O target of an absent optional key was not written: give it back. */
        for (i = 0; i < c.count; i++) {
            if (c.targets[i].kind == 'O' && *(json_t **)c.targets[i].ptr == NULL)
                memcpy(c.targets[i].ptr, c.targets[i].saved, sizeof(json_t *));
        }
        if (c.targets != local) free(c.targets);
        return NC_OK;
    }

    for (i = c.count; i-- > 0;) {
        if (c.targets[i].kind == 'O') json_decref(*(json_t **)c.targets[i].ptr);
        memcpy(c.targets[i].ptr, c.targets[i].saved, ncv_size(c.targets[i].kind));
    }
    if (c.targets != local) free(c.targets);
    /* Not the data's fault: out of memory inside jansson, or (never expected after
     * the checks above) a format or argument jansson refused. */
    if (strcmp(jerr.source, "<internal>") == 0) return NC_ERR_NO_MEMORY;
    if (strcmp(jerr.source, "<format>") == 0 || strcmp(jerr.source, "<args>") == 0)
        return NC_ERR_INVALID_ARGUMENT;

    {
        ncv_path w;
        const char *q = fmt;
        char *message;
        size_t size;
        void *e;

        memset(&w, 0, sizeof w);
        w.fmt = fmt;
        w.stop = jerr.position > 0 ? (size_t)jerr.position : 0;
        ncv_append(&w, "data", 4);
        va_copy(w.ap, ap);
        (void)ncv_path_value(&w, &q);
        va_end(w.ap);
        if (w.nomem) {
            free(w.path);
            return NC_ERR_NO_MEMORY;
        }
        size = strlen(w.path) + strlen(jerr.text) + strlen(fmt) + 96;
        message = malloc(size);
        if (!message) {
            free(w.path);
            return NC_ERR_NO_MEMORY;
        }
        snprintf(message, size, "Could not unpack the data: %s: %s (format \"%s\", position %d).",
                 w.path, jerr.text, fmt, jerr.position);
        free(w.path);
        e = ncvariadic_unpack_failed(response, message);
        free(message);
        if (!e) return NC_ERR_NO_MEMORY;
        if (error_out) *error_out = (nc_error *)e;
        else nc_error_free((nc_error *)e);
        return NC_ERR_FAILED;
    }
}

nc_status nc_response_data_unpack(const nc_response *response, nc_error **error_out, const char *fmt,
                                  ...) {
    va_list ap;
    nc_status st;
    va_start(ap, fmt);
    st = nc_response_data_vunpack(response, error_out, fmt, ap);
    va_end(ap);
    return st;
}
