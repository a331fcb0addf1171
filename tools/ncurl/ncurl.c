/* ncurl — try an API in one minute, through libnetcore's public C API only
 * (include/netcore.h, and jansson to read items and print JSON).
 *
 *   ncurl [options] METHOD PATH [ITEM...]
 *   ncurl [options] call ENDPOINT [ITEM...]
 *
 * Prints the envelope's data, pretty-printed, on standard output; on failure the
 * error (domain, code, message, trace id) on standard error, and exits with the
 * domain's number (1 CLIENT .. 5 PARSE). The manual is ncurl.1; `ncurl --help`
 * summarises it. */
#include <netcore.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses: 0 success, the error domain's number (NC_DOMAIN_CLIENT 1 ..
 * NC_DOMAIN_PARSE 5) for a failed request, and sysexits.h's numbers for the rest. */
enum { EXIT_USAGE = 64, EXIT_NOINPUT = 66, EXIT_SOFTWARE = 70 };

static const char USAGE[] =
    "usage: ncurl [options] METHOD PATH [ITEM...]\n"
    "       ncurl [options] call ENDPOINT [ITEM...]\n"
    "\n"
    "Sends one request with libnetcore and prints the response's data (the envelope's\n"
    "data, or the body in raw mode) pretty-printed on stdout. PATH is joined to the\n"
    "configuration's base URL, or is an absolute http(s) URL. `call` sends the\n"
    "configuration's endpoint ENDPOINT (\"endpoints\" key), its {placeholders} filled\n"
    "from the items.\n"
    "\n"
    "options:\n"
    "  -c, --config FILE    client configuration, JSON (docs/configuration.md);\n"
    "                       default {}: raw mode, absolute URLs\n"
    "  -b, --base-url URL   the base URL (over the configuration's)\n"
    "  -e, --env NAME       the configuration's environment NAME (\"environments\")\n"
    "  -H, --header 'K: V'  a request header (repeatable)\n"
    "  -r, --raw            raw mode: no envelope check, the whole body is the data\n"
    "      --json | --form | --query\n"
    "                       how the items are sent (default: query string for GET,\n"
    "                       HEAD, DELETE, OPTIONS, a form body otherwise)\n"
    "  -t, --timeout MS     the request's timeout in milliseconds (0: none)\n"
    "  -v, --verbose        the event log with timings, and the response's\n"
    "                       status and headers, on stderr\n"
    "  -V, --version        ncurl's and libnetcore's versions\n"
    "  -h, --help           this text\n"
    "\n"
    "items:\n"
    "  key=value            a string parameter\n"
    "  key:=json            a JSON parameter (number, true, null, [..], {..})\n"
    "\n"
    "exit status: 0 success; 1 CLIENT, 2 TRANSPORT, 3 HTTP, 4 API, 5 PARSE error\n"
    "(the error's domain); 64 bad usage; 66 configuration file unreadable.\n";

struct options {
    const char *config_path;
    const char *base_url;
    const char *environment;
    const char *headers[64];
    int header_count;
    int raw;
    int encoding;         /* -1: the library's default */
    long long timeout_ms; /* -1: the configuration's */
    int verbose;
    const char *method; /* NULL with `call` */
    const char *target; /* PATH, or the endpoint's name with `call` */
    char **items;
    int item_count;
};

static int usage_error(const char *what, const char *arg) {
    fprintf(stderr, "ncurl: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "Try 'ncurl --help'.\n");
    return EXIT_USAGE;
}

/* Reads a whole file as a NUL-terminated string (NULL and errno on failure). */
static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    if (!f) return NULL;
    do {
        if (cap - len < 4096) {
            char *grown = realloc(text, cap + 65536);
            if (!grown) {
                free(text);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            text = grown;
            cap += 65536;
        }
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
    } while (n > 0);
    if (ferror(f)) {
        free(text);
        fclose(f);
        errno = EIO;
        return NULL;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Parses the command line into `o` (options may come before, between or after
 * the words; "--" ends them); returns 0, or the exit status to stop with (-1:
 * --help or --version was printed, exit 0). `argv` is reordered: words first. */
static int parse_options(int argc, char **argv, struct options *o) {
    int i, words = 0, options_done = 0;
    memset(o, 0, sizeof *o);
    o->encoding = -1;
    o->timeout_ms = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = NULL;
        int takes_value;
        if (options_done || a[0] != '-' || a[1] == '\0') {
            argv[1 + words++] = argv[i]; /* i >= 1 + words: never overwrites an unread one */
            continue;
        }
        if (!strcmp(a, "--")) {
            options_done = 1;
            continue;
        }
        takes_value = !strcmp(a, "-c") || !strcmp(a, "--config") || !strcmp(a, "-b") ||
                      !strcmp(a, "--base-url") || !strcmp(a, "-e") || !strcmp(a, "--env") ||
                      !strcmp(a, "-H") || !strcmp(a, "--header") || !strcmp(a, "-t") ||
                      !strcmp(a, "--timeout");
        if (takes_value) {
            if (i + 1 >= argc) return usage_error("option needs a value", a);
            value = argv[++i];
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return -1;
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("ncurl %s (libnetcore %s)\n", NC_VERSION_STRING, nc_version());
            return -1;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            o->config_path = value;
        } else if (!strcmp(a, "-b") || !strcmp(a, "--base-url")) {
            o->base_url = value;
        } else if (!strcmp(a, "-e") || !strcmp(a, "--env")) {
            o->environment = value;
        } else if (!strcmp(a, "-H") || !strcmp(a, "--header")) {
            if (o->header_count == (int)(sizeof o->headers / sizeof o->headers[0]))
                return usage_error("too many headers", value);
            o->headers[o->header_count++] = value;
        } else if (!strcmp(a, "-t") || !strcmp(a, "--timeout")) {
            char *end = NULL;
            errno = 0;
            o->timeout_ms = strtoll(value, &end, 10);
            if (errno || end == value || *end != '\0' || o->timeout_ms < 0)
                return usage_error("--timeout wants milliseconds, 0 or more", value);
        } else if (!strcmp(a, "-r") || !strcmp(a, "--raw")) {
            o->raw = 1;
        } else if (!strcmp(a, "--json")) {
            o->encoding = NC_ENCODING_JSON;
        } else if (!strcmp(a, "--form")) {
            o->encoding = NC_ENCODING_FORM;
        } else if (!strcmp(a, "--query")) {
            o->encoding = NC_ENCODING_QUERY;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else {
            return usage_error("unknown option", a);
        }
    }
    if (words == 0) return usage_error("missing METHOD and PATH (or: call ENDPOINT)", NULL);
    o->method = strcmp(argv[1], "call") ? argv[1] : NULL;
    if (words < 2) return usage_error(o->method ? "missing PATH" : "missing ENDPOINT", NULL);
    o->target = argv[2];
    o->items = argv + 3;
    o->item_count = words - 2;
    return 0;
}

/* The items as one JSON object (a new reference), or NULL with a usage message. */
static json_t *items_to_params(const struct options *o) {
    json_t *params = json_object();
    int i;
    if (!params) return NULL;
    for (i = 0; i < o->item_count; i++) {
        const char *item = o->items[i];
        const char *eq = strchr(item, '=');
        json_t *value;
        char *key;
        size_t key_len;
        int is_json;
        if (!eq || eq == item) {
            usage_error("an item is key=value or key:=json", item);
            json_decref(params);
            return NULL;
        }
        is_json = eq > item + 1 && eq[-1] == ':';
        key_len = (size_t)(eq - item) - (is_json ? 1 : 0);
        if (is_json) {
            json_error_t error;
            value = json_loads(eq + 1, JSON_DECODE_ANY, &error);
            if (!value) {
                fprintf(stderr, "ncurl: %s: not JSON: %s\n", item, error.text);
                usage_error("a key:=json item needs a JSON value", NULL);
                json_decref(params);
                return NULL;
            }
        } else {
            value = json_string(eq + 1);
        }
        key = malloc(key_len + 1);
        if (!key || !value) {
            free(key);
            json_decref(value);
            json_decref(params);
            return NULL;
        }
        memcpy(key, item, key_len);
        key[key_len] = '\0';
        json_object_set_new(params, key, value);
        free(key);
    }
    return params;
}

/* The configuration text for nc_client_new: the file (or "{}"), with --base-url
 * set in it. Returns a new string, or NULL having printed why (*status set). */
static char *configuration(const struct options *o, int *status) {
    char *text = NULL;
    json_t *config;
    json_error_t error;
    if (o->config_path) {
        text = read_file(o->config_path);
        if (!text) {
            fprintf(stderr, "ncurl: cannot read %s: %s\n", o->config_path, strerror(errno));
            *status = EXIT_NOINPUT;
            return NULL;
        }
    }
    if (!o->base_url) {
        if (text) return text;
        text = malloc(3);
        if (text) memcpy(text, "{}", 3);
        return text;
    }
    /* The library reports a bad configuration itself; here it only has to parse. */
    config = json_loads(text ? text : "{}", 0, &error);
    free(text);
    if (!config || !json_is_object(config)) {
        fprintf(stderr, "ncurl: %s: not a JSON object: %s\n", o->config_path, config ? "" : error.text);
        json_decref(config);
        *status = NC_DOMAIN_CLIENT;
        return NULL;
    }
    json_object_set_new(config, "base_url", json_string(o->base_url));
    text = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    return text;
}

/* ---- --verbose: the event log ----------------------------------------------------- */

static double ms(json_t *object, const char *key) {
    return json_number_value(json_object_get(object, key)) / 1000.0;
}

/* One event (docs: nc_client_set_event_handler) as one line on stderr. */
static void print_event(const char *event_json, size_t len, void *userdata) {
    json_t *e = json_loadb(event_json, len, 0, NULL);
    const char *kind = json_string_value(json_object_get(e, "event"));
    json_t *timings = json_object_get(e, "timings");
    (void)userdata;
    if (!kind) {
        fprintf(stderr, "* %.*s\n", (int)len, event_json);
    } else if (!strcmp(kind, "request_start")) {
        fprintf(stderr, "* request %lld: %s %s\n",
                (long long)json_integer_value(json_object_get(e, "id")),
                json_string_value(json_object_get(e, "method")),
                json_string_value(json_object_get(e, "url")));
    } else if (!strcmp(kind, "attempt_end")) {
        json_t *status = json_object_get(e, "status");
        fprintf(stderr,
                "* attempt %lld: ", (long long)json_integer_value(json_object_get(e, "attempt")));
        if (json_is_integer(status)) fprintf(stderr, "HTTP %lld", (long long)json_integer_value(status));
        else
            fprintf(stderr, "%s %lld", json_string_value(json_object_get(e, "domain")),
                    (long long)json_integer_value(json_object_get(e, "code")));
        if (json_is_object(timings))
            fprintf(stderr, ", %.3f ms (dns %.3f, connect %.3f, tls %.3f, first byte %.3f ms)",
                    ms(timings, "total"), ms(timings, "dns"), ms(timings, "connect"), ms(timings, "tls"),
                    ms(timings, "first_byte"));
        if (json_is_integer(json_object_get(e, "bytes")))
            fprintf(stderr, ", %lld bytes", (long long)json_integer_value(json_object_get(e, "bytes")));
        fputc('\n', stderr);
    } else if (!strcmp(kind, "retry")) {
        fprintf(stderr, "* retry in %lld ms: %s\n",
                (long long)json_integer_value(json_object_get(e, "delay_ms")),
                json_string_value(json_object_get(e, "reason")));
    } else if (!strcmp(kind, "request_end")) {
        json_t *domain = json_object_get(e, "domain");
        fprintf(stderr, "* done in %.3f ms: ", ms(e, "elapsed_us"));
        if (json_is_string(domain))
            fprintf(stderr, "%s %lld\n", json_string_value(domain),
                    (long long)json_integer_value(json_object_get(e, "code")));
        else fprintf(stderr, "success\n");
    } else {
        fprintf(stderr, "* %.*s\n", (int)len, event_json);
    }
    json_decref(e);
}

static void print_response_head(const nc_response *response) {
    size_t i, n = nc_response_header_count(response);
    fprintf(stderr, "< HTTP %d (%s)\n", (int)nc_response_status(response), nc_response_url(response));
    for (i = 0; i < n; i++) {
        const char *name = NULL, *value = NULL;
        if (nc_response_header_at(response, i, &name, &value) == NC_OK)
            fprintf(stderr, "< %s: %s\n", name, value);
    }
}

/* ---- output ------------------------------------------------------------------------- */

static const char *domain_word(nc_domain domain) {
    switch (domain) {
    case NC_DOMAIN_CLIENT:
        return "CLIENT";
    case NC_DOMAIN_TRANSPORT:
        return "TRANSPORT";
    case NC_DOMAIN_HTTP:
        return "HTTP";
    case NC_DOMAIN_API:
        return "API";
    case NC_DOMAIN_PARSE:
        return "PARSE";
    default:
        return "UNKNOWN";
    }
}

/* The error on stderr; returns the exit status (its domain). */
static int report_error(const nc_error *error, int verbose) {
    nc_domain domain = nc_error_domain(error);
    const char *trace = nc_error_trace_id(error);
    fprintf(stderr, "ncurl: %s %s: %s\n", domain_word(domain), nc_error_code_str(error),
            nc_error_message(error));
    if (trace && *trace) fprintf(stderr, "ncurl: trace id %s\n", trace);
    if (verbose) fprintf(stderr, "ncurl: %s\n", nc_error_json(error));
    return domain >= NC_DOMAIN_CLIENT && domain <= NC_DOMAIN_PARSE ? (int)domain : EXIT_SOFTWARE;
}

/* The data pretty-printed; a raw body that is not JSON as it came. */
static int print_data(const nc_response *response) {
    json_t *data = nc_response_data(response);
    if (data) {
        char *text = json_dumps(data, JSON_INDENT(2) | JSON_ENCODE_ANY);
        if (!text) return EXIT_SOFTWARE;
        puts(text);
        free(text);
    } else {
        size_t len = 0;
        const void *body = nc_response_body(response, &len);
        json_t *whole = nc_response_json(response);
        if (len > 0 && !whole) {
            fwrite(body, 1, len, stdout);
        } else {
            puts("null");
        }
    }
    return fflush(stdout) == 0 ? 0 : EXIT_SOFTWARE;
}

/* Sets up the request from the options; returns 0 or an exit status. */
static int build_request(const struct options *o, nc_request **request_out) {
    nc_request *request = NULL;
    json_t *params = NULL;
    nc_status st;
    int i;
    st = o->method ? nc_request_new(o->method, o->target, &request)
                   : nc_request_new_endpoint(o->target, &request);
    if (st != NC_OK)
        return usage_error(o->method ? "bad METHOD or PATH" : "bad ENDPOINT name", o->target);
    for (i = 0; i < o->header_count; i++) {
        const char *h = o->headers[i];
        const char *colon = strchr(h, ':');
        char *name;
        const char *value;
        if (!colon || colon == h) {
            nc_request_free(request);
            return usage_error("a header is 'Name: value'", h);
        }
        name = malloc((size_t)(colon - h) + 1);
        if (!name) {
            nc_request_free(request);
            return EXIT_SOFTWARE;
        }
        memcpy(name, h, (size_t)(colon - h));
        name[colon - h] = '\0';
        for (value = colon + 1; *value == ' ' || *value == '\t'; value++) {}
        st = nc_request_set_header(request, name, value);
        free(name);
        if (st != NC_OK) {
            nc_request_free(request);
            return usage_error("bad header (control characters or invalid UTF-8)", h);
        }
    }
    if (o->item_count > 0) {
        params = items_to_params(o);
        if (!params) {
            nc_request_free(request);
            return EXIT_USAGE;
        }
        st = nc_request_set_params(request, params);
        json_decref(params);
        if (st != NC_OK) {
            nc_request_free(request);
            return usage_error("bad items", nc_status_str(st));
        }
    }
    if (o->encoding >= 0) nc_request_set_encoding(request, o->encoding);
    if (o->raw) nc_request_set_envelope(request, 0);
    if (o->timeout_ms >= 0) nc_request_set_timeout_ms(request, (int64_t)o->timeout_ms);
    *request_out = request;
    return 0;
}

int main(int argc, char **argv) {
    struct options o;
    nc_client *client = NULL;
    nc_request *request = NULL;
    nc_response *response = NULL;
    nc_error *error = NULL;
    char *config;
    int status = parse_options(argc, argv, &o);
    if (status != 0) return status < 0 ? 0 : status;

    status = 0;
    config = configuration(&o, &status);
    if (!config) return status ? status : EXIT_SOFTWARE;
    if (nc_client_new(config, &client, &error) != NC_OK) {
        free(config);
        status = error ? report_error(error, o.verbose) : EXIT_SOFTWARE;
        nc_error_free(error);
        return status;
    }
    free(config);
    if (o.environment && nc_client_set_environment(client, o.environment) != NC_OK) {
        nc_client_free(client);
        return usage_error("no such environment in the configuration", o.environment);
    }
    if (o.verbose) nc_client_set_event_handler(client, print_event, NULL);

    status = build_request(&o, &request);
    if (status == 0) {
        nc_status st = nc_client_send_sync(client, request, &response, &error);
        if (o.verbose && response) print_response_head(response);
        if (st == NC_OK) {
            status = print_data(response);
        } else if (error) {
            status = report_error(error, o.verbose);
        } else {
            fprintf(stderr, "ncurl: %s\n", nc_status_str(st));
            status = EXIT_SOFTWARE;
        }
    }
    nc_response_free(response);
    nc_error_free(error);
    nc_request_free(request);
    nc_client_free(client);
    return status;
}
