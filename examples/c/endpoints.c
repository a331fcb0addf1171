/* endpoints.c — a small "UserManager" built on the endpoint catalog.
 * usage: endpoints http://127.0.0.1:8080/api
 *
 * The endpoints are named once (in the configuration, and one at run time);
 * the business code then calls them by name with JSON params: no URLs, methods
 * or encodings scattered through the app. */
#include <netcore.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    nc_client *client;
} user_manager;

/* Prints an error the way an app would show it; returns 1. */
static int show_error(const char *what, const nc_error *err) {
    if (nc_error_domain(err) == NC_DOMAIN_API)
        printf("%s: business error %s: %s\n", what, nc_error_code_str(err), nc_error_message(err));
    else printf("%s: %s error: %s\n", what, nc_error_domain_name(err), nc_error_message(err));
    return 1;
}

/* POST /user/login with a JSON body; on success copies the token into `token`. */
static int user_login(user_manager *m, const char *user, const char *password, char *token,
                      size_t size) {
    char params[256];
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int rc = 1;
    snprintf(params, sizeof params, "{\"username\":\"%s\",\"password\":\"%s\"}", user, password);
    if (nc_client_call_sync(m->client, "user.login", params, strlen(params), &resp, &err) == NC_OK) {
        json_t *t = json_object_get(nc_response_data(resp), "token");
        if (json_is_string(t)) {
            snprintf(token, size, "%s", json_string_value(t));
            rc = 0;
        }
    } else {
        rc = show_error("login", err);
    }
    nc_response_free(resp);
    nc_error_free(err);
    return rc;
}

/* GET /users/{id}, through a request builder naming the endpoint. */
static int user_get(user_manager *m, int id) {
    char params[64];
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int rc = 1;
    snprintf(params, sizeof params, "{\"id\":%d}", id);
    if (nc_request_new_endpoint("user.get", &req) != NC_OK ||
        nc_request_set_params_json(req, params, strlen(params)) != NC_OK) {
        fprintf(stderr, "could not build the request\n");
    } else if (nc_client_send_sync(m->client, req, &resp, &err) == NC_OK) {
        printf("user %d: %s\n", id, nc_response_data_json(resp, NULL));
        rc = 0;
    } else {
        char what[32];
        snprintf(what, sizeof what, "user %d", id);
        rc = show_error(what, err);
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    return rc;
}

int main(int argc, char **argv) {
    char config[1024], token[128], bearer[160];
    user_manager m = {NULL};
    nc_error *err = NULL;
    nc_response *resp = NULL;
    int failures = 0;

    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    snprintf(
        config, sizeof config,
        "{\"base_url\":\"%s\","
        "\"envelope\":{\"code\":\"code\",\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"},"
        "\"endpoints\":{\"user.login\":{\"method\":\"POST\",\"path\":\"/login\",\"encoding\":\"json\"},"
        "\"user.get\":{\"method\":\"GET\",\"path\":\"/users/{id}\"}}}",
        argv[1]);
    if (nc_client_new(config, &m.client, &err) != NC_OK) {
        fprintf(stderr, "config: %s\n", nc_error_message(err));
        nc_error_free(err);
        return 1;
    }
    /* One more endpoint, defined at run time. */
    if (nc_client_define_endpoint(m.client, "user.profile", "{\"path\":\"/profile\"}") != NC_OK) {
        fprintf(stderr, "define_endpoint failed\n");
        failures++;
    }

    if (user_login(&m, "ada", "secret", token, sizeof token) == 0) {
        printf("token: %s\n", token);
        snprintf(bearer, sizeof bearer, "Bearer %s", token);
        nc_client_set_header(m.client, "Authorization", bearer);
    } else {
        failures++;
    }
    if (nc_client_call_sync(m.client, "user.profile", NULL, 0, &resp, &err) == NC_OK)
        printf("profile: %s\n", nc_response_data_json(resp, NULL));
    else failures += show_error("profile", err);
    nc_response_free(resp);
    nc_error_free(err);

    failures += user_get(&m, 7);
    /* A business error: the server says no. */
    if (user_get(&m, 99) == 0) failures++;
    /* A wrong password is a business error too. */
    if (user_login(&m, "ada", "nope", token, sizeof token) == 0) failures++;

    nc_client_free(m.client);
    return failures == 0 ? 0 : 1;
}
