/*
 * ncascii — case-insensitive comparison of HTTP's case-insensitive tokens (header
 * field names, "bytes", "identity"): only the ASCII letters A-Z fold, whatever the
 * process's locale.
 *
 * Why: strcasecmp, strncasecmp and tolower fold by the LC_CTYPE locale. In a Turkish
 * one, glibc folds 'I' to a dotless i (tr_TR.ISO-8859-9) or not at all (tr_TR.UTF-8),
 * so "LOCATION" and "location" differ there; Python sets LC_CTYPE from the
 * environment at start-up, so a Python application run by a Turkish user is in that
 * locale. Header names are ASCII and case-insensitive (RFC 9110 §5.1).
 *
 * Threads: pure functions of their arguments; any thread.
 */
#ifndef NETCORE_NCASCII_H
#define NETCORE_NCASCII_H

#include <stddef.h>

/* `c` with A-Z folded to a-z; every other byte unchanged. */
static inline unsigned char ncascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* 1 when the `n` bytes at `a` and at `b` are equal but for the case of ASCII
 * letters, else 0. Reads exactly `n` bytes of each (NUL bytes included). */
static inline int ncascii_equal_n(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (ncascii_lower((unsigned char)a[i]) != ncascii_lower((unsigned char)b[i])) return 0;
    }
    return 1;
}

/* 1 when the NUL-terminated strings `a` and `b` are equal but for the case of
 * ASCII letters, else 0. */
static inline int ncascii_equal(const char *a, const char *b) {
    for (;; a++, b++) {
        unsigned char x = ncascii_lower((unsigned char)*a), y = ncascii_lower((unsigned char)*b);
        if (x != y) return 0;
        if (x == 0) return 1;
    }
}

#endif
