/*
 * upload_test.c — uploads through include/netcore.h as a C user makes them
 * (docs/uploads.md), against the loopback mock server's /upload routes
 * (Tests/Support/mock_routes_upload.py):
 *
 *   - a 64 MiB body file arrives whole (SHA-256 compared on the server) while the
 *     process's VmRSS grows by less than 32 MiB (the figure is printed);
 *   - a missing file fails with CLIENT INVALID_REQUEST naming it, nothing sent;
 *   - multipart names and file names with `"`, CR, LF, backslash and UTF-8 go on
 *     the wire as a browser sends them (HTML5) and Python's cgi.FieldStorage reads
 *     back exactly that;
 *   - a PUT from a file retried by the policy arrives whole;
 *   - a POST from a file (or a multipart POST) whose connection is dropped is not
 *     resent by libcurl on its own;
 *   - a body file, or a multipart file part, that shrinks after its length was
 *     announced fails with TRANSPORT 26 naming it (never a short body sent).
 *
 *   usage: upload_test http://127.0.0.1:<port>/api
 * Prints one line per failed check and "N passed, M failed" as the last line.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcore.h"

static int g_passed, g_failed;
static const char *g_ctx = "";
static const char *g_base;
static char g_dir[] = "/tmp/nc-upload-c-XXXXXX";

static int check(int ok, const char *expr, int line) {
    if (ok) {
        g_passed++;
    } else {
        g_failed++;
        printf("FAIL %s:%d [%s] %s\n", __FILE__, line, g_ctx, expr);
    }
    return ok;
}

static int check_int(long long got, long long want, const char *expr, int line) {
    if (got == want) return check(1, expr, line);
    g_failed++;
    printf("FAIL %s:%d [%s] %s == %lld, want %lld\n", __FILE__, line, g_ctx, expr, got, want);
    return 0;
}

static int check_str(const char *got, const char *want, const char *expr, int line) {
    if ((got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0))
        return check(1, expr, line);
    g_failed++;
    printf("FAIL %s:%d [%s] %s == %s, want %s\n", __FILE__, line, g_ctx, expr, got ? got : "NULL",
           want ? want : "NULL");
    return 0;
}

#define CHECK(c)        check(!!(c), #c, __LINE__)
#define CHECK_INT(a, b) check_int((long long)(a), (long long)(b), #a, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __LINE__)

/* ---- helpers ------------------------------------------------------------ */

static nc_client *make_client(const char *extra) {
    char config[1024];
    nc_client *c = NULL;
    nc_error *err = NULL;
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\","
             "\"data\":\"data\"},\"coalesce\":false,\"reachability\":{\"mode\":\"online\"}%s%s}",
             g_base, extra ? "," : "", extra ? extra : "");
    if (nc_client_new(config, &c, &err) != NC_OK) {
        printf("FAIL cannot create a client from %s: %s\n", config, nc_error_message(err));
        g_failed++;
        nc_error_free(err);
        return NULL;
    }
    return c;
}

/* How many requests with ?key=K the server saw (-1: could not ask). */
static long long hits(const char *key) {
    char path[256];
    nc_client *c = make_client(NULL);
    nc_request *r = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    long long n = -1;
    if (!c) return -1;
    snprintf(path, sizeof path, "/_hits?key=%s", key);
    if (nc_request_new("GET", path, &r) == NC_OK && nc_request_set_envelope(r, 0) == NC_OK &&
        nc_client_send_sync(c, r, &resp, &err) == NC_OK) {
        size_t len = 0;
        const char *body = nc_response_body(resp, &len);
        json_t *j = json_loadb(body, len, 0, NULL);
        if (json_is_integer(json_object_get(j, "hits")))
            n = json_integer_value(json_object_get(j, "hits"));
        json_decref(j);
    }
    nc_request_free(r);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    return n;
}

static void unique_key(char *out, size_t size) {
    static int n;
    snprintf(out, size, "up-c-%ld-%d-%d", (long)getpid(), ++n, rand());
}

/* A file of `size` deterministic bytes under g_dir, written in 1 MiB blocks. */
static int make_file(const char *name, long long size, char *path, size_t path_size) {
    static unsigned char block[1 << 20];
    uint32_t x = 2463534242u;
    FILE *f;
    snprintf(path, path_size, "%s/%s", g_dir, name);
    f = fopen(path, "wb");
    if (!f) return 0;
    for (size_t i = 0; i < sizeof block; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        block[i] = (unsigned char)x;
    }
    while (size > 0) {
        size_t n = size < (long long)sizeof block ? (size_t)size : sizeof block;
        if (fwrite(block, 1, n, f) != n) {
            fclose(f);
            return 0;
        }
        block[0]++; /* no two blocks alike */
        size -= (long long)n;
    }
    return fclose(f) == 0;
}

/* The file's SHA-256 in hex (sha256sum), into out[65]. */
static int sha256_file(const char *path, char *out) {
    char cmd[600];
    FILE *p;
    int ok;
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    p = popen(cmd, "r");
    if (!p) return 0;
    ok = fscanf(p, "%64s", out) == 1;
    pclose(p);
    return ok;
}

static long rss_kib(void) {
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

/* Sends `r` (freed here) with `c`; returns the status, fills resp/err. */
static nc_status send_req(nc_client *c, nc_request *r, nc_response **resp, nc_error **err) {
    nc_status st;
    *resp = NULL;
    *err = NULL;
    st = nc_client_send_sync(c, r, resp, err);
    nc_request_free(r);
    return st;
}

static nc_request *new_request(const char *method, const char *path) {
    nc_request *r = NULL;
    if (nc_request_new(method, path, &r) != NC_OK) return NULL;
    return r;
}

/* ---- a body file ---------------------------------------------------------- */

static void test_large_body_file(void) {
    char path[512], sha[65] = "";
    long long size = 64LL << 20;
    nc_client *c;
    nc_response *resp;
    nc_error *err;
    long before, after;
    json_t *data;

    g_ctx = "64 MiB body file";
    if (!CHECK(make_file("big.bin", size, path, sizeof path)) || !CHECK(sha256_file(path, sha))) return;
    c = make_client(NULL);
    if (!c) return;
    /* One request first, so the client's threads and handles exist before measuring. */
    CHECK_INT(send_req(c, new_request("GET", "/env/code/ok"), &resp, &err), NC_OK);
    nc_response_free(resp);
    nc_error_free(err);

    before = rss_kib();
    {
        nc_request *r = new_request("POST", "/upload/echo");
        CHECK_INT(nc_request_set_body_file(r, path, "application/x-test"), NC_OK);
        CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    }
    after = rss_kib();
    if (err) printf("     error: %s\n", nc_error_json(err));
    data = resp ? nc_response_data(resp) : NULL;
    CHECK_INT(json_integer_value(json_object_get(data, "length")), size);
    CHECK_STR(json_string_value(json_object_get(data, "sha256")), sha);
    CHECK_STR(json_string_value(json_object_get(data, "content_type")), "application/x-test");
    CHECK_STR(json_string_value(json_object_get(data, "method")), "POST");
    printf("upload of 64 MiB from a file: VmRSS %ld -> %ld KiB (%+ld KiB)\n", before, after,
           after - before);
    CHECK(before > 0 && after - before < 32 * 1024);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    unlink(path);
}

/* ---- a missing file: nothing sent ----------------------------------------- */

static void test_missing_file(void) {
    char key[64], url[256], missing[512];
    nc_client *c = make_client(NULL);
    nc_response *resp;
    nc_error *err;
    nc_request *r;

    g_ctx = "missing file";
    if (!c) return;
    unique_key(key, sizeof key);
    snprintf(missing, sizeof missing, "%s/not-there-%s.bin", g_dir, key);

    snprintf(url, sizeof url, "/upload/echo?key=%s", key);
    r = new_request("PUT", url);
    CHECK_INT(nc_request_set_body_file(r, missing, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_ERR_FAILED);
    CHECK(resp == NULL);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_CLIENT);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    CHECK(nc_error_message(err) && strstr(nc_error_message(err), missing));
    CHECK_INT(nc_error_attempts(err), 0);
    nc_error_free(err);

    /* A file part of a multipart body likewise, even after parts that exist. */
    snprintf(url, sizeof url, "/upload/multipart?key=%s", key);
    r = new_request("POST", url);
    CHECK_INT(nc_request_add_part(r, "a", "1", 1, NULL, NULL), NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "f", missing, NULL, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_ERR_FAILED);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    CHECK(nc_error_message(err) && strstr(nc_error_message(err), missing));
    nc_response_free(resp);
    nc_error_free(err);

    /* A directory is not a file to upload. */
    r = new_request("PUT", url);
    CHECK_INT(nc_request_set_body_file(r, g_dir, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_ERR_FAILED);
    CHECK_INT(nc_error_code(err), NC_CLIENT_INVALID_REQUEST);
    nc_response_free(resp);
    nc_error_free(err);

    CHECK_INT(hits(key), 0);
    nc_client_free(c);
}

/* ---- multipart: awkward names --------------------------------------------- */

/* Each case: what the caller passes, what goes on the wire (as a browser sends it,
   HTML5: `"` %22, CR %0D, LF %0A, everything else as is), which is what
   cgi.FieldStorage reads back. */
static const struct {
    const char *name, *wire_name, *filename, *wire_filename;
} AWKWARD[] = {
    {"plain", "plain", NULL, NULL},
    {"we\"ird", "we%22ird", "a \"quoted\" name.txt", "a %22quoted%22 name.txt"},
    {"line\r\nbreak", "line%0D%0Abreak", "two\nlines.txt", "two%0Alines.txt"},
    {"back\\slash", "back\\slash", "C:\\dir\\file.txt", "C:\\dir\\file.txt"},
    {"\xc3\xbcn\xc3\xaf c\xc3\xb6\x64\xc3\xa9", "\xc3\xbcn\xc3\xaf c\xc3\xb6\x64\xc3\xa9",
     "r\xc3\xa9sum\xc3\xa9.txt", "r\xc3\xa9sum\xc3\xa9.txt"},
    {"semi;colon=x", "semi;colon=x", "a;b=c.txt", "a;b=c.txt"},
};

static void test_multipart_names(void) {
    char path[512], sha[65] = "", want[512];
    nc_client *c = make_client(NULL);
    nc_response *resp;
    nc_error *err;
    nc_request *r;
    json_t *parts;
    size_t n = sizeof AWKWARD / sizeof AWKWARD[0];

    g_ctx = "multipart names";
    if (!c) return;
    if (!CHECK(make_file("photo.jpg", 300000, path, sizeof path)) || !CHECK(sha256_file(path, sha)))
        return;
    r = new_request("POST", "/upload/multipart");
    for (size_t i = 0; i < n; i++)
        CHECK_INT(nc_request_add_part(r, AWKWARD[i].name, "value", 5, AWKWARD[i].filename,
                                      AWKWARD[i].filename ? "text/plain" : NULL),
                  NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "photo", path, NULL, "image/jpeg"), NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "again", path, "we\"ird\\name.bin", NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    if (err) printf("     error: %s\n", nc_error_json(err));
    parts = json_object_get(resp ? nc_response_data(resp) : NULL, "parts");
    if (CHECK_INT(json_array_size(parts), n + 2)) {
        for (size_t i = 0; i < n; i++) {
            json_t *p = json_array_get(parts, i);
            g_ctx = AWKWARD[i].wire_name;
            if (AWKWARD[i].filename)
                snprintf(want, sizeof want, "form-data; name=\"%s\"; filename=\"%s\"",
                         AWKWARD[i].wire_name, AWKWARD[i].wire_filename);
            else snprintf(want, sizeof want, "form-data; name=\"%s\"", AWKWARD[i].wire_name);
            CHECK_STR(json_string_value(json_object_get(p, "disposition")), want);
            CHECK_STR(json_string_value(json_object_get(p, "cgi_name")), AWKWARD[i].wire_name);
            CHECK_STR(json_string_value(json_object_get(p, "cgi_filename")), AWKWARD[i].wire_filename);
            CHECK_STR(json_string_value(json_object_get(p, "text")), "value");
        }
        g_ctx = "multipart file parts";
        {
            json_t *photo = json_array_get(parts, n), *again = json_array_get(parts, n + 1);
            CHECK_STR(json_string_value(json_object_get(photo, "filename")), "photo.jpg");
            CHECK_STR(json_string_value(json_object_get(photo, "content_type")), "image/jpeg");
            CHECK_INT(json_integer_value(json_object_get(photo, "length")), 300000);
            CHECK_STR(json_string_value(json_object_get(photo, "sha256")), sha);
            CHECK_STR(json_string_value(json_object_get(again, "cgi_filename")), "we%22ird\\name.bin");
            CHECK_STR(json_string_value(json_object_get(again, "sha256")), sha);
        }
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    unlink(path);
}

/* ---- retries ---------------------------------------------------------------- */

static void test_put_retried(void) {
    char path[512], sha[65] = "", key[64], url[256];
    nc_client *c = make_client("\"retry\":{\"max_attempts\":3,\"initial_ms\":10,\"jitter\":false,"
                               "\"statuses\":[503]}");
    nc_response *resp;
    nc_error *err;
    nc_request *r;
    json_t *data;

    g_ctx = "PUT from a file, retried";
    if (!c) return;
    if (!CHECK(make_file("put.bin", 2000000, path, sizeof path)) || !CHECK(sha256_file(path, sha)))
        return;
    unique_key(key, sizeof key);
    snprintf(url, sizeof url, "/upload/flaky?key=%s&fails=2", key);
    r = new_request("PUT", url);
    CHECK_INT(nc_request_set_body_file(r, path, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    if (err) printf("     error: %s\n", nc_error_json(err));
    data = resp ? nc_response_data(resp) : NULL;
    CHECK_INT(json_integer_value(json_object_get(data, "length")), 2000000);
    CHECK_STR(json_string_value(json_object_get(data, "sha256")), sha);
    CHECK_STR(json_string_value(json_object_get(data, "method")), "PUT");
    CHECK_INT(hits(key), 3);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    unlink(path);
}

/* A POST from a file, or a multipart POST, whose kept-alive connection the server
   closes after reading it: libcurl would resend it on a new connection by itself;
   it must be sent once (the retry policy is off: one attempt). */
static void test_post_not_resent(void) {
    char path[512], key[64], url[256];
    nc_client *c = make_client(NULL);
    nc_response *resp;
    nc_error *err;
    nc_request *r;

    g_ctx = "dropped POST from a file";
    if (!c) return;
    if (!CHECK(make_file("post.bin", 500000, path, sizeof path))) return;
    for (int kind = 0; kind < 3; kind++) {
        /* A first request leaves a kept-alive connection for the POST to reuse. */
        CHECK_INT(send_req(c, new_request("GET", "/env/code/ok"), &resp, &err), NC_OK);
        nc_response_free(resp);
        nc_error_free(err);
        unique_key(key, sizeof key);
        snprintf(url, sizeof url, "/drop?key=%s", key);
        r = new_request("POST", url);
        if (kind == 0) {
            g_ctx = "dropped POST: body file";
            CHECK_INT(nc_request_set_body_file(r, path, "application/octet-stream"), NC_OK);
        } else if (kind == 1) {
            g_ctx = "dropped POST: multipart with a file part";
            CHECK_INT(nc_request_add_part(r, "title", "x", 1, NULL, NULL), NC_OK);
            CHECK_INT(nc_request_add_file_part(r, "f", path, NULL, NULL), NC_OK);
        } else {
            g_ctx = "dropped POST: multipart fields";
            CHECK_INT(nc_request_add_part(r, "title", "x", 1, NULL, NULL), NC_OK);
        }
        CHECK_INT(send_req(c, r, &resp, &err), NC_ERR_FAILED);
        CHECK_INT(nc_error_domain(err), NC_DOMAIN_TRANSPORT);
        CHECK(nc_error_code(err) == 52 || nc_error_code(err) == 65);
        CHECK_INT(nc_error_attempts(err), 1);
        CHECK_INT(hits(key), 1);
        nc_response_free(resp);
        nc_error_free(err);
    }
    nc_client_free(c);
    unlink(path);
}

/* ---- a file that shrinks while it is sent ------------------------------------ */

static const char *g_shrink_path;
static long long g_shrink_to;
static int g_shrink_calls;

/* After the first (503) attempt, the file loses three quarters of its bytes;
   the second attempt opens it again and sends it as it is then, whole. */
static int64_t shrink_then_retry(const nc_response *resp, const nc_error *error, int32_t attempt,
                                 void *ud) {
    (void)resp;
    (void)error;
    (void)ud;
    g_shrink_calls++;
    if (attempt != 1) return -1;
    if (truncate(g_shrink_path, (off_t)g_shrink_to) != 0) return -1;
    return 0;
}

static const char *g_cut_path;
static int g_cut_done;

/* Cuts the file to 1 MB once the upload is under way (the first report with a
   known total and not all of it sent). */
static void cut_while_uploading(int64_t down_now, int64_t down_total, int64_t up_now, int64_t up_total,
                                void *ud) {
    (void)down_now;
    (void)down_total;
    (void)ud;
    if (g_cut_done || up_total <= 0 || up_now >= up_total) return;
    if (truncate(g_cut_path, 1000000) == 0) g_cut_done = 1;
}

static void test_shrinking_file(void) {
    char path[512], key[64], url[256];
    nc_client *plain;
    nc_client *c = make_client("\"retry\":{\"max_attempts\":2,\"statuses\":[503]}");
    nc_response *resp;
    nc_error *err;
    nc_request *r;

    g_ctx = "file shrinks between attempts: sent as it is then";
    if (!c) return;
    if (!CHECK(make_file("shrink.bin", 4000000, path, sizeof path))) return;
    g_shrink_path = path;
    g_shrink_to = 1000000;
    CHECK_INT(nc_client_set_retry_handler(c, shrink_then_retry, NULL), NC_OK);
    unique_key(key, sizeof key);
    snprintf(url, sizeof url, "/upload/flaky?key=%s&fails=1", key);
    r = new_request("PUT", url);
    CHECK_INT(nc_request_set_body_file(r, path, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    CHECK_INT(g_shrink_calls, 1);
    CHECK_INT(resp ? json_integer_value(json_object_get(nc_response_data(resp), "length")) : -1,
              1000000);
    nc_response_free(resp);
    nc_error_free(err);

    /* Shrinking while the attempt sends it: the length announced cannot be met, so
       the transfer fails naming the file rather than sending a short body. The
       progress callback cuts the file once the upload has begun and is not done. */
    g_ctx = "file shrinks while sent";
    if (!CHECK(make_file("shrink.bin", 32000000, path, sizeof path))) return;
    g_cut_path = path;
    g_cut_done = 0;
    /* (A client without the retry handler above, which would send it again.) */
    plain = make_client(NULL);
    if (!plain) return;
    r = new_request("PUT", "/upload/echo");
    CHECK_INT(nc_request_set_body_file(r, path, NULL), NC_OK);
    CHECK_INT(nc_request_set_progress(r, cut_while_uploading, NULL), NC_OK);
    CHECK_INT(send_req(plain, r, &resp, &err), NC_ERR_FAILED);
    nc_client_free(plain);
    CHECK_INT(g_cut_done, 1);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_TRANSPORT);
    CHECK_INT(nc_error_code(err), 26);
    CHECK(nc_error_message(err) && strstr(nc_error_message(err), path));
    CHECK(nc_error_message(err) &&
          strstr(nc_error_message(err), "shorter than the 32000000 bytes announced"));
    CHECK_INT(nc_error_attempts(err), 1);
    nc_response_free(resp);
    nc_error_free(err);

    /* A multipart file part likewise (libcurl's own file reader would end the part
       early: a body shorter than its Content-Length, the request hanging until its
       timeout). */
    g_ctx = "file part shrinks between attempts: sent as it is then";
    if (!CHECK(make_file("shrink.bin", 4000000, path, sizeof path))) return;
    g_shrink_calls = 0;
    unique_key(key, sizeof key);
    snprintf(url, sizeof url, "/upload/flaky?key=%s&fails=1", key);
    r = new_request("PUT", url);
    CHECK_INT(nc_request_add_part(r, "title", "x", 1, NULL, NULL), NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "f", path, NULL, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    CHECK_INT(g_shrink_calls, 1);
    {
        long long n = resp ? json_integer_value(json_object_get(nc_response_data(resp), "length")) : -1;
        /* the 1 MB file plus the boundaries and part headers */
        CHECK(n > 1000000 && n < 1001000);
    }
    nc_response_free(resp);
    nc_error_free(err);

    g_ctx = "file part shrinks while sent";
    if (!CHECK(make_file("shrink.bin", 32000000, path, sizeof path))) return;
    g_cut_path = path;
    g_cut_done = 0;
    plain = make_client(NULL);
    if (!plain) return;
    r = new_request("POST", "/upload/multipart");
    CHECK_INT(nc_request_add_part(r, "title", "x", 1, NULL, NULL), NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "f", path, NULL, NULL), NC_OK);
    CHECK_INT(nc_request_set_progress(r, cut_while_uploading, NULL), NC_OK);
    CHECK_INT(send_req(plain, r, &resp, &err), NC_ERR_FAILED);
    nc_client_free(plain);
    CHECK_INT(g_cut_done, 1);
    CHECK_INT(nc_error_domain(err), NC_DOMAIN_TRANSPORT);
    CHECK_INT(nc_error_code(err), 26);
    CHECK(nc_error_message(err) && strstr(nc_error_message(err), path));
    CHECK(nc_error_message(err) && strstr(nc_error_message(err), "the file of part 2"));
    CHECK_INT(nc_error_attempts(err), 1);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    unlink(path);
}

/* ---- one body kind per request ----------------------------------------------- */

static void test_later_body_replaces(void) {
    char path[512], sha[65] = "";
    nc_client *c = make_client(NULL);
    nc_response *resp;
    nc_error *err;
    nc_request *r;
    json_t *data;

    g_ctx = "the later body kind replaces the earlier";
    if (!c) return;
    if (!CHECK(make_file("replace.bin", 12345, path, sizeof path)) || !CHECK(sha256_file(path, sha)))
        return;
    /* parts, then a body file: the file is the body */
    r = new_request("POST", "/upload/echo");
    CHECK_INT(nc_request_add_part(r, "a", "1", 1, NULL, NULL), NC_OK);
    CHECK_INT(nc_request_set_body_file(r, path, "application/x-file"), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    data = resp ? nc_response_data(resp) : NULL;
    CHECK_INT(json_integer_value(json_object_get(data, "length")), 12345);
    CHECK_STR(json_string_value(json_object_get(data, "sha256")), sha);
    CHECK_STR(json_string_value(json_object_get(data, "content_type")), "application/x-file");
    nc_response_free(resp);
    nc_error_free(err);
    /* a body file, then bytes: the bytes are the body */
    r = new_request("POST", "/upload/echo");
    CHECK_INT(nc_request_set_body_file(r, path, NULL), NC_OK);
    CHECK_INT(nc_request_set_body(r, "abc", 3, "text/plain"), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    data = resp ? nc_response_data(resp) : NULL;
    CHECK_INT(json_integer_value(json_object_get(data, "length")), 3);
    CHECK_STR(json_string_value(json_object_get(data, "content_type")), "text/plain");
    nc_response_free(resp);
    nc_error_free(err);
    /* a body file, then a part: multipart */
    r = new_request("POST", "/upload/multipart");
    CHECK_INT(nc_request_set_body_file(r, path, NULL), NC_OK);
    CHECK_INT(nc_request_add_file_part(r, "f", path, NULL, NULL), NC_OK);
    CHECK_INT(send_req(c, r, &resp, &err), NC_OK);
    data = resp ? nc_response_data(resp) : NULL;
    CHECK_INT(json_array_size(json_object_get(data, "parts")), 1);
    CHECK_STR(
        json_string_value(json_object_get(json_array_get(json_object_get(data, "parts"), 0), "sha256")),
        sha);
    nc_response_free(resp);
    nc_error_free(err);
    nc_client_free(c);
    unlink(path);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s http://127.0.0.1:<port>/api\n", argv[0]);
        return 2;
    }
    g_base = argv[1];
    setvbuf(stdout, NULL, _IOLBF, 0);
    srand((unsigned)getpid());
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_large_body_file();
    test_missing_file();
    test_multipart_names();
    test_put_retried();
    test_post_not_resent();
    test_shrinking_file();
    test_later_body_replaces();
    rmdir(g_dir);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
