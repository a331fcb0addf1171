/*
 * fuzz_config.c — libFuzzer target: the configuration parser and its checks
 * (nc_client_new). Any input must give NC_OK with a client or a refusal with an
 * error whose message is not empty; never a crash, a hang or a leak.
 * Built and run by `make fuzz` (Tests/fuzz/run.sh); seeds in corpus/config.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netcore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    nc_client *client = NULL;
    nc_error *err = NULL;
    nc_status st = nc_client_new(text, &client, &err);
    if (st == NC_OK) {
        if (!client || err) abort();
        nc_client_free(client);
    } else {
        if (client) abort();
        if (err && (!nc_error_message(err) || !nc_error_message(err)[0])) abort();
        nc_error_free(err);
    }
    free(text);
    return 0;
}
