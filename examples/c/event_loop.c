/* event_loop.c — libnetcore inside your own poll() loop ("callbacks": "queue").
 * usage: event_loop http://127.0.0.1:8080/api
 *
 * In queue mode no callback runs on the client's thread: completions wait until
 * you call nc_client_dispatch(), which runs them on your thread. nc_client_fd() is
 * readable while some wait, so it goes into poll() (or epoll, libuv, GLib, …) next
 * to your other descriptors — here standard input, to show the loop serving both.
 * Exits 1 unless all three requests completed, each once, on this thread. */
#include <netcore.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_t loop_thread;
static int completed, unexpected;

static void on_done(const nc_response *resp, const nc_error *err, void *userdata) {
    const char *path = userdata;
    if (!pthread_equal(pthread_self(), loop_thread)) unexpected++; /* never: we dispatch */
    completed++;
    if (err) {
        printf("%s failed: %s\n", path, nc_error_message(err));
        unexpected++;
    } else {
        printf("%s -> %s\n", path, nc_response_data_json(resp, NULL));
    }
}

int main(int argc, char **argv) {
    static const char *paths[] = {"/users/7", "/env/code/ok", "/slow?ms=200"};
    enum { N = sizeof paths / sizeof paths[0] };
    char config[512];
    nc_client *c = NULL;
    nc_error *err = NULL;

    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    loop_thread = pthread_self();
    snprintf(config, sizeof config, "{\"base_url\":\"%s\",\"envelope\":{},\"callbacks\":\"queue\"}",
             argv[1]);
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    for (int i = 0; i < N; i++) {
        nc_request *req = NULL;
        if (nc_request_new("GET", paths[i], &req) != NC_OK ||
            nc_client_send(c, req, on_done, (void *)paths[i], NULL) != NC_OK)
            unexpected++;
        nc_request_free(req);
    }

    /* The loop: libnetcore's descriptor next to stdin, until every request is done. */
    struct pollfd fds[2] = {{nc_client_fd(c), POLLIN, 0}, {0 /* stdin */, POLLIN, 0}};
    int idle = 0;
    while (completed < N && idle < 30) {
        int ready = poll(fds, 2, 1000 /* ms */);
        if (ready == 0) idle++; /* nothing for a second: give up after 30 */
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            nc_client_dispatch(c); /* runs the waiting completions here */
            printf("dispatched: %d/%d done\n", completed, N);
        }
        if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP)))
            fds[1].fd = -1; /* stdin: not ours to read here */
    }
    nc_client_free(c);
    if (completed != N || unexpected)
        fprintf(stderr, "unexpected: %d/%d completed, %d problem(s)\n", completed, N, unexpected);
    return completed == N && !unexpected ? 0 : 1;
}
