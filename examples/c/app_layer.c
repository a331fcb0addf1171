/* app_layer.c — an app's network layer in one place: the endpoint catalog, the
 * token, a global error handler (the "toast" every screen would otherwise write)
 * and the auth-expired handler ("please log in again"), around business code that
 * only names endpoints and handles success.
 * usage: app_layer http://127.0.0.1:8080/api
 */
#include <netcore.h>
#include <stdio.h>
#include <string.h>

/* One place shows failures: every failed request but cancellations and the ones
 * flagged NC_REQUEST_SKIP_ERROR_HANDLER, just before its own completion. */
static void show_toast(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    (void)userdata;
    printf("[toast] %s\n", nc_error_message(err));
}

/* Once per expiry, however many requests fail with it; re-armed by a new token. */
static void ask_to_log_in(const nc_response *resp, const nc_error *err, void *userdata) {
    (void)resp;
    (void)err;
    int *expiries = userdata;
    (*expiries)++;
    printf("[auth] session expired: please log in again\n");
}

/* Calls an endpoint; prints its data on success. Failures were shown by the toast. */
static int call(nc_client *c, const char *endpoint, const char *params) {
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int ok = nc_client_call_sync(c, endpoint, params, params ? strlen(params) : 0, &resp, &err) == NC_OK;
    if (ok) printf("%s: %s\n", endpoint, nc_response_data_json(resp, NULL));
    nc_response_free(resp);
    nc_error_free(err);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    char config[1024];
    snprintf(
        config, sizeof config,
        "{\"base_url\":\"%s\","
        "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\","
        "\"auth_expired_codes\":[401001]},"
        "\"endpoints\":{\"user.login\":{\"method\":\"POST\",\"path\":\"/login\",\"encoding\":\"json\"},"
        "\"user.get\":{\"path\":\"/users/{id}\"},\"user.profile\":{\"path\":\"/profile\"}}}",
        argv[1]);
    nc_client *c = NULL;
    nc_error *err = NULL;
    if (nc_client_new(config, &c, &err) != NC_OK) {
        fprintf(stderr, "config: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    int expiries = 0;
    nc_client_set_error_handler(c, show_toast, NULL);
    nc_client_set_auth_expired_handler(c, ask_to_log_in, &expiries);

    /* Not logged in yet: the toast shows it, the auth handler asks to log in. */
    call(c, "user.profile", NULL);

    /* Log in; the token goes on every later request (Authorization: Bearer). */
    nc_response *resp = NULL;
    const char *creds = "{\"username\":\"ada\",\"password\":\"secret\"}";
    if (nc_client_call_sync(c, "user.login", creds, strlen(creds), &resp, &err) != NC_OK) {
        nc_error_free(err);
        nc_client_free(c);
        return 1;
    }
    nc_client_set_token(c, json_string_value(json_object_get(nc_response_data(resp), "token")));
    nc_response_free(resp);

    call(c, "user.profile", NULL);
    call(c, "user.get", "{\"id\":7}");
    call(c, "user.get", "{\"id\":99}"); /* a business error: the toast shows it */

    /* A screen that handles this failure itself opts out of the toast. */
    nc_request *r = NULL;
    nc_request_new_endpoint("user.get", &r);
    nc_request_set_params_json(r, "{\"id\":42}", 9);
    nc_request_set_flags(r, NC_REQUEST_SKIP_ERROR_HANDLER);
    if (nc_client_send_sync(c, r, &resp, &err) != NC_OK)
        printf("screen: %s (handled here)\n", nc_error_message(err));
    nc_response_free(resp);
    nc_error_free(err);
    resp = NULL;
    err = NULL;
    nc_request_free(r);

    /* The token is dropped: two requests fail as expired, the app asks once. */
    nc_client_set_token(c, NULL);
    call(c, "user.profile", NULL);
    call(c, "user.profile", NULL);
    printf("expiries: %d\n", expiries);

    nc_client_free(c);
    return expiries == 2 ? 0 : 1;
}
