/* typed_data.c — the business data into C variables with nc_response_data_unpack.
 *   usage: typed_data http://127.0.0.1:8080/api
 * Prints the user read from GET /users/7, then what a format that does not match
 * the data says (the path of the value, and why). */
#include <netcore.h>
#include <stdio.h>

struct user {
    int id;
    const char *name; /* borrowed from the response: valid until nc_response_free() */
    int vip;          /* optional: stays 0 when the server leaves it out */
};

int main(int argc, char **argv) {
    char config[1024];
    nc_client *client = NULL;
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    struct user u = {0, NULL, 0};
    const char *wrong = NULL;
    int rc = 1;

    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{\"code\":\"code\","
             "\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}}",
             argv[1]);

    if (nc_client_new(config, &client, &err) != NC_OK ||
        nc_request_new("GET", "/users/7", &req) != NC_OK ||
        nc_client_send_sync(client, req, &resp, &err) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        goto done;
    }

    /* data is {"id":7,"name":"Ada"}: two keys that must be there, one that may not. */
    if (nc_response_data_unpack(resp, &err, "{s:i, s:s, s?b}", "id", &u.id, "name", &u.name, "vip",
                                &u.vip) != NC_OK) {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
        goto done;
    }
    printf("user %d: %s (vip: %d)\n", u.id, u.name, u.vip);

    /* A format that expects a string where the server sends a number. */
    if (nc_response_data_unpack(resp, &err, "{s:s}", "id", &wrong) != NC_OK) {
        printf("mismatch: %s (domain %s, code %lld)\n", nc_error_message(err), nc_error_domain_name(err),
               (long long)nc_error_code(err));
        nc_error_free(err);
        err = NULL;
    }
    rc = 0;

done:
    nc_response_free(resp); /* u.name is no longer valid from here */
    nc_error_free(err);
    nc_request_free(req);
    nc_client_free(client);
    return rc;
}
