/* download.c — a response body written straight to a file.
 * usage: download http://127.0.0.1:8080/api [DIRECTORY]
 *
 * nc_request_set_output_file(): a 2xx body goes to `path.part` as it arrives (not
 * into memory; limits.max_response_bytes does not apply), renamed to `path` before
 * the completion runs. Any other status leaves no file at `path` and the error
 * carries the body (docs/transfers.md: resuming a cut download). Exits 1 unless the
 * 1 MiB download has exactly the expected size and the 404 left no file. */
#include <netcore.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* GETs `path` into `file`; returns the nc_status and prints the outcome. */
static nc_status download(nc_client *c, const char *path, const char *file) {
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    nc_status st = nc_request_new("GET", path, &req);
    if (st == NC_OK) st = nc_request_set_output_file(req, file);
    if (st == NC_OK) st = nc_client_send_sync(c, req, &resp, &err);
    if (st == NC_OK) printf("GET %s -> %d, body in %s\n", path, nc_response_status(resp), file);
    else
        printf("GET %s -> %s %lld\n", path, err ? nc_error_domain_name(err) : nc_status_str(st),
               err ? (long long)nc_error_code(err) : 0LL);
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    return st;
}

static long long file_size(const char *file) {
    struct stat st;
    return stat(file, &st) == 0 ? (long long)st.st_size : -1;
}

int main(int argc, char **argv) {
    char config[512], big[512], missing[512];
    nc_client *c = NULL;
    nc_error *err = NULL;
    int ok = 1;

    if (argc < 2 || argc > 3) return fprintf(stderr, "usage: %s BASE_URL [DIRECTORY]\n", argv[0]), 2;
    const char *dir = argc == 3 ? argv[2] : "/tmp";
    snprintf(big, sizeof big, "%s/netcore-download-%ld.bin", dir, (long)getpid());
    snprintf(missing, sizeof missing, "%s/netcore-missing-%ld.bin", dir, (long)getpid());
    snprintf(config, sizeof config, "{\"base_url\":\"%s\"}", argv[1]); /* raw mode: a file is not JSON */
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }

    /* 1 MiB of data. */
    ok &= download(c, "/large?bytes=1048576", big) == NC_OK;
    printf("size: %lld bytes\n", file_size(big));
    ok &= file_size(big) == 1048576;

    /* A 404: the request fails (HTTP 404) and no file appears (-1: none). */
    ok &= download(c, "/status/404", missing) == NC_ERR_FAILED;
    printf("size after the 404: %lld bytes\n", file_size(missing));
    ok &= file_size(missing) == -1;

    unlink(big);
    unlink(missing);
    nc_client_free(c);
    if (!ok) fprintf(stderr, "unexpected download result\n");
    return ok ? 0 : 1;
}
