/*
 * batch.c — several requests, one completion, results in the order added.
 *
 *   usage: batch http://127.0.0.1:8080/api
 *
 * A screen that needs a user, a missing user and a greeting sends
 * them as one batch (NC_BATCH_SETTLE: wait for all), frees the batch at once (a
 * sent batch keeps itself) and prints each result in order when the batch ends.
 * Then NC_BATCH_FAIL_FAST, where the missing user cancels the two slow requests
 * still running.
 */
#define _POSIX_C_SOURCE 200809L
#include <netcore.h>
#include <pthread.h>
#include <stdio.h>

static const char *const PATHS[][3] = {
    {"/users/7", "/users/99", "/env/code/ok"},       /* settle */
    {"/slow?ms=5000", "/users/99", "/slow?ms=4000"}, /* fail fast */
};

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    const char *const *paths;
};

/* Runs once, on the client's transfer thread, when every member has ended. */
static void on_batch(const nc_batch *batch, void *userdata) {
    struct waiter *w = userdata;
    size_t n = nc_batch_count(batch);
    for (size_t i = 0; i < n; i++) {
        const nc_error *e = nc_batch_error(batch, i);
        if (e == NULL)
            printf("%zu %s: %s\n", i, w->paths[i],
                   nc_response_data_json(nc_batch_response(batch, i), NULL));
        else if (nc_error_domain(e) == NC_DOMAIN_CLIENT && nc_error_code(e) == NC_CLIENT_CANCELLED)
            printf("%zu %s: cancelled\n", i, w->paths[i]);
        else if (nc_error_domain(e) == NC_DOMAIN_API)
            printf("%zu %s: business error %s: %s\n", i, w->paths[i], nc_error_code_str(e),
                   nc_error_message(e));
        else printf("%zu %s: %s %s\n", i, w->paths[i], nc_error_domain_name(e), nc_error_code_str(e));
    }
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Sends PATHS[which] as one batch with `policy` and waits for its completion. */
static int run(nc_client *client, int which, int32_t policy) {
    struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PATHS[which]};
    nc_batch *batch = NULL;
    if (nc_batch_new(client, policy, &batch) != NC_OK) return 1;
    for (int i = 0; i < 3; i++) {
        nc_request *req = NULL;
        if (nc_request_new("GET", PATHS[which][i], &req) != NC_OK) return 1;
        nc_batch_add(batch, req); /* copied: the request may go now */
        nc_request_free(req);
    }
    nc_status st = nc_batch_send(batch, on_batch, &w, NULL);
    nc_batch_free(batch); /* the sent batch keeps itself until on_batch has run */
    if (st != NC_OK) return 1;
    pthread_mutex_lock(&w.lock);
    while (!w.done) pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    return 0;
}

int main(int argc, char **argv) {
    char config[1024];
    nc_client *client = NULL;
    nc_error *err = NULL;
    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{\"code\":\"code\","
             "\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}}",
             argv[1]);
    if (nc_client_new(config, &client, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    printf("settle:\n");
    int rc = run(client, 0, NC_BATCH_SETTLE);
    printf("fail fast:\n");
    rc |= run(client, 1, NC_BATCH_FAIL_FAST);
    nc_client_free(client);
    return rc;
}
