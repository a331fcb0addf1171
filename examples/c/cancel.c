/* cancel.c — cancelling requests: one task, and a whole group (a screen that closes).
 * usage: cancel http://127.0.0.1:8080/api
 *
 * nc_task_cancel() ends one request: its callback runs exactly once, with
 * NC_CLIENT_CANCELLED, and has returned when nc_task_cancel() returns.
 * nc_client_cancel_group() ends every request of a group at once and says how many.
 * Exits 1 unless every request ended cancelled, each callback once. */
#include <netcore.h>
#include <stdio.h>
#include <string.h>

struct outcome {
    const char *what;
    int calls;
    int cancelled;
};

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    struct outcome *o = userdata;
    o->calls++;
    o->cancelled =
        err && nc_error_domain(err) == NC_DOMAIN_CLIENT && nc_error_code(err) == NC_CLIENT_CANCELLED;
    printf("%s: %s\n", o->what, o->cancelled ? "cancelled" : err ? nc_error_message(err) : "finished");
}

static nc_status send_slow(nc_client *c, const char *path, const char *group, struct outcome *o,
                           nc_task **task) {
    nc_request *req = NULL;
    nc_status st = nc_request_new("GET", path, &req);
    if (st == NC_OK && group) st = nc_request_set_group(req, group);
    if (st == NC_OK) st = nc_client_send(c, req, on_done, o, task);
    nc_request_free(req); /* the client copied it */
    return st;
}

int main(int argc, char **argv) {
    char config[512];
    nc_client *c = NULL;
    nc_error *err = NULL;
    nc_task *task = NULL;
    size_t n = 0;
    struct outcome one = {"GET /slow?ms=5000 (task)", 0, 0};
    struct outcome a = {"GET /slow?ms=6000 (group screen)", 0, 0};
    struct outcome b = {"GET /slow?ms=7000 (group screen)", 0, 0};

    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    snprintf(config, sizeof config, "{\"base_url\":\"%s\",\"envelope\":{}}", argv[1]);
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }

    /* One request, cancelled through its task. */
    if (send_slow(c, "/slow?ms=5000", NULL, &one, &task) == NC_OK) {
        nc_task_cancel(task); /* when this returns, on_done has run */
        nc_task_free(task);
    }

    /* Two requests of the group "screen", cancelled together. */
    send_slow(c, "/slow?ms=6000", "screen", &a, NULL);
    send_slow(c, "/slow?ms=7000", "screen", &b, NULL);
    nc_client_cancel_group(c, "screen", &n);
    printf("cancel_group(\"screen\"): %zu request(s)\n", n);

    nc_client_free(c); /* waits for every callback: all have run by now */
    int ok = one.calls == 1 && one.cancelled && a.calls == 1 && a.cancelled && b.calls == 1 &&
             b.cancelled && n == 2;
    if (!ok) fprintf(stderr, "unexpected: not every request was cancelled exactly once\n");
    return ok ? 0 : 1;
}
