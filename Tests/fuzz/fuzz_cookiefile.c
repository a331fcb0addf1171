/*
 * fuzz_cookiefile.c — libFuzzer target: the cookie file ("cookies": {"file"}, a
 * Netscape cookie file, which any process that can write it may have written).
 * The input is the file: a client is made on it (libcurl's loader, then the jar's
 * bounds and our reading of libcurl's lines, CookieJar.swift / Cookie.swift), its
 * jar listed with nc_client_cookies_json, written back with
 * nc_client_cookies_flush (our Netscape writer), the client freed, and a second
 * client made on the written file.
 * Checked: the client is made (a file's contents never refuse it); the list is a
 * JSON array of objects with the documented members and types ("domain" without a
 * leading dot, "expires" >= 0), at most 180 of one domain and 3,000 in all; the
 * flush succeeds; and the round trip keeps the jar: the second client lists the
 * same cookies, in the same order (unless one expires within the minute; two that
 * libcurl lists alike count once).
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
            json_integer_value(expires) < 0 || json_string_value(domain)[0] == '.')
            abort();
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_dir[0]) setup();
    FILE *f = fopen(g_file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
    json_t *first = load_and_list(1);
    json_t *second = load_and_list(0);
    /* libcurl may hold two cookies that it lists alike (a malformed line whose fields
     * it shifts makes a cookie that differs from another only in what it does not
     * list): the file then has the line twice, and loading it keeps one. */
    json_t *once = json_array();
    size_t i, j;
    json_t *ck, *seen;
    json_array_foreach(first, i, ck) {
        int dup = 0;
        json_array_foreach(once, j, seen) dup |= json_equal(ck, seen);
        if (!dup) json_array_append(once, ck);
    }
    json_decref(first);
    first = once;
    if (!expires_soon(first) && !json_equal(first, second)) {
        char *a = json_dumps(first, JSON_COMPACT), *b = json_dumps(second, JSON_COMPACT);
        fprintf(stderr, "the jar changed on its way through the file:\n%s\n%s\n", a, b);
        abort();
    }
    json_decref(first);
    json_decref(second);
    return 0;
}
