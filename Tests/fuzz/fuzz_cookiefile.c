/*
 * fuzz_cookiefile.c — libFuzzer target: the cookie file ("cookies": {"file"}, a
 * Netscape cookie file, which any process that can write it may have written).
 * The input is the file: a client is made on it (libcurl's loader, then the jar's
 * bounds and our reading of libcurl's lines, CookieJar.swift / Cookie.swift), its
 * jar listed with nc_client_cookies_json, written back with
 * nc_client_cookies_flush (our Netscape writer), the client freed, and a second
 * client made on the written file.
 * Checked: the client is made (a file's contents never refuse it); the list is a
 * JSON array of objects with the documented members and types ("expires" >= 0),
 * at most 180 of one domain and 3,000 in all; the flush succeeds; and the round
 * trip keeps the jar: the second client lists the same cookies, in any order
 * (unless one expires within the minute), leaving out on both sides the cookies
 * libcurl holds twice under one listed name, domain and path and those whose
 * domain still begins with a dot (drop_ambiguous says why).
 * The files live in /dev/shm when it exists (the writer fsyncs each file).
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "netcore.h"

static char g_dir[64];
static char g_file[128];
static char g_config[256];

static void remove_dir(void) {
    unlink(g_file);
    rmdir(g_dir);
}

static void setup(void) {
    snprintf(g_dir, sizeof g_dir, "%s/nc-fuzz-cookies-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    snprintf(g_file, sizeof g_file, "%s/cookies.txt", g_dir);
    snprintf(g_config, sizeof g_config,
             "{\"reachability\":{\"mode\":\"online\"},\"cookies\":{\"enabled\":true,\"file\":\"%s\"}}",
             g_file);
}

/* The jar of a client made on the file now, checked; NULL never (aborts). */
static json_t *load_and_list(int flush) {
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(g_config, &c, &err) != NC_OK) {
        fprintf(stderr, "refused: %s\n", err ? nc_error_message(err) : "?");
        abort();
    }
    char *text = NULL;
    if (nc_client_cookies_json(c, &text) != NC_OK || !text) abort();
    json_error_t jerr;
    json_t *list = json_loads(text, 0, &jerr);
    nc_string_free(text);
    if (!json_is_array(list) || json_array_size(list) > 3000) abort();
    json_t *per_domain = json_object();
    size_t i;
    json_t *ck;
    json_array_foreach(list, i, ck) {
        json_t *name = json_object_get(ck, "name"), *value = json_object_get(ck, "value"),
               *domain = json_object_get(ck, "domain"), *path = json_object_get(ck, "path"),
               *expires = json_object_get(ck, "expires");
        if (!json_is_object(ck) || !json_is_string(name) || !json_is_string(value) ||
            !json_is_string(domain) || !json_is_string(path) ||
            !json_is_boolean(json_object_get(ck, "include_subdomains")) ||
            !json_is_boolean(json_object_get(ck, "secure")) ||
            !json_is_boolean(json_object_get(ck, "http_only")) || !json_is_integer(expires) ||
            json_integer_value(expires) < 0)
            abort();
        /* A listed domain may still begin with a dot: libcurl drops one leading dot
         * of a file line's domain (the old "subdomains too" mark) and keeps any
         * other ("...d.test"), and the list shows the domain libcurl holds. */
        /* Domains count case-insensitively (CookieJar.keptLines). */
        char key[512];
        snprintf(key, sizeof key, "%s", json_string_value(domain));
        for (char *k = key; *k; k++)
            if (*k >= 'A' && *k <= 'Z') *k = (char)(*k - 'A' + 'a');
        json_int_t n = json_integer_value(json_object_get(per_domain, key)) + 1;
        if (n > 180) abort();
        json_object_set_new(per_domain, key, json_integer(n));
    }
    json_decref(per_domain);
    if (flush) {
        err = NULL;
        if (nc_client_cookies_flush(c, &err) != NC_OK) {
            fprintf(stderr, "flush: %s\n", err ? nc_error_message(err) : "?");
            abort();
        }
    }
    nc_client_free(c);
    return list;
}

static int expires_soon(json_t *list) {
    time_t now = time(NULL);
    size_t i;
    json_t *ck;
    json_array_foreach(list, i, ck) {
        json_int_t e = json_integer_value(json_object_get(ck, "expires"));
        if (e != 0 && e < (json_int_t)now + 60) return 1;
    }
    return 0;
}

/* The listed identity of a cookie: name, domain (case-insensitively) and path. */
static char *cookie_key(json_t *ck) {
    const char *n = json_string_value(json_object_get(ck, "name"));
    const char *d = json_string_value(json_object_get(ck, "domain"));
    const char *p = json_string_value(json_object_get(ck, "path"));
    n = n ? n : "";
    d = d ? d : "";
    p = p ? p : "";
    size_t len = strlen(n) + strlen(d) + strlen(p) + 3;
    char *k = malloc(len);
    if (!k) abort();
    snprintf(k, len, "%s\t%s\t%s", n, d, p);
    for (char *c = k + strlen(n) + 1; *c && *c != '\t'; c++)
        if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    return k;
}

static int by_key(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Removes from `a` and `b` every cookie whose listed identity `a` holds twice,
 * and every cookie whose domain begins with a dot. Each key is made once; the
 * twice-held ones are found in a sorted copy (an input may list 3,000 cookies). */
static void drop_ambiguous(json_t *a, json_t *b) {
    size_t n = json_array_size(a), i, twice = 0;
    char **keys = calloc(n + 1, sizeof *keys), **dup = calloc(n + 1, sizeof *dup);
    if (!keys || !dup) abort();
    for (i = 0; i < n; i++) keys[i] = cookie_key(json_array_get(a, i));
    memcpy(dup, keys, n * sizeof *keys);
    qsort(dup, n, sizeof *dup, by_key);
    for (i = 0; i + 1 < n; i++)
        if (strcmp(dup[i], dup[i + 1]) == 0) dup[twice++] = dup[i];
    json_t *lists[2] = {a, b};
    for (int l = 0; l < 2; l++)
        for (size_t k = json_array_size(lists[l]); k-- > 0;) {
            json_t *ck = json_array_get(lists[l], k);
            char *key = cookie_key(ck);
            /* A domain that still begins with a dot loses one each time through the
             * file: libcurl writes it as it holds it and drops one when it reads it
             * (libcurl's own cookie file does the same). No host matches it. */
            int drop = json_string_value(json_object_get(ck, "domain"))[0] == '.' ||
                       (twice && bsearch(&key, dup, twice, sizeof *dup, by_key));
            if (drop) json_array_remove(lists[l], k);
            free(key);
        }
    for (i = 0; i < n; i++) free(keys[i]);
    free(keys);
    free(dup);
}

/* The same cookies, in any order: the jar lists libcurl's cookies in its hash
 * order, which a reload may change (nc_client_cookies_json promises no order). */
static int same_cookies(json_t *a, json_t *b) {
    size_t n = json_array_size(a), i;
    if (n != json_array_size(b)) return 0;
    char **ta = calloc(n + 1, sizeof *ta), **tb = calloc(n + 1, sizeof *tb);
    if (!ta || !tb) abort();
    for (i = 0; i < n; i++) {
        ta[i] = json_dumps(json_array_get(a, i), JSON_COMPACT | JSON_SORT_KEYS);
        tb[i] = json_dumps(json_array_get(b, i), JSON_COMPACT | JSON_SORT_KEYS);
        if (!ta[i] || !tb[i]) abort();
    }
    qsort(ta, n, sizeof *ta, by_key);
    qsort(tb, n, sizeof *tb, by_key);
    int same = 1;
    for (i = 0; i < n; i++) {
        same &= strcmp(ta[i], tb[i]) == 0;
        free(ta[i]);
        free(tb[i]);
    }
    free(ta);
    free(tb);
    return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_dir[0]) setup();
    FILE *f = fopen(g_file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
    json_t *first = load_and_list(1);
    json_t *second = load_and_list(0);
    /* libcurl may hold two cookies under one listed name, domain and path: a
     * malformed line whose fields it shifts, a path it lists other than it keeps
     * (")/" listed as "/"), paths that differ only in bytes that are not UTF-8 (each
     * listed as U+FFFD). Written, the file has both lines, and loading it keeps one
     * or both as libcurl reads them: such cookies are left out of the comparison on
     * both sides; every other cookie must come back exactly. */
    drop_ambiguous(first, second);
    if (!expires_soon(first) && !same_cookies(first, second)) {
        char *a = json_dumps(first, JSON_COMPACT), *b = json_dumps(second, JSON_COMPACT);
        fprintf(stderr, "the jar changed on its way through the file:\n%s\n%s\n", a, b);
        abort();
    }
    json_decref(first);
    json_decref(second);
    return 0;
}
