/* quickstart.c — usage: quickstart http://127.0.0.1:8080/api */
#include <netcore.h>
#include <stdio.h>

int main(int argc, char **argv) {
    char config[1024];
    nc_client *client = NULL;
    nc_request *req = NULL;
    nc_response *resp = NULL;
    nc_error *err = NULL;
    int rc = 1;

    if (argc != 2) return fprintf(stderr, "usage: %s BASE_URL\n", argv[0]), 2;
    snprintf(config, sizeof config,
             "{\"base_url\":\"%s\",\"envelope\":{\"code\":\"code\","
             "\"ok_codes\":[0],\"message\":\"msg\",\"data\":\"data\"}}",
             argv[1]);

    if (nc_client_new(config, &client, &err) == NC_OK &&
        nc_request_new("GET", "/env/code/ok", &req) == NC_OK &&
        nc_client_send_sync(client, req, &resp, &err) == NC_OK) {
        printf("data: %s\n", nc_response_data_json(resp, NULL)); /* {"id":7,"name":"Ada"} */
        rc = 0;
    } else {
        fprintf(stderr, "error: %s\n", nc_error_message(err));
    }
    nc_response_free(resp);
    nc_error_free(err);
    nc_request_free(req);
    nc_client_free(client);
    return rc;
}
