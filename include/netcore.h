/*
 * netcore.h — the public C API of libnetcore.
 *
 * libnetcore is the network layer an application puts between its business code
 * and HTTP: it builds requests, sends them over libcurl, checks the server's JSON
 * envelope, classifies every failure into one of five error domains and hands the
 * caller either clean business data or one well-described error.
 *
 * This header is the documentation. Conventions that hold for every function:
 *
 *  - Prefix `nc_` / `NC_`; functions are named nc_<object>_<verb>.
 *  - Handles are opaque. `nc_X_new(..., nc_X **out)` gives the caller an owned
 *    handle released with `nc_X_free()`. `nc_X_free(NULL)` is a no-op.
 *  - Out-parameters come last and are written only when the function says so
 *    (normally: only on NC_OK). NULL out-parameters are allowed unless stated.
 *  - Strings returned by accessors are UTF-8, NUL-terminated and BORROWED from the
 *    handle: they stay valid until that handle is freed. Never free them.
 *  - `json_t *` (jansson) arguments are BORROWED (the reference count is not
 *    touched, the value is copied); returned `json_t *` are BORROWED from the
 *    handle and live as long as it. Call json_incref() to keep one longer.
 *    Every JSON input also has a `const char *json, size_t len` form.
 *  - Everything passed to a completion callback is borrowed for the duration of
 *    the call; use nc_response_retain() / nc_error_copy() to keep it.
 *  - Bad input never crashes: NULL handles or strings, unknown enum values,
 *    invalid UTF-8, and CR/LF/NUL in a method, URL, header name or value give
 *    NC_ERR_INVALID_ARGUMENT (or a neutral value from accessors) and nothing is
 *    sent.
 *  - Status codes and error codes are append-only: existing values never change.
 *
 * Threads: nc_client functions may be called from any thread. An nc_request is a
 * builder used by one thread at a time. nc_response and nc_error handles are
 * immutable and may be read from any thread.
 */

/*
 * Contents: the declarations are grouped by object, in this order (each section
 * starts with a banner of the same name).
 *   1. Versions
 *   2. Status codes and errors
 *   3. Client
 *   4. Request builder
 *   5. Endpoint catalog
 *   6. Sending and tasks
 *   7. Responses
 *   8. Hooks: error handler, auth expired, events, logging
 *   9. Hooks: request adapters (nc_outgoing)
 *  10. Hooks: retry policy and retry handler
 *  11. Token refresh
 *  12. Cancellation groups
 *  13. Batches
 *  14. Reachability
 *  15. Response cache
 *  16. Cookies
 *  17. Event-loop integration ("callbacks": "queue")
 *  18. Stubs: canned answers, recording and replay
 */
#ifndef NETCORE_H
#define NETCORE_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define NC_API __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#  define NC_API __attribute__((visibility("default")))
#else
#  define NC_API
#endif

/* Marks a function kept for compatibility: a call compiles and works, with a warning
 * naming its replacement; the next major version may remove it (docs/abi.md).
 * Written before the return type: NC_API NC_DEPRECATED("use nc_y()") int nc_x(void);
 * Define NC_NO_DEPRECATION_WARNINGS before including this header to silence them. */
#if defined(NC_NO_DEPRECATION_WARNINGS)
#  define NC_DEPRECATED(msg)
#elif defined(__GNUC__) || defined(__clang__)
#  define NC_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#  define NC_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#  define NC_DEPRECATED(msg)
#endif

/* ------------------------------------------------------------------------- */
/* 1. Versions                                                               */
/* ------------------------------------------------------------------------- */

#define NC_VERSION_MAJOR 0
#define NC_VERSION_MINOR 3
#define NC_VERSION_PATCH 0
/** 0xMMmmpp: major, minor, patch, one byte each. */
#define NC_VERSION_NUMBER ((NC_VERSION_MAJOR << 16) | (NC_VERSION_MINOR << 8) | NC_VERSION_PATCH)
#define NC_VERSION_STRING "0.3.0"

/**
 * Returns the version of the loaded library as text, e.g. "0.3.0".
 *
 * Ownership: static string; never free it. Never NULL.
 * Thread:    any thread.
 * Returns:   cannot fail.
 * Since:     0.1
 */
NC_API const char *nc_version(void);

/**
 * Returns the version of the loaded library as 0xMMmmpp; compare it with
 * NC_VERSION_NUMBER to detect a header/library mismatch.
 *
 * Ownership: none.
 * Thread:    any thread.
 * Returns:   cannot fail.
 * Since:     0.1
 */
NC_API uint32_t nc_version_number(void);

/* ------------------------------------------------------------------------- */
/* 2. Status codes and errors                                                */
/* ------------------------------------------------------------------------- */

typedef int32_t nc_status;
#define NC_OK                   0 /* success */
#define NC_ERR_INVALID_ARGUMENT 1 /* NULL handle/string, bad value, CR/LF/NUL, bad UTF-8 */
#define NC_ERR_INVALID_STATE    2 /* client shutting down, call from a callback that may not make it */
#define NC_ERR_NO_MEMORY        3 /* an allocation failed */
#define NC_ERR_FAILED           4 /* the operation ran and failed; see the nc_error */

/**
 * Returns a short English name for a status code, e.g. "NC_ERR_INVALID_ARGUMENT".
 *
 * Ownership: static string; never free it. Never NULL ("NC_UNKNOWN_STATUS" for
 *   values this version does not know).
 * Thread:    any thread.
 * Returns:   cannot fail.
 * Since:     0.1
 */
NC_API const char *nc_status_str(nc_status status);

typedef struct nc_error nc_error;
typedef int32_t nc_domain;

#define NC_DOMAIN_CLIENT    1 /* library-defined codes NC_CLIENT_* */
#define NC_DOMAIN_TRANSPORT 2 /* code is the CURLcode, unchanged */
#define NC_DOMAIN_HTTP      3 /* code is the HTTP status; body is not a business envelope */
#define NC_DOMAIN_API       4 /* code is the server's business code from the envelope */
#define NC_DOMAIN_PARSE     5 /* library-defined codes NC_PARSE_* */

/* NC_DOMAIN_CLIENT codes */
#define NC_CLIENT_CANCELLED           1 /* nc_task_cancel() was called */
#define NC_CLIENT_UNREACHABLE         2 /* network known to be unreachable: failed fast */
#define NC_CLIENT_INVALID_REQUEST     3 /* the request cannot be sent (e.g. relative path, no base_url) */
#define NC_CLIENT_INVALID_CONFIG      4  /* nc_client_new(): the configuration is wrong */
#define NC_CLIENT_RESPONSE_TOO_LARGE  5  /* body exceeded limits.max_response_bytes */
#define NC_CLIENT_SHUTDOWN            6  /* nc_client_free() ended the request */
#define NC_CLIENT_HEADERS_TOO_LARGE   7  /* headers exceeded limits.max_header_count/_bytes */
#define NC_CLIENT_INTERNAL            8  /* libcurl could not be set up (out of memory) */
#define NC_CLIENT_ADAPTER_FAILED      9  /* a request adapter refused the request (Since: 0.3) */
#define NC_CLIENT_DEADLINE_EXCEEDED   10 /* deadline_ms ran out across attempts and waits (Since: 0.3) */
#define NC_CLIENT_AUTH_REFRESH_FAILED 11 /* the token refresh it waited for failed (Since: 0.3) */
#define NC_CLIENT_NOT_CACHED          12 /* NC_CACHE_ONLY found no usable stored answer (Since: 0.3) */
#define NC_CLIENT_NO_STUB             13 /* "stubs" mode "only": no stub answers the request (Since: 0.4) */

/* NC_DOMAIN_PARSE codes */
#define NC_PARSE_INVALID_JSON    1 /* body is not JSON (message has line and column) */
#define NC_PARSE_NOT_OBJECT      2 /* body is JSON but not an object */
#define NC_PARSE_MISSING_FIELD   3 /* a configured envelope field is absent */
#define NC_PARSE_FIELD_TYPE      4 /* a configured envelope field has the wrong type */
#define NC_PARSE_DECODING_FAILED 5 /* data did not match a model (Swift, Python, data_unpack) */
#define NC_PARSE_DUPLICATE_KEY   6 /* envelope mode: a key twice in an object (Since: 0.4) */

/**
 * Returns the error's domain (NC_DOMAIN_*).
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API nc_domain nc_error_domain(const nc_error *error);

/**
 * Returns the domain's name for logs: "NCClientErrorDomain",
 * "NCTransportErrorDomain", "NCHTTPErrorDomain", "NCAPIErrorDomain" or
 * "NCParseErrorDomain".
 *
 * Ownership: static string. Never NULL.
 * Thread:    any thread.
 * Returns:   "NCUnknownErrorDomain" if `error` is NULL.
 * Since:     0.1
 */
NC_API const char *nc_error_domain_name(const nc_error *error);

/**
 * Returns the numeric code: NC_CLIENT_* / CURLcode / HTTP status / business code /
 * NC_PARSE_*. A business code sent as a string converts when it is an integer
 * ("1001" -> 1001); otherwise (e.g. "E42") this returns 0 and nc_error_code_str()
 * has the text.
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API int64_t nc_error_code(const nc_error *error);

/**
 * Returns the code as text: for NC_DOMAIN_API the code exactly as the server sent
 * it ("E1001", "4003"; "" if the envelope had no code), for other domains the
 * decimal form of nc_error_code().
 *
 * Ownership: borrowed from `error`. Never NULL.
 * Thread:    any thread.
 * Returns:   "" if `error` is NULL.
 * Since:     0.1
 */
NC_API const char *nc_error_code_str(const nc_error *error);

/**
 * Returns a human-readable message that says what happened and what to do. For
 * NC_DOMAIN_API it is the server's message when the envelope has a non-empty one.
 *
 * Ownership: borrowed from `error`. Never NULL.
 * Thread:    any thread.
 * Returns:   a fixed text if `error` is NULL.
 * Since:     0.1
 */
NC_API const char *nc_error_message(const nc_error *error);

/**
 * Returns the text for people the client's "messages" give this error: the most
 * specific key that matches — "DOMAIN.code" ("API.1001", "TRANSPORT.28",
 * "HTTP.404"; an API code exactly as the server sent it), then for NC_DOMAIN_HTTP
 * the status class ("HTTP.5xx"), then "DOMAIN" ("TRANSPORT") — as installed when
 * the error completed (nc_client_set_messages_json() switches the table). The
 * developer message stays in nc_error_message(). docs/errors.md#messages-for-people.
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   the text; NULL when no key matches, no messages are configured, or
 *   `error` is NULL.
 * Since:     0.4
 */
NC_API const char *nc_error_user_message(const nc_error *error);

/**
 * Returns the HTTP status of the response that produced the error, 0 if no
 * response was received (transport and most client errors).
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API int32_t nc_error_http_status(const nc_error *error);

/**
 * Returns the envelope's trace id: the field named by envelope.trace_id
 * (default "traceId"; null to disable), as text.
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   NULL if there is none or `error` is NULL.
 * Since:     0.1
 */
NC_API const char *nc_error_trace_id(const nc_error *error);

/**
 * Returns the envelope's data field of a business error (servers often put
 * details there).
 *
 * Ownership: BORROWED reference, lives as long as `error`.
 * Thread:    any thread; do not modify the value.
 * Returns:   NULL if there is none (absent or JSON null) or `error` is NULL.
 * Since:     0.1
 */
NC_API json_t *nc_error_data(const nc_error *error);

/**
 * The same data as nc_error_data(), as compact JSON text.
 *
 * Ownership: borrowed from `error`. `len_out` (may be NULL) receives the length.
 * Thread:    any thread.
 * Returns:   NULL if there is no data or `error` is NULL (then *len_out is not written).
 * Since:     0.1
 */
NC_API const char *nc_error_data_json(const nc_error *error, size_t *len_out);

/**
 * Returns the raw response body that produced the error (not NUL-terminated).
 *
 * Ownership: borrowed from `error`. `len_out` (may be NULL) receives the length.
 * Thread:    any thread.
 * Returns:   NULL with *len_out = 0 when there was no body; NULL if `error` is NULL.
 * Since:     0.1
 */
NC_API const void *nc_error_body(const nc_error *error, size_t *len_out);

/**
 * Returns how many attempts were made (1 when the request was sent once, or a
 * connection to send it was tried; 0 when nothing was sent, e.g. cancelled before
 * start, or a URL libcurl refuses: transport error 3).
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API int32_t nc_error_attempts(const nc_error *error);

/**
 * Returns 1 if sending the same request again may succeed (timeouts, connection
 * failures, HTTP 408/429/500/502/503/504), else 0.
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API int nc_error_is_retryable(const nc_error *error);

/**
 * Returns 1 if this is a business error whose code is listed in
 * envelope.auth_expired_codes ("not logged in / token expired"), else 0.
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `error` is NULL.
 * Since:     0.1
 */
NC_API int nc_error_is_auth_expired(const nc_error *error);

/**
 * Renders every field of the error as one JSON object:
 * {"domain":"NCAPIErrorDomain","domain_code":4,"code":1001,"code_str":"1001",
 *  "message":"...","http_status":200,"trace_id":...,"data":...,"body":"...",
 *  "attempts":1,"retryable":false,"auth_expired":false,"timeout":null,
 *  "user_message":null,
 *  "request":{"method":"GET","url":"...","endpoint":null,"label":null,"id":12}}
 * "user_message" is nc_error_user_message() (Since 0.4), else null. "request"
 * (Since 0.4) is the request the error belongs to, as the nc_error_request_*
 * readers below give it: "method" and "url" (null when the request could not be
 * resolved: an unknown endpoint, a refused parameter), "endpoint", "label"
 * (nc_request_set_label) and "id" (nc_task_id); "request" is null for an error no
 * request produced (nc_client_new's). "timeout" names the time limit that ended the request, else null: "connect"
 * (connect_timeout_ms), "total" (timeout_ms), "idle" (idle_timeout_ms) — each
 * NC_DOMAIN_TRANSPORT 28 — or "deadline" (NC_CLIENT_DEADLINE_EXCEEDED).
 *
 * Ownership: borrowed from `error`. Never NULL for a non-NULL error.
 * Thread:    any thread.
 * Returns:   NULL if `error` is NULL.
 * Since:     0.1
 */
NC_API const char *nc_error_json(const nc_error *error);

/*
 * Which request an error belongs to (Since 0.4). Every error a send delivers —
 * to its completion, to nc_client_send_sync, to the error and auth-expired
 * handlers, to a batch — carries its request: a central error handler can say
 * which call failed. The same values are nc_error_json()'s "request".
 */

/**
 * Returns the method of the request the error belongs to ("GET").
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   the method; NULL when the request could not be resolved (an unknown
 *   endpoint, a parameter its declaration refuses), for an error no request
 *   produced, or if `error` is NULL.
 * Since: 0.4
 */
NC_API const char *nc_error_request_method(const nc_error *error);

/**
 * Returns the URL of the request the error belongs to, as resolved when it was
 * sent (before redirects) and redacted as events show it: no userinfo or
 * fragment, secret query values REDACTED (nc_client_set_event_handler()). For a
 * plain request that could not be resolved, its target as written, redacted.
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   the URL; NULL for a named endpoint that could not be resolved, an
 *   error no request produced, or if `error` is NULL.
 * Since: 0.4
 */
NC_API const char *nc_error_request_url(const nc_error *error);

/**
 * Returns the name of the catalog endpoint the failed request named
 * (nc_request_new_endpoint(), nc_client_call()).
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   the name; NULL for a plain request or if `error` is NULL.
 * Since: 0.4
 */
NC_API const char *nc_error_endpoint(const nc_error *error);

/**
 * Returns the caller's label of the failed request (nc_request_set_label()).
 *
 * Ownership: borrowed from `error`.
 * Thread:    any thread.
 * Returns:   the label; NULL when none was set or if `error` is NULL.
 * Since: 0.4
 */
NC_API const char *nc_error_label(const nc_error *error);

/**
 * Returns the task id of the failed request: nc_task_id() of its task and the
 * "id" of its events (a synchronous send's request has one too).
 *
 * Ownership: `error` is borrowed.
 * Thread:    any thread.
 * Returns:   the id; 0 for an error no request produced, a request never
 *   submitted, or if `error` is NULL.
 * Since: 0.4
 */
NC_API uint64_t nc_error_task_id(const nc_error *error);

/**
 * Returns a handle to the same error that the caller owns (errors are immutable,
 * so this is cheap). Use it to keep an error passed to a callback.
 *
 * Ownership: `error` is borrowed; the result is new, release with nc_error_free().
 * Thread:    any thread.
 * Returns:   NULL if `error` is NULL.
 * Since:     0.1
 */
NC_API nc_error *nc_error_copy(const nc_error *error);

/**
 * Releases an error handle obtained from nc_error_copy(), nc_client_new() or
 * nc_client_send_sync(). Never free the error passed to a callback.
 *
 * Ownership: consumes `error`. NULL is a no-op.
 * Thread:    any thread.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_error_free(nc_error *error);

/* ------------------------------------------------------------------------- */
/* 3. Client                                                                 */
/* ------------------------------------------------------------------------- */

typedef struct nc_client nc_client;

/**
 * Creates a client from a JSON configuration (see docs/configuration.md; "{}" is
 * valid: raw mode, absolute URLs only). Starts the client's transfer thread.
 * Unknown keys and wrong types are rejected with an error naming the key.
 * Proxies come from the configuration's "proxy" when it names one, else from the
 * environment (http_proxy, https_proxy, all_proxy, no_proxy and their upper-case
 * forms, with libcurl's precedence), read once, here: a later change to the
 * environment does not affect this client (docs/configuration.md). Files named by
 * "tls" (ca_file, ca_path, client_cert, client_key) must be readable now, and pins
 * well-formed, or the configuration is refused naming the key (docs/tls.md; TLS
 * verification cannot be turned off). When "tls" names no ca_file and no ca_path,
 * the CA bundle named by the environment variable CURL_CA_BUNDLE, else
 * SSL_CERT_FILE, is trusted instead of the system store (the configuration wins);
 * read once, here, like the proxies, and not checked here: an https request whose
 * bundle cannot be read fails with TRANSPORT 77 (docs/tls.md).
 *
 * Ownership: `config_json` is borrowed (NUL-terminated UTF-8). On NC_OK,
 *   *client_out receives a new client, released with nc_client_free(). On
 *   failure, if `error_out` is not NULL, *error_out receives a new error
 *   (NC_DOMAIN_CLIENT / NC_CLIENT_INVALID_CONFIG) released with nc_error_free().
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL argument, bad JSON or config);
 *   NC_ERR_FAILED (libcurl or the thread could not be started).
 * Since:     0.1
 */
NC_API nc_status nc_client_new(const char *config_json, nc_client **client_out, nc_error **error_out);

/**
 * Shuts the client down: every request still running completes with
 * NC_CLIENT_SHUTDOWN, and this returns only after every completion callback has
 * returned and the transfer thread has exited. In "callbacks":"queue" mode,
 * completions still queued are run on the calling thread before it returns.
 * Called from inside one of this client's callbacks it is refused: it returns
 * without doing anything and the client stays usable.
 *
 * Ownership: consumes `client`; tasks from it stay valid (nc_task_free them).
 *   NULL is a no-op.
 * Thread:    any thread except this client's callbacks.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_client_free(nc_client *client);

/**
 * Selects the base URL named `name` in the configuration's "environments".
 * Requests sent afterwards use it; requests already sent are unaffected.
 *
 * Ownership: `name` is borrowed.
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL argument or unknown name; the
 *   environment is unchanged).
 * Since:     0.1
 */
NC_API nc_status nc_client_set_environment(nc_client *client, const char *name);

/**
 * Sets a default header sent with every later request (a request's own header of
 * the same name wins). A NULL `value` removes the default header. Without a
 * User-Agent among the client's headers (set here or by the configuration's
 * "headers") or the request's, in any case, the library sends
 * `User-Agent: netcore/<nc_version()> libcurl/<libcurl's version>`; with
 * "compression" (the default) it sends an Accept-Encoding listing every encoding the
 * loaded libcurl decodes (gzip, deflate, br, zstd as built), unless one is set.
 *
 * Ownership: `name` and `value` are borrowed (copied).
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or name, a name that is
 *   not an HTTP token, CR/LF in the value, invalid UTF-8; nothing changes).
 * Since:     0.1
 */
NC_API nc_status nc_client_set_header(nc_client *client, const char *name, const char *value);

/**
 * Sets (NULL `value_json`: removes) one of the "common_params" for requests sent
 * from now on (a request's own param of the same name still wins; requests
 * already sent keep theirs). `value_json` is the value as JSON text: a string
 * ("\"fr\""), a number ("3") or a boolean ("true").
 *
 * Ownership: `name` and `value_json` are borrowed (copied).
 * Thread:    any thread, a callback included.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or name, an empty name,
 *   invalid UTF-8, a value that is not JSON or not a string, number or boolean;
 *   nothing changes).
 * Since: 0.4
 */
NC_API nc_status nc_client_set_common_param(nc_client *client, const char *name, const char *value_json);

/**
 * Replaces the client's "messages" (texts for people by error key,
 * nc_error_user_message()) with the JSON object `json` — a locale switch at run
 * time; NULL or "null" removes them. Errors that complete from now on read the
 * new table (a request sent while no table was installed gets none).
 *
 * Ownership: `json` is borrowed (parsed and copied).
 * Thread:    any thread, a callback included.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, text that is not JSON,
 *   not an object of strings, a key that is not DOMAIN, DOMAIN.code or HTTP.Nxx,
 *   an empty text; nothing changes).
 * Since: 0.4
 */
NC_API nc_status nc_client_set_messages_json(nc_client *client, const char *json);

/**
 * Sets (NULL: clears) the bearer token: every attempt sent from now on carries
 * `Authorization: Bearer <token>`, unless the request has an Authorization header
 * of its own. Read at each attempt, so a retry sends the current token. Wins over
 * nc_client_set_basic_auth(). The token is a credential: never logged, never in an
 * error message, dropped on a redirect to another origin.
 *
 * Ownership: `token` (UTF-8) is copied.
 * Thread:    any thread, including callbacks and adapters.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, empty token, invalid
 *   UTF-8, or CR/LF/control characters) and the token is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_client_set_token(nc_client *client, const char *token);

/**
 * Sets (NULL `user`: clears) basic credentials: every attempt carries
 * `Authorization: Basic base64(user:password)` unless the request has its own
 * Authorization header or a token is set. A credential: never logged, dropped on
 * a redirect to another origin.
 *
 * Ownership: `user` and `password` (UTF-8; NULL password: empty) are copied.
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, a user containing ':',
 *   invalid UTF-8 or control characters) and nothing is changed.
 * Since: 0.3
 */
NC_API nc_status nc_client_set_basic_auth(nc_client *client, const char *user, const char *password);

/**
 * Warms a connection: opens one to the host of `url` (DNS, TCP, TLS, and HTTP/2
 * by ALPN when "http_version" asks for it) on the client's transfer thread and
 * returns without waiting, so that the client's first request to that host
 * (same scheme, host, port and TLS settings) reuses it instead of paying those
 * round trips. For an app's known hosts at start-up. How: a HEAD request to `url`
 * (libcurl 7.88 reuses no connection made with CURLOPT_CONNECT_ONLY), sent bare —
 * the client's default headers and User-Agent, none of its token, basic
 * credentials, adapters or signing; no retry, no reachability wait, no cache, no
 * coalescing, no error or auth-expired handler (docs/roundtrips.md). Any answer
 * of the server (a 404 or 405 too) means the connection is made. The outcome
 * shows where any request's does: the event handler (events of method "HEAD":
 * "request_end" carries the TRANSPORT error when the host could not be reached,
 * e.g. code 7 for a refused connection) and the log handler (WARN for a failure).
 * Within a process, a later connection to the same host and TLS settings resumes
 * the TLS session any client without a cookie jar made (docs/roundtrips.md).
 *
 * Ownership: `url` (UTF-8: an absolute http(s) URL, or a path joined to the
 *   client's current base URL as nc_request_new() takes it) is borrowed (copied).
 *   On failure, if `error_out` is not NULL, *error_out receives a new error
 *   (NC_DOMAIN_CLIENT / NC_CLIENT_INVALID_REQUEST naming the problem, or
 *   NC_CLIENT_SHUTDOWN) released with nc_error_free(); nothing was sent.
 * Thread:    any thread, including from inside a callback or hook.
 * Returns:   NC_OK (the connection is being made); NC_ERR_INVALID_ARGUMENT (NULL
 *   client or url, invalid UTF-8, a url that is neither an http(s) URL nor a path,
 *   a path with no base URL, a URL libcurl refuses: nothing sent);
 *   NC_ERR_INVALID_STATE (the client is shutting down).
 * Since:     0.4
 */
NC_API nc_status nc_client_preconnect(nc_client *client, const char *url, nc_error **error_out);

/* ------------------------------------------------------------------------- */
/* 4. Request builder                                                        */
/* ------------------------------------------------------------------------- */
/* Every nc_request_* function, but nc_request_new_endpoint (under "Endpoint catalog")
 * and nc_request_set_cached_callback (under "Response cache": its nc_complete_fn type
 * is declared under "Sending and tasks"). */

typedef struct nc_request nc_request;

#define NC_ENCODING_DEFAULT 0 /* query for GET/HEAD/DELETE/OPTIONS, form otherwise */
#define NC_ENCODING_QUERY   1 /* params appended to the URL query */
#define NC_ENCODING_FORM    2 /* application/x-www-form-urlencoded body */
#define NC_ENCODING_JSON    3 /* application/json body, nulls kept */

/**
 * Creates a request builder. `method` is an HTTP method (GET, POST, PUT, DELETE,
 * PATCH, HEAD, OPTIONS or another token; letters are upper-cased). `path_or_url`
 * is a path joined to the client's active base URL, or an absolute http(s) URL.
 *
 * Ownership: strings are borrowed (copied). On NC_OK *request_out receives a new
 *   builder, released with nc_request_free().
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL, empty, not a token, CR/LF,
 *   spaces or control characters in the URL, a scheme other than http/https).
 * Since:     0.1
 */
NC_API nc_status nc_request_new(const char *method, const char *path_or_url, nc_request **request_out);

/**
 * Releases a request builder. Requests already sent from it are unaffected.
 *
 * Ownership: consumes `request`. NULL is a no-op.
 * Thread:    the thread that uses the builder.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_request_free(nc_request *request);

/**
 * Sets (replaces) a header of this request; it wins over a client default header
 * of the same name (case-insensitive). A NULL `value` removes this request's header.
 *
 * Ownership: strings are borrowed (copied).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request/name, name not an HTTP
 *   token, CR/LF/control characters in value, invalid UTF-8; nothing changes).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_header(nc_request *request, const char *name, const char *value);

/**
 * Appends a query parameter (percent-encoded when sent). Appending the same name
 * twice sends it twice. A NULL `value` removes every parameter of that name.
 *
 * Ownership: strings are borrowed (copied).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request/name, empty name,
 *   invalid UTF-8).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_query(nc_request *request, const char *name, const char *value);

/**
 * Sets the request's parameters from JSON text: an object whose members are
 * encoded per nc_request_set_encoding(). NC_ENCODING_JSON sends the object as
 * written, every null included at every depth (`{"nickname":null}` in a PATCH
 * clears the field); the query and a form cannot write a null and leave out every
 * null, wherever it is (a member at any depth, an array item). Before 0.4 a JSON
 * body dropped null members too.
 * Replaces earlier params and clears a body set with nc_request_set_body().
 *
 * Ownership: `json` is borrowed (`len` bytes, need not be NUL-terminated).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL, not JSON, not an object,
 *   nested deeper than 512; nothing changes).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_params_json(nc_request *request, const char *json, size_t len);

/**
 * Same as nc_request_set_params_json() with a jansson object.
 *
 * Ownership: `params` is BORROWED: it is copied, its reference count is untouched.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL, not an object, nested deeper
 *   than 512; nothing changes).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_params(nc_request *request, json_t *params);

/**
 * Chooses how params are encoded: NC_ENCODING_DEFAULT, _QUERY, _FORM or _JSON.
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, unknown value).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_encoding(nc_request *request, int32_t encoding);

/**
 * Sets a raw body sent as is, with the given Content-Type (NULL: no Content-Type
 * header unless one was set). Clears params set earlier. `len` may be 0.
 *
 * Ownership: `bytes` (`len` bytes) and `content_type` are borrowed (copied).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, NULL bytes with len>0,
 *   CR/LF in content_type).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_body(nc_request *request, const void *bytes, size_t len,
                                     const char *content_type);

/**
 * Sends the file at `path` as the request's body, streamed as libcurl sends it
 * (never loaded into memory), with `content_type` as its Content-Type (NULL: no
 * Content-Type header unless one was set). Replaces params, a raw body or parts set
 * earlier; a later nc_request_set_body(), nc_request_set_params() or part replaces
 * it. The file is opened when each attempt starts, not now: a missing or unreadable
 * file (or one that is not a regular file) completes the request with
 * NC_DOMAIN_CLIENT / NC_CLIENT_INVALID_REQUEST naming the path, that attempt not
 * sent (attempts counts the earlier ones: 0 on the first). Content-Length is the
 * file's size when the attempt starts (a retry sends the file as it is then); a
 * file that becomes shorter while it is sent fails with NC_DOMAIN_TRANSPORT 26
 * (CURLE_READ_ERROR) naming it — a wrong length is never sent silently. An
 * idempotent request (PUT, …) retried by the retry policy sends the whole file
 * again; a non-idempotent one (POST, …) is never resent by libcurl on its own
 * (docs/uploads.md). With "signing" configured, each attempt hashes the file as it
 * is when the attempt starts (read through once more: docs/signing.md).
 *
 * Ownership: `request` is borrowed; `path` and `content_type` (UTF-8) are copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request or path, empty path,
 *   invalid UTF-8, CR/LF/control characters in content_type) and the request is
 *   unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_set_body_file(nc_request *request, const char *path,
                                          const char *content_type);

/**
 * Appends a part to the request's multipart/form-data body: a form field `name`
 * whose value is `len` bytes at `bytes`, or, with `filename`, an uploaded file of
 * those bytes. libcurl's MIME API writes the body, its boundary and the
 * Content-Type header; names and file names are escaped as browsers do (HTML5:
 * `"`, CR and LF percent-encoded, other bytes as they are). `content_type` NULL: a
 * field has none, bytes with a `filename` get one from its extension, else
 * application/octet-stream. The first part replaces params, a raw body or a
 * body file; parts keep the order they were added in. A non-idempotent multipart
 * request (POST) goes on a connection of its own, so libcurl never resends it by
 * itself. A multipart body cannot be signed (libcurl chooses its boundary while it
 * sends): with "signing" configured the request completes with NC_DOMAIN_CLIENT /
 * NC_CLIENT_INVALID_REQUEST saying so, nothing sent (docs/signing.md).
 *
 * Ownership: `request` is borrowed; `name`, `bytes`, `filename` and `content_type`
 *   are copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request or name, empty name,
 *   NULL bytes with len > 0, invalid UTF-8, CR/LF/control characters in
 *   content_type) and the request is unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_add_part(nc_request *request, const char *name, const void *bytes,
                                     size_t len, const char *filename, const char *content_type);

/**
 * Appends a file part to the request's multipart/form-data body: the file at
 * `path`, streamed by libcurl as the part's content, sent as `filename` (NULL: the
 * path's last component) with `content_type` (NULL: from the file name's
 * extension, else application/octet-stream). The file is checked when each
 * attempt starts: missing or unreadable, the request completes with NC_DOMAIN_CLIENT /
 * NC_CLIENT_INVALID_REQUEST naming it and that attempt is not sent. Its size is taken
 * then (a retry sends the file as it is then: the multipart body is built again);
 * a file that becomes shorter while it is sent fails with NC_DOMAIN_TRANSPORT 26
 * naming it (never a body shorter than its Content-Length). Otherwise as
 * nc_request_add_part().
 *
 * Ownership: `request` is borrowed; `name`, `path`, `filename` and `content_type`
 *   are copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, name or path, empty
 *   name or path, invalid UTF-8, CR/LF/control characters in content_type) and the
 *   request is unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_add_file_part(nc_request *request, const char *name, const char *path,
                                          const char *filename, const char *content_type);

/**
 * Turns envelope validation on (1) or off (0 = raw mode) for this request,
 * overriding the client. Turning it on needs a client with an "envelope" config;
 * otherwise the request completes as raw.
 *
 * Duplicate keys: an envelope is refused when any object of its body has a key
 * twice (NC_DOMAIN_PARSE / NC_PARSE_DUPLICATE_KEY, naming the key; an HTTP error for
 * a status >= 400, as for a body that is not JSON): {"code":7,"code":0} must not be
 * a success to libnetcore and a failure to a proxy that reads the first "code". Raw
 * mode parses the body (nc_response_json, nc_response_data) with jansson's rule:
 * the last value of a key wins.
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, value other than 0/1).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_envelope(nc_request *request, int enabled);

/**
 * Sets this request's total timeout in milliseconds (0 = no limit), overriding
 * the client's timeout_ms (default 0 since 0.4: no total limit; a stall is caught
 * by the idle timeout, nc_request_set_idle_timeout_ms). It bounds all redirect hops together (TRANSPORT 28
 * with "timeout": "total" in nc_error_json when it runs out); each attempt has
 * its own, cut to what is left of the deadline (nc_request_set_deadline_ms).
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, negative value).
 * Since:     0.1
 */
NC_API nc_status nc_request_set_timeout_ms(nc_request *request, int64_t ms);

/**
 * Sets the time this request may take to connect (TCP and TLS), in milliseconds,
 * overriding the client's connect_timeout_ms (default 10000); 0 = libcurl's default (300 s). When
 * it runs out: NC_DOMAIN_TRANSPORT 28 with "timeout": "connect".
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, value outside
 *   0…2147483647) and the request is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_request_set_connect_timeout_ms(nc_request *request, int64_t ms);

/**
 * Sets how long this request may go without receiving or sending a byte, in
 * milliseconds, overriding the client's idle_timeout_ms (default 15000); 0 = no
 * limit. Inactivity, waiting for the first byte of the answer included, once the
 * connection is ready (connect_timeout_ms rules before). Since 0.4 libnetcore
 * measures it itself in milliseconds (libcurl's low-speed check is not used): a
 * stall ends between 1x and 1.25x the limit after the last byte moved, and a body
 * arriving a byte at a time lives as long as it moves. When it fires:
 * NC_DOMAIN_TRANSPORT 28 with "timeout": "idle", the message saying how far the
 * body got ("after 100 of 3000 bytes of the body").
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, value outside
 *   0…2147483647) and the request is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_request_set_idle_timeout_ms(nc_request *request, int64_t ms);

/**
 * Sets this request's deadline in milliseconds, overriding the client's
 * deadline_ms: all its attempts and the waits between them end within it,
 * counted from the start of its first attempt (a wait for the network or for a
 * token refresh before it included). Each attempt's total timeout is cut to what
 * is left; a request that runs out completes with NC_CLIENT_DEADLINE_EXCEEDED
 * ("timeout": "deadline" in nc_error_json), a retry's wait that would end past it
 * is not begun, and a wait for the network (wait_for_network_ms) or for a token
 * refresh ends when it runs out. 0 = no deadline.
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, value outside
 *   0…2147483647) and the request is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_request_set_deadline_ms(nc_request *request, int64_t ms);

/**
 * Sets this request's retry policy over the client's: `json` is a "retry" object
 * (docs/configuration.md) whose keys replace the client's and whose absent keys
 * keep the client's (the defaults when the client has no "retry"), `false` (one
 * attempt), or `null` (back to the client's policy). An endpoint's "retry" applies
 * first, then this. NC_REQUEST_NO_RETRY wins over all of them.
 *
 * Ownership: `json` is borrowed (`len` bytes, need not be NUL-terminated).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request or json, not JSON, not
 *   an object/false/null, an unknown key or a value out of range) and the request
 *   is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_request_set_retry_json(nc_request *request, const char *json, size_t len);

/**
 * Sets how many redirects this request follows, overriding the client's
 * limits.max_redirects; -1 goes back to the client's. With 0 no redirect is
 * followed and a 3xx is the response: in raw mode a success; in envelope mode a
 * body that is an envelope is classified as usual, an empty body is a success
 * with data JSON null, any other body a success with the body as data (as raw
 * mode) — never a PARSE error.
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, or `max` outside
 *   -1…100) and the request is unchanged.
 * Since: 0.3
 */
NC_API nc_status nc_request_set_max_redirects(nc_request *request, int32_t max);

/* Flags of nc_request_set_flags(). */
#define NC_REQUEST_SKIP_ERROR_HANDLER 1 /* the client's error handler is not called for it */
#define NC_REQUEST_NO_COALESCE        2 /* never shares a transfer with identical requests in flight */
#define NC_REQUEST_NO_RETRY           4 /* one attempt, whatever the retry policy */
#define NC_REQUEST_IDEMPOTENT         8 /* may be retried whatever its method (see "Retry") */
#define NC_REQUEST_SKIP_AUTH          16 /* neither held by nor triggering a token refresh (the refresh call) */

/**
 * Sets the request's flags (a bitwise OR of NC_REQUEST_*; 0 clears them).
 * Every flag acts: SKIP_ERROR_HANDLER, NO_COALESCE (this request is its own
 * transfer even when "coalesce" is on, see nc_client_send()), NO_RETRY and
 * IDEMPOTENT (see "Retry"), SKIP_AUTH (see "Token refresh").
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that owns the builder (one at a time).
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, or a bit that is not
 *   one of the NC_REQUEST_* flags — then nothing changes).
 * Since:     0.3
 */
NC_API nc_status nc_request_set_flags(nc_request *request, uint32_t flags);

/**
 * Puts the request in cancellation group `group` (NULL: none; an endpoint's
 * group then applies). Requests sent from this builder afterwards carry it.
 *
 * Ownership: `request` is borrowed; `group` (UTF-8) is copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, an empty name, invalid
 *   UTF-8 or control characters) and the request is unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_set_group(nc_request *request, const char *group);

/**
 * Names the request for people reading what it did: a label of the caller's
 * choosing ("checkout.submit", a screen's name). Every error of a request sent
 * from this builder afterwards carries it (nc_error_label(), nc_error_json()'s
 * "request"), and its events ("label") and log lines ("[label=...]") name it,
 * beside the endpoint's name. NULL removes it. No effect on what is sent.
 *
 * Ownership: `request` is borrowed; `label` (UTF-8) is copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, an empty label,
 *   invalid UTF-8 or control characters: the rule of nc_request_set_group) and
 *   the request is unchanged.
 * Since: 0.4
 */
NC_API nc_status nc_request_set_label(nc_request *request, const char *label);

/**
 * Sets how this request uses the client's cache (NC_CACHE_*; default: the
 * endpoint's "cache" policy, else NC_CACHE_NETWORK_ONLY). The policies that read
 * the cache revalidate a stale stored answer that has a validator (If-None-Match
 * / If-Modified-Since); a 304 then completes with the stored body and
 * nc_response_not_modified() == 1. A request whose answer comes from the cache
 * never shares a coalesced transfer. Without a cache configured every policy
 * sends, except NC_CACHE_ONLY, which completes with NC_CLIENT_NOT_CACHED.
 *
 * Ownership: `request` is borrowed.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, unknown policy; the
 *   request is unchanged).
 * Since:     0.3
 */
NC_API nc_status nc_request_set_cache_policy(nc_request *request, int32_t policy);

/**
 * Downloads the body of a 2xx response into the file at `path` instead of memory
 * (memory stays flat whatever the size). The bytes go to `path.part` (created with
 * mode 0666 minus the umask), renamed to `path` only when the request succeeds,
 * before the completion runs: a failed or cancelled download never leaves a file at
 * `path` (an existing one is replaced only by a complete download). Resume: when the
 * response that started the .part carried a validator (ETag, else Last-Modified)
 * and "Accept-Ranges: bytes" (and no Content-Encoding), the validator is kept in
 * the sidecar `path.part.meta` (one line: the validator, then "\n"); a later send
 * to the same path — or a retry of this one — then asks for the rest with
 * "Range: bytes=<size of .part>-" and "If-Range: <validator>": a 206 continuing the
 * .part is appended (nc_response_status() is 206), any other 2xx starts it over. A
 * .part without a sidecar is started over, never resumed. On failure or
 * cancellation the .part and sidecar are kept when they can be resumed, else
 * removed (a 416 answer to a resume removes them too). One download per path at a time (the .part is locked: a second fails to
 * open). A `path` that exists and is not a regular file (a device, a FIFO) is
 * written in place: no .part, no resume. Such a request is read in raw mode (no
 * envelope check), is never coalesced, nc_response_body() is empty, and
 * limits.max_response_bytes does not apply to the file. Bodies of other statuses —
 * redirect hops, HTTP errors — are kept in memory as usual (the error carries them).
 * Failures are NC_DOMAIN_TRANSPORT 23 (CURLE_WRITE_ERROR) naming the path: the file
 * cannot be opened (nothing is sent, attempts 0), a write fails (disk full), a 206
 * does not continue the .part, or closing or renaming fails. docs/transfers.md has
 * the whole story (.part, rename and resume since 0.3). NULL `path` goes back
 * to memory.
 *
 * Ownership: `request` is borrowed; `path` (UTF-8) is copied.
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request, empty path or invalid
 *   UTF-8) and the request is unchanged.
 * Since:     0.2
 */
NC_API nc_status nc_request_set_output_file(nc_request *request, const char *path);

/** A request's progress (nc_request_set_progress): bytes received and their total,
 * bytes sent and their total (a total is 0 while unknown). */
typedef void (*nc_progress_fn)(int64_t down_now, int64_t down_total, int64_t up_now, int64_t up_total,
                               void *userdata);

/**
 * Reports the request's progress to `fn` while it transfers: at most about 20 calls
 * a second (one per 50 ms, plus the call that reports the body complete), only when
 * a value changed, and a last call with the final values just before the completion
 * — never after it. The values never go backwards: a redirect hop or a retry starts
 * libcurl's counts again, and the values reported hold at the highest seen until
 * the new hop passes them. A resumed download (nc_request_set_output_file) counts
 * the whole file: the bytes already in its .part are included once its 206 body
 * arrives. `fn` runs on the
 * transfer thread, in queue mode too (it is not queued for nc_client_dispatch); it
 * must return quickly and must not free the client or wait for a request. Such a
 * request is never coalesced. With a response cache ("cache"), an answer served
 * from the cache (without a transfer, or the stored body after a 304) is reported
 * whole — its size as both download values — in that last call. A request
 * without one costs nothing: libcurl's progress meter stays off. NULL `fn`
 * removes it.
 *
 * Ownership: `request` is borrowed; `userdata` is the caller's and must stay valid
 *   until the request's completion has run (for every send of the request).
 * Thread:    the thread that uses the builder; `fn` runs on the transfer thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request) and the request is unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_set_progress(nc_request *request, nc_progress_fn fn, void *userdata);

/** A chunk of a 2xx response body (nc_request_set_body_callback): return 0 to go on,
 * NC_BODY_PAUSE to pause the transfer (since 0.4), any other value to abort it. */
typedef int (*nc_body_fn)(const void *chunk, size_t len, void *userdata);

/** nc_body_fn's answer that pauses the transfer (since 0.4): the chunk is not taken;
 * libcurl reads nothing more for this request until nc_task_resume_body(), then
 * hands the same chunk over again. (Before 0.4 this value aborted, as any non-zero.) */
#define NC_BODY_PAUSE 0x10000001

/**
 * Hands the body of a 2xx response to `fn` chunk by chunk as it arrives (as libcurl
 * receives it, up to CURL_MAX_WRITE_SIZE bytes each), instead of keeping it:
 * nc_response_body() is then empty and limits.max_response_bytes does not apply.
 * Returning non-zero aborts the transfer, which completes with NC_DOMAIN_CLIENT /
 * NC_CLIENT_CANCELLED — except NC_BODY_PAUSE (since 0.4), which pauses it: the
 * chunk is not taken, libcurl reads no more of this response (TCP slows the server
 * down; other requests of the client go on) until nc_task_resume_body(), and then
 * hands the same chunk over again, so every byte reaches `fn` once, in order. A
 * paused transfer is not idle (idle_timeout_ms runs again from the resume); its
 * timeout_ms and deadline still run, and nc_task_cancel() ends it as usual.
 * Bodies of other statuses (redirect hops, HTTP errors) are
 * kept in memory for the error as usual. Such a request is read in raw mode (no
 * envelope check), is never coalesced, and is not retried once a chunk was
 * delivered (the retry policy is not asked: the caller has seen those bytes); a
 * retry before the first chunk is as usual. With an output file as well, the body
 * goes to `fn` and the file stays empty. With a response cache ("cache") such a
 * request neither reads nor stores it: it is sent as NC_CACHE_NETWORK_ONLY
 * (NC_CACHE_ONLY completes with NC_CLIENT_NOT_CACHED, nothing sent) and `fn`
 * receives the network's body ("skipped"."streamed" in
 * nc_client_cache_stats_json()). `fn` runs on the transfer thread, in queue
 * mode too (chunks are not queued for nc_client_dispatch); it must not free the
 * client or wait for a request. NULL `fn` removes it.
 *
 * Ownership: `request` is borrowed; `chunk` is borrowed for the call only;
 *   `userdata` is the caller's and must stay valid until the completion has run.
 * Thread:    the thread that uses the builder; `fn` runs on the transfer thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request) and the request is unchanged.
 * Since:     0.3
 */
NC_API nc_status nc_request_set_body_callback(nc_request *request, nc_body_fn fn, void *userdata);

struct nc_response; /* typedef'd under "Sending" below */

/** The head of a response (nc_request_set_head_callback): status, headers, URL and
 * HTTP version, read with the nc_response_* accessors; its body is empty. */
typedef void (*nc_head_fn)(const struct nc_response *head, void *userdata);

/**
 * Hands `fn` the head of the 2xx response whose body the request receives, once,
 * as soon as its header block has ended: before the first chunk of a body
 * callback, before the first byte of an output file or of the body kept in
 * memory, and before the completion (an empty body, a HEAD request). `head` has the
 * status, the headers (nc_response_header, nc_response_header_at), the URL
 * that answered and the HTTP version; its body is empty and it has no data.
 * Which response: the one whose body is delivered — not a redirect hop's (whose
 * body is never delivered), not an interim 1xx, not a proxy's CONNECT answer, and
 * not a status other than 2xx (an HTTP error: the completion carries it, with its
 * body). Called at most once per send: once it has run, the request is not
 * retried (the caller has seen the answer), as after a body chunk; an attempt
 * that fails before its head (connect error, 503) is retried as usual. Such a
 * request is never coalesced, and with a response cache ("cache") it is sent as
 * NC_CACHE_NETWORK_ONLY (NC_CACHE_ONLY completes with NC_CLIENT_NOT_CACHED).
 * `fn` runs on the transfer thread (the caller's for nc_client_send_sync), in
 * queue mode too; it must not free the client or wait for a request; it may call
 * nc_task_current(). A request without one costs nothing. NULL `fn` removes it.
 *
 * Ownership: `request` is borrowed; `head` is borrowed for the call only (copy what
 *   you keep); `userdata` is the caller's and must stay valid until the completion
 *   has run (for every send of the request).
 * Thread:    the thread that uses the builder; `fn` runs on the transfer thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request) and the request is unchanged.
 * Since:     0.4
 */
NC_API nc_status nc_request_set_head_callback(nc_request *request, nc_head_fn fn, void *userdata);

/* ------------------------------------------------------------------------- */
/* 5. Endpoint catalog                                                       */
/* ------------------------------------------------------------------------- */

/*
 * Named, discrete APIs ("user.login", "user.get"): an endpoint gives a method, a
 * path template ("/users/{id}") and request defaults; a request names it instead
 * of a method and path. Endpoints come from the configuration's "endpoints"
 * (docs/configuration.md) or from nc_client_define_endpoint(). The catalog is
 * part of the client's settings: a request is resolved against the catalog in
 * force when it is sent.
 *
 * Spec (JSON object; unknown keys and wrong types are refused, naming the key):
 *   "path"       required; joined to the base URL (or an absolute http(s) URL);
 *                "{name}" placeholders are filled from the params
 *   "method"     HTTP method, default "GET"
 *   "encoding"   "query" | "form" | "json"; default: query for GET/HEAD/DELETE/
 *                OPTIONS, form otherwise
 *   "headers"    object name -> value; win over the client's default headers
 *   "timeout_ms" 0-2147483647 (0 = no limit); default: the client's
 *   "connect_timeout_ms", "idle_timeout_ms" (since 0.4) 0-2147483647, as the
 *                client's keys of those names; default: the client's
 *   "envelope"   true/false; default: the client's
 *   "retry"      object (the keys of the configuration's "retry"), merged over the
 *                client's policy, or false (one attempt); a request's
 *                nc_request_set_retry_json merges over it
 *   "cache"      a cache policy name: "network_only", "cache_else_network",
 *                "network_else_cache", "cache_then_network", "cache_only"
 *                (docs/caching.md)
 *   "group"      a cancellation group name (nc_request_set_group's rule: non-empty,
 *                no control characters)
 *
 * Resolution, at send: the endpoint's method; each placeholder replaced by the
 * param of that name (string, number or boolean), percent-encoded as one path
 * segment ('/', ' ', '?', '#', '%' and non-ASCII bytes become %XX; "." and ".."
 * become %2E and %2E%2E) and removed from the params; the remaining params encoded per the endpoint's encoding. What the
 * request itself sets wins over the endpoint: headers (by name), timeout,
 * envelope, encoding (when not NC_ENCODING_DEFAULT); query parameters and a body
 * set on the request are sent too. An unknown endpoint, a missing (or null)
 * placeholder param, or one that is empty, an object or an array completes the request
 * with NC_DOMAIN_CLIENT / NC_CLIENT_INVALID_REQUEST whose message names the
 * endpoint or the parameter; nothing is sent.
 */

struct nc_response; /* typedef'd under "Sending" below */
struct nc_task;

/**
 * Defines the endpoint `name` from `spec_json` (the spec above), replacing an
 * endpoint of the same name. Requests sent afterwards use it; requests already
 * sent are unaffected.
 *
 * Ownership: `name` and `spec_json` (NUL-terminated UTF-8) are borrowed (copied).
 * Thread:    any thread, including inside this client's callbacks.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL argument, empty name or one
 *   with control characters, invalid UTF-8, spec not JSON, not an object, an
 *   unknown key or a wrong type; the catalog is unchanged).
 * Since:     0.3
 */
NC_API nc_status nc_client_define_endpoint(nc_client *client, const char *name, const char *spec_json);

/**
 * Creates a request builder naming the endpoint `name`, resolved against the
 * sending client's catalog (above). The other nc_request_set_* functions apply:
 * params fill the placeholders and are encoded per the endpoint; headers,
 * timeout, envelope and encoding set here override the endpoint's.
 *
 * Ownership: `name` is borrowed (copied). On NC_OK *request_out receives a new
 *   builder, released with nc_request_free().
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL argument, empty name, control
 *   characters, invalid UTF-8). An unknown name is not refused here: the send
 *   completes with NC_CLIENT_INVALID_REQUEST.
 * Since:     0.3
 */
NC_API nc_status nc_request_new_endpoint(const char *name, nc_request **request_out);

/**
 * Sends a request naming `endpoint` with the params `params_json` (`len` bytes, a
 * JSON object; NULL or len 0: no params), as nc_request_new_endpoint() +
 * nc_request_set_params_json() + nc_client_send(). `fn` has the type
 * nc_complete_fn, `task_out` is an nc_task ** (see "Sending" below) and the
 * callback contract is nc_client_send()'s: called exactly once when NC_OK is
 * returned, never otherwise; an unknown endpoint or a missing placeholder
 * completes through it with NC_CLIENT_INVALID_REQUEST, and so do params that break
 * the endpoint's "params" declarations (naming the parameter and the rule;
 * attempts 0, nothing sent; Since 0.4). The call carries the endpoint's "flags";
 * to add flags of its own, build it with nc_request_new_endpoint(),
 * nc_request_set_flags() and send it with nc_client_send().
 *
 * Ownership: `endpoint` and `params_json` are borrowed (copied); `userdata` is
 *   passed to `fn` untouched. With a non-NULL `task_out`, *task_out receives a
 *   task the caller releases with nc_task_free().
 * Thread:    any thread, including this client's callbacks.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, endpoint or fn, bad
 *   name, params that are not a JSON object; fn is not called);
 *   NC_ERR_INVALID_STATE (the client is shutting down; fn is not called).
 * Since:     0.3
 */
NC_API nc_status nc_client_call(nc_client *client, const char *endpoint, const char *params_json,
                                size_t len,
                                void (*fn)(const struct nc_response *response, const nc_error *error,
                                           void *userdata),
                                void *userdata, struct nc_task **task_out);

/**
 * nc_client_call() that waits, as nc_client_send_sync(): runs on the calling
 * thread. `response_out` and `error_out` are nc_response ** / nc_error **.
 *
 * Ownership: `endpoint` and `params_json` are borrowed (copied). *response_out
 *   (when a response was received) and *error_out (on NC_ERR_FAILED) receive
 *   owned handles: release with nc_response_free() / nc_error_free(). Either out
 *   pointer may be NULL.
 * Thread:    any thread except this client's callbacks.
 * Returns:   NC_OK (success); NC_ERR_FAILED (the request failed: *error_out says
 *   why, e.g. NC_CLIENT_INVALID_REQUEST for an unknown endpoint);
 *   NC_ERR_INVALID_ARGUMENT (NULL client or endpoint, bad name, params that are
 *   not a JSON object; nothing is sent); NC_ERR_INVALID_STATE (shutting down, or
 *   called from one of this client's callbacks).
 * Since:     0.3
 */
NC_API nc_status nc_client_call_sync(nc_client *client, const char *endpoint, const char *params_json,
                                     size_t len, struct nc_response **response_out,
                                     nc_error **error_out);

/* ------------------------------------------------------------------------- */
/* 6. Sending and tasks                                                      */
/* ------------------------------------------------------------------------- */

typedef struct nc_task nc_task;
typedef struct nc_response nc_response;

/**
 * Completion callback: called exactly once per successful nc_client_send().
 * `error` is NULL on success. On NC_DOMAIN_HTTP / NC_DOMAIN_API errors (and
 * NC_DOMAIN_PARSE errors of a received body) `response` is passed too; otherwise
 * it is NULL. Both are BORROWED for the duration of the call.
 *
 * Runs on the client's transfer thread, or, with "callbacks":"queue", inside
 * nc_client_dispatch(). It may call nc_client_send() and nc_task_cancel(); it
 * must not call nc_client_free() or nc_client_send_sync() on the same client.
 */
typedef void (*nc_complete_fn)(const nc_response *response, const nc_error *error, void *userdata);

/**
 * Starts sending `request` on `client`; `fn` is called exactly once when it ends.
 *
 * Ownership: `request` is copied, so it may be changed or freed as soon as this
 *   returns. `userdata` is passed to `fn` untouched. If `task_out` is not NULL it
 *   receives a new reference, released with nc_task_free(); pass NULL to fire and
 *   forget.
 * Thread:    any thread, including from inside a completion callback.
 * Returns:   NC_OK, or NC_ERR_INVALID_ARGUMENT (NULL client/request/fn) and
 *   NC_ERR_INVALID_STATE (client shutting down) — then `fn` is never called and
 *   *task_out is not written. A request that cannot be built (e.g. a relative path
 *   without base_url) is accepted and completes with NC_CLIENT_INVALID_REQUEST.
 *
 * Coalescing ("coalesce": true, the default): a GET or HEAD without a body or an
 * output file that is identical to one in flight on this client — same method,
 * final URL, header lines as resolved now (client defaults and the request's,
 * Authorization included), envelope/raw mode, total/connect/idle timeouts,
 * retry policy, deadline, max_redirects and TLS options — shares its transfer
 * instead of sending again (a later caller shares the first one's deadline, which
 * ends no later than its own). Each caller still has
 * its own task and exactly one call of its own `fn`, with the same response and
 * error, in the order the callers were sent, on the same thread. Headers added per
 * attempt (nc_client_set_token, basic auth, signing, adapters) are the first
 * caller's: they run on the shared transfer. nc_task_cancel() of one caller
 * completes that caller at once with NC_CLIENT_CANCELLED; the transfer is
 * cancelled only when every caller has cancelled. Callers of one transfer share
 * its nc_task_id() and its events. A request sent after the transfer's completion
 * was delivered starts a new one. NC_REQUEST_NO_COALESCE, "coalesce": false and
 * nc_client_send_sync() never share.
 * Since:     0.1
 */
NC_API nc_status nc_client_send(nc_client *client, const nc_request *request, nc_complete_fn fn,
                                void *userdata, nc_task **task_out);

/**
 * Sends `request` and blocks until it ends. The transfer runs on the calling
 * thread (no hand-off to the transfer thread), on a connection the client keeps
 * alive for later synchronous sends: threads sending at the same time each use a
 * connection of their own, which max_connections_per_host does not count. It is
 * never coalesced with requests in flight (see nc_client_send()).
 * nc_client_free() from another thread ends a send in progress with
 * NC_CLIENT_SHUTDOWN.
 *
 * Ownership: `request` is borrowed. *response_out receives a new response
 *   (release with nc_response_free()) whenever one was received: on success and on
 *   HTTP/API/PARSE errors of a received body. *error_out receives a new error
 *   (release with nc_error_free()) on failure. Either out-pointer may be NULL.
 * Thread:    any thread except this client's callbacks (refused there: it would
 *   wait for itself).
 * Returns:   NC_OK on success; NC_ERR_FAILED when the request failed (see
 *   *error_out); NC_ERR_INVALID_ARGUMENT (NULL client/request);
 *   NC_ERR_INVALID_STATE (client shutting down, or called from a callback).
 * Since:     0.1
 */
NC_API nc_status nc_client_send_sync(nc_client *client, const nc_request *request,
                                     nc_response **response_out, nc_error **error_out);

/**
 * Cancels a request. When it returns, the callback has returned: with its real
 * result if it had already begun, else with NC_CLIENT_CANCELLED. Idempotent;
 * cancelling a finished task does nothing. Takes effect within milliseconds.
 * Inside a callback of the same client it does not wait for the callback that is
 * running. In "callbacks":"queue" mode it returns without waiting: the
 * cancelled completion runs at the next nc_client_dispatch(). The task of a batch
 * (nc_batch_send) cancels every member still running; the batch's callback runs once.
 * A caller of a coalesced transfer (nc_client_send()) is cancelled alone; the
 * shared transfer is cancelled when its last caller is. From a hook of the
 * request itself (its request_start, attempt_end or retry event, an adapter, the
 * retry handler) it returns at once, and the request completes with
 * NC_CLIENT_CANCELLED when the hook has returned, before anything more is sent
 * (an attempt that already decided the outcome keeps it). The task of a
 * synchronous send (nc_task_current, since 0.4) is cancelled without waiting: its
 * hop in flight ends and nc_client_send_sync() returns NC_CLIENT_CANCELLED.
 *
 * Ownership: `task` is borrowed. NULL is a no-op.
 * Thread:    any thread, including from inside a completion callback.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_task_cancel(nc_task *task);

/**
 * Drops the caller's reference to a task. Does not cancel it: the request goes on
 * and its callback still runs.
 *
 * Ownership: consumes `task`. NULL is a no-op.
 * Thread:    any thread.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_task_free(nc_task *task);

/**
 * Returns the request's number among its client's: the "id" of its events.
 *
 * Ownership: `task` is borrowed.
 * Thread:    any thread.
 * Returns:   the id (from 1); 0 if `task` is NULL.
 * Since:     0.3
 */
NC_API uint64_t nc_task_id(const nc_task *task);

/**
 * Lets the body of a request paused by its body callback (NC_BODY_PAUSE) continue:
 * the transfer thread resumes it — after the body callback running at that moment,
 * if any, has returned, so a resume asked while the callback that pauses still runs
 * is not lost — and hands the held chunk to the callback again, then the rest. A
 * transfer that is not paused is left alone (a resume does not carry over to a
 * later pause). Works for nc_client_send() and for nc_client_send_sync() (its
 * task from nc_task_current()).
 *
 * Ownership: `task` is borrowed.
 * Thread:    any thread, including the transfer thread (from a callback).
 * Returns:   NC_OK (the request is running — its completion, if running, has not
 *   returned yet —: resumed if paused); NC_ERR_INVALID_STATE once its completion has
 *   returned (or its synchronous send has), nothing done —
 *   harmless, so a reader may resume without knowing whether the end came first;
 *   NC_ERR_INVALID_ARGUMENT (NULL, a batch's task, or a request without a body
 *   callback).
 * Since:     0.4
 */
NC_API nc_status nc_task_resume_body(nc_task *task);

/**
 * The task of the request whose body or head callback is running on the calling
 * thread: how a callback hands its request to another thread that will resume
 * (nc_task_resume_body) or cancel it — the only way to reach a synchronous send
 * (nc_client_send_sync has no task), and for nc_client_send() a way that does not
 * race with `task_out` being written. nc_task_cancel() of a synchronous send's
 * task returns at once (it never waits; the send returns NC_CLIENT_CANCELLED from
 * its hop in flight). *task_out is written only on success.
 *
 * Ownership: *task_out receives a new reference (nc_task_free it); it stays valid
 *   after the request has completed (then resume and cancel do nothing).
 * Thread:    the transfer thread, inside a body callback (nc_request_set_body_callback)
 *   or a head callback (nc_request_set_head_callback).
 * Returns:   NC_OK; NC_ERR_INVALID_STATE outside those callbacks (*task_out
 *   untouched); NC_ERR_INVALID_ARGUMENT (NULL task_out).
 * Since:     0.4
 */
NC_API nc_status nc_task_current(nc_task **task_out);

/* Sends held together (since 0.4). */

/**
 * Corks `client`: requests sent from now on (nc_client_send, nc_client_call,
 * nc_batch_send, from any thread) are queued without waking the client's transfer
 * thread, until the matching nc_client_uncork(), which wakes it once for all of
 * them. For a caller that sends several requests in a row — an event loop
 * resuming the coroutines one nc_client_dispatch() completed, a screen's requests —
 * so that the transfer thread starts them together instead of waking (and, on a
 * busy core, preempting the caller) once a request. Corks nest: the last uncork
 * wakes the thread. A request sent while corked may still start before the uncork
 * (the transfer thread looks at its queue whenever it is awake anyway); it never
 * starts later than the uncork. Everything else is unchanged: completions,
 * cancels, synchronous sends (nc_client_send_sync), timeouts (a request's timers
 * run from its start). Keep the corked span short and always uncork: a request
 * sent to an idle corked client waits for the uncork.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, including from inside a completion callback; the uncork may
 *   come from another thread than the cork.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client); NC_ERR_INVALID_STATE when
 *   the client is already corked 4294967295 times (nothing changed).
 * Since:     0.4
 */
NC_API nc_status nc_client_cork(nc_client *client);

/**
 * Ends one nc_client_cork(): the last one wakes the transfer thread, if it sleeps,
 * for the requests sent while corked.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, including from inside a completion callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client); NC_ERR_INVALID_STATE when
 *   the client is not corked (nothing changed).
 * Since:     0.4
 */
NC_API nc_status nc_client_uncork(nc_client *client);

/* ------------------------------------------------------------------------- */
/* 7. Responses                                                              */
/* ------------------------------------------------------------------------- */

/**
 * Returns the HTTP status code of the final response (after redirects).
 *
 * Ownership: `response` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `response` is NULL.
 * Since:     0.1
 */
NC_API int32_t nc_response_status(const nc_response *response);

/**
 * Returns the value of the first response header called `name` (compared
 * case-insensitively, by ASCII rules whatever the process's locale), with
 * surrounding white space removed.
 *
 * Ownership: `name` borrowed; the result is borrowed from `response`.
 * Thread:    any thread.
 * Returns:   NULL if absent or an argument is NULL.
 * Since:     0.1
 */
NC_API const char *nc_response_header(const nc_response *response, const char *name);

/**
 * Returns how many header lines the final response had.
 *
 * Ownership: `response` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `response` is NULL.
 * Since:     0.1
 */
NC_API size_t nc_response_header_count(const nc_response *response);

/**
 * Reads header line `index` (0-based, in the order received).
 *
 * Ownership: *name_out and *value_out are borrowed from `response`; written only
 *   on NC_OK; either may be NULL.
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL response, index out of range).
 * Since:     0.1
 */
NC_API nc_status nc_response_header_at(const nc_response *response, size_t index, const char **name_out,
                                       const char **value_out);

/**
 * Returns the body bytes (decompressed if the server used gzip/deflate). The
 * buffer is followed by a NUL byte that is not counted, so text bodies can be
 * used as C strings.
 *
 * Ownership: borrowed from `response`. `len_out` (may be NULL) receives the length.
 * Thread:    any thread.
 * Returns:   a non-NULL pointer (length 0 for an empty body); NULL if `response` is NULL.
 * Since:     0.1
 */
NC_API const void *nc_response_body(const nc_response *response, size_t *len_out);

/**
 * Returns the whole body parsed as JSON (any JSON value), parsed once on first use.
 * A key an object has twice keeps its last value (jansson's rule; in envelope mode
 * such a body is refused instead: NC_PARSE_DUPLICATE_KEY).
 *
 * Ownership: BORROWED reference, lives as long as `response`; do not modify it.
 * Thread:    any thread.
 * Returns:   NULL if the body is not JSON or `response` is NULL.
 * Since:     0.1
 */
NC_API json_t *nc_response_json(const nc_response *response);

/**
 * Returns the business data: the envelope's data field in envelope mode (JSON null
 * when absent or for 204/empty bodies), the whole parsed body in raw mode.
 *
 * Ownership: BORROWED reference, lives as long as `response`; do not modify it.
 * Thread:    any thread.
 * Returns:   NULL in raw mode when the body is not JSON, or if `response` is NULL.
 * Since:     0.1
 */
NC_API json_t *nc_response_data(const nc_response *response);

/**
 * The same value as nc_response_data(), as compact JSON text ("null" for JSON null).
 *
 * Ownership: borrowed from `response`. `len_out` (may be NULL) receives the length.
 * Thread:    any thread.
 * Returns:   NULL when nc_response_data() would return NULL.
 * Since:     0.1
 */
NC_API const char *nc_response_data_json(const nc_response *response, size_t *len_out);

/**
 * Reads the business data (the value nc_response_data() returns: the envelope's data
 * field, or the whole body in raw mode) into C variables, with a jansson unpack
 * format (json_unpack_ex(), flags 0):
 *
 *   const char *name; int id, vip = 0;
 *   nc_error *err = NULL;
 *   if (nc_response_data_unpack(resp, &err, "{s:i, s:s, s?b}", "id", &id, "name", &name,
 *                               "vip", &vip) != NC_OK) {
 *       fprintf(stderr, "%s\n", nc_error_message(err));  // names the path: data.name
 *       nc_error_free(err);
 *   }
 *
 * Format: jansson's unpack format (https://jansson.readthedocs.io, "Parsing and
 * validating values"): {} objects with `s` keys (`s?` optional), [] arrays, `s`
 * (`const char **`, `s%` adds a `size_t *` length), `i` (int *), `I` (json_int_t *),
 * `b` (int *), `f` (double *, real only), `F` (double *, integer or real), `n` (null,
 * nothing written), `o` / `O` (json_t **); `!` at the end of an object or array refuses
 * members the format does not name, `*` allows them (the default). Keys are `const
 * char *` arguments; every target pointer must be non-NULL.
 *
 * A mismatch (a wrong type, a missing key, a member left over after `!`, an index
 * out of range) gives NC_ERR_FAILED and *error_out a PARSE error
 * NC_PARSE_DECODING_FAILED whose message names the path from the data's root and
 * jansson's reason: "Could not unpack the data: data.user.id: Expected integer, got
 * string (format "{s:{s:i}}", position 7)."; its http_status, body and data are the
 * response's. Then no target is changed (a reference `O` took is released).
 *
 * Ownership: `response`, `fmt` and the keys are borrowed. Strings (`s`) and `o`
 *   values written to the targets are BORROWED from `response`: valid until its last
 *   nc_response_free(), never freed or modified by the caller. `O` gives a NEW
 *   reference the caller releases with json_decref(). On NC_ERR_FAILED, *error_out
 *   (may be NULL) receives a new error, released with nc_error_free(); it is not
 *   written otherwise.
 * Thread:    any thread (responses are immutable); the targets are written on the
 *   calling thread.
 * Returns:   NC_OK (every target written as the format says; those of absent `s?`
 *   keys untouched); NC_ERR_FAILED (the data does not match, or the body is not
 *   JSON in raw mode: PARSE NC_PARSE_DECODING_FAILED); NC_ERR_INVALID_ARGUMENT (NULL
 *   response or fmt, a format that is not a valid unpack format, a NULL key or
 *   target: nothing written, *error_out untouched); NC_ERR_NO_MEMORY.
 * Since:     0.4
 */
NC_API nc_status nc_response_data_unpack(const nc_response *response, nc_error **error_out,
                                         const char *fmt, ...);

/**
 * nc_response_data_unpack() with the keys and targets in a `va_list` (for wrappers
 * that are variadic themselves): the same format, checks, error and guarantees.
 *
 * Ownership: as nc_response_data_unpack(); `ap` is only read through copies
 *   (va_copy), so the caller va_end()s it as usual.
 * Thread:    any thread.
 * Returns:   as nc_response_data_unpack().
 * Since:     0.4
 */
NC_API nc_status nc_response_data_vunpack(const nc_response *response, nc_error **error_out,
                                          const char *fmt, va_list ap);

/**
 * Returns 1 if the response was served from the client's cache (a stored answer,
 * a 304 answered with the stored body, a failure answered from the cache, or the
 * cached callback's copy), else 0. See "Response cache".
 *
 * Ownership: `response` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `response` is NULL.
 * Since:     0.1
 */
NC_API int nc_response_from_cache(const nc_response *response);

/**
 * Returns 1 if the server answered 304 Not Modified to the cache's revalidation
 * and the stored body is served (nc_response_from_cache() is 1 too): what was
 * shown from the cache need not be redrawn. Else 0.
 *
 * Ownership: `response` is borrowed.
 * Thread:    any thread.
 * Returns:   0 if `response` is NULL.
 * Since:     0.3
 */
NC_API int nc_response_not_modified(const nc_response *response);

struct nc_response;

/**
 * The URL that answered: the request's URL, or the last one of the redirects
 * followed.
 *
 * Ownership: borrowed from `response`, valid as long as it.
 * Thread:    any thread.
 * Returns:   the URL; NULL if `response` is NULL.
 * Since: 0.3
 */
NC_API const char *nc_response_url(const struct nc_response *response);

/**
 * The HTTP version the answer came in, as negotiated (CURLINFO_HTTP_VERSION):
 * "HTTP/1.0", "HTTP/1.1", "HTTP/2" or "HTTP/3" (httpx's spelling). With
 * "http_version": "2" an https server that does not offer HTTP/2 answers in
 * "HTTP/1.1": this says which it was. Also in nc_response_metrics_json() as
 * "http_version".
 *
 * Ownership: a static string; never freed by the caller.
 * Thread:    any thread.
 * Returns:   the version; NULL if `response` is NULL or the answer came from the
 *   cache without a network exchange (a revalidated 304 says the version of the
 *   exchange).
 * Since: 0.4
 */
NC_API const char *nc_response_http_version(const struct nc_response *response);

/**
 * Returns how the response was obtained, as compact JSON:
 *   {"attempts":N, "redirects":N (followed by the last attempt), "total_us":N
 *    (first attempt's start to completion), "url":"<effective URL, redacted as in
 *    events>", "attempt_log":[{"attempt","status","domain","code",
 *    "timings":{dns,connect,tls,first_byte,total}, "bytes"}…],
 *    "history":[{"status":302,"url":"<URL that answered with it, redacted>"}…],
 *    "id":<nc_task_id of the request, since 0.4>}
 * "attempt_log" is filled only when an event handler, or a log handler at
 * NC_LOG_DEBUG or NC_LOG_TRACE, was installed when the request was sent (timings
 * are read only then: a log at WARN or INFO writes none); otherwise it is [].
 * "history" lists the redirects the last attempt followed, in order (always
 * recorded; [] when none).
 *
 * Ownership: borrowed from `response`, lives as long as it.
 * Thread:    any thread.
 * Returns:   NULL if `response` is NULL.
 * Since:     0.3
 */
NC_API const char *nc_response_metrics_json(const nc_response *response);

/**
 * Returns a new reference to the same (immutable) response, to keep one passed to
 * a callback.
 *
 * Ownership: `response` is borrowed; the result is new, release with nc_response_free().
 * Thread:    any thread.
 * Returns:   NULL if `response` is NULL.
 * Since:     0.1
 */
NC_API nc_response *nc_response_retain(const nc_response *response);

/**
 * Releases a response reference from nc_response_retain() or
 * nc_client_send_sync(). Never free the response passed to a callback.
 *
 * Ownership: consumes `response`. NULL is a no-op.
 * Thread:    any thread.
 * Returns:   nothing.
 * Since:     0.1
 */
NC_API void nc_response_free(nc_response *response);

/* ------------------------------------------------------------------------- */
/* 8. Hooks: error handler, auth expired, events, logging                    */
/* ------------------------------------------------------------------------- */

/*
 * Every hook below runs with no lock held, on the thread that completes the
 * request: the client's transfer thread; inside nc_client_dispatch() in
 * "callbacks": "queue" mode (every hook: a request's events and log lines are
 * queued with its completion and run before it, in order, on the dispatching
 * thread); or the caller's own thread for a request sent with
 * nc_client_send_sync(). From inside any hook
 * the library may be called: nc_client_send, nc_task_cancel,
 * nc_client_set_header / _set_environment and the nc_client_set_*_handler
 * functions work; nc_client_send_sync returns NC_ERR_INVALID_STATE and
 * nc_client_free returns without freeing (both would wait for the hook itself).
 * A hook is installed for the requests sent after it; replacing or removing it
 * takes effect for every later call (one already running on another thread may
 * still finish). `userdata` must stay valid while its hook is installed and
 * until nc_client_free() returns.
 */

/**
 * Installs the client's error handler: `fn` is called for every failed request
 * sent from now on — except cancellations (NC_CLIENT_CANCELLED) and requests
 * with NC_REQUEST_SKIP_ERROR_HANDLER — just before that request's own
 * completion, on the same thread, with the same response (HTTP/API errors; else
 * NULL) and error. For nc_client_send_sync it runs on the caller's thread before
 * the call returns. Failures of requests that complete without a hook installed
 * (before it, or after it was removed) are not reported.
 *
 * Ownership: `response` and `error` passed to `fn` are borrowed for the call
 *   (nc_response_retain / nc_error_copy keep them). `userdata` is passed through
 *   and never freed. `fn` NULL removes the handler.
 * Thread:    any thread, including from inside a hook or completion. `fn` runs as
 *   described at the top of this section and may call what is listed there.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_error_handler(nc_client *client, nc_complete_fn fn, void *userdata);

/**
 * Installs the auth-expired handler: `fn` is called once per expiry of the
 * credentials — for the first failure whose business code is one of the
 * envelope's "auth_expired_codes" (nc_error_is_auth_expired) or whose HTTP status
 * is 401, among the requests sent with the current Authorization header or token.
 * 20 concurrent requests failing that way call it once. It re-arms when the
 * credentials change: nc_client_set_header() of "Authorization", nc_client_set_token() or
 * nc_client_set_basic_auth() (set or cleared); failures of requests sent with the older credentials
 * then report nothing. It runs before the error handler, and each request still
 * completes with its own error.
 *
 * Ownership: as nc_client_set_error_handler(); `fn` NULL removes it.
 * Thread:    as nc_client_set_error_handler(). Calling nc_client_set_header()
 *   with a new Authorization from inside `fn` is the expected use.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_auth_expired_handler(nc_client *client, nc_complete_fn fn,
                                                    void *userdata);

/**
 * The function of nc_client_set_event_handler() and nc_client_set_log_handler():
 * receives one event as JSON text, or one log line, `len` bytes followed by a NUL.
 */
typedef void (*nc_event_fn)(const char *event_json, size_t len, void *userdata);

/**
 * Installs the event handler: `fn` receives each event of every request sent from
 * now on, as one compact JSON object:
 *   {"event":"request_start"|"attempt_end"|"retry"|"cache_hit"|"request_end",
 *    "id":<nc_task_id>, "method", "url", "endpoint", "label", "attempt", "status",
 *    "domain", "code",
 *    "delay_ms", "reason", "timings":{"dns","connect","tls","first_byte","total"} and
 *    "bytes" (µs and body bytes received, attempt_end; "timings" is null for a
 *    request sent while only a log at WARN or INFO was installed, which reads
 *    none), "from_cache" (cache_hit,
 *    request_end), "not_modified" (cache_hit: a 304 served the stored body),
 *    "cache" (cache_hit: the counters of nc_client_cache_stats_json(), else null),
 *    "elapsed_us" (request_end), "stubbed" (attempt_end, request_end: a stub of
 *    the client's "stubs" gave the response, not the network; since 0.4)}
 * A "cache_hit" event comes whenever an answer comes from the response cache
 * (since 0.3: before the completion, or before the cached callback of
 * NC_CACHE_THEN_NETWORK).
 * "endpoint" is the catalog endpoint's name and "label" the request's
 * nc_request_set_label() (Since 0.4; null when none). A "retry" event with
 * "delay_ms" 0 and a "reason" starting "network returned" says a request waiting
 * out a retry's delay was sent at once when the network came back (section
 * "Reachability").
 * Every key is present (null when it does not apply); "domain" is the error
 * domain's name and "code" its numeric code (null on success). "url" never holds
 * credentials: userinfo and fragment are removed and the values of query
 * parameters with secret-looking names (token, access_token, refresh_token,
 * id_token, key, api_key, apikey, secret, client_secret, password, passwd, pwd,
 * signature, sig, auth, authorization, credential(s), session, sessionid, and
 * names ending in _token/-token/_key/-key/_secret/-secret or containing
 * "password", and nested names one of whose parts is such a name: auth[token],
 * client[api_key], session.key) read REDACTED, as does a value that is itself a
 * URL with userinfo (pairs are split on '&' and ';', names percent-decoded). No
 * header value or body is ever in an event.
 *
 * Ownership: `event_json` is borrowed for the call. `fn` NULL removes it.
 * Thread:    any thread. `fn` runs on the thread driving the request (the
 *   transfer thread; inside nc_client_dispatch() in queue mode, before the
 *   request's completion; the nc_client_send_sync caller's for a synchronous
 *   send); keep it short, it delays the client's other transfers. It may call
 *   what is listed at the top of this section.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_event_handler(nc_client *client, nc_event_fn fn, void *userdata);

/* Event kinds, for nc_client_set_event_mask(): bits to or together. */
#define NC_EVENT_REQUEST_START 0x01u /* "request_start" */
#define NC_EVENT_ATTEMPT_END   0x02u /* "attempt_end" */
#define NC_EVENT_RETRY         0x04u /* "retry" */
#define NC_EVENT_CACHE_HIT     0x08u /* "cache_hit" */
#define NC_EVENT_REQUEST_END   0x10u /* "request_end" */
#define NC_EVENT_ALL           0x1fu /* every kind: the default */

/**
 * Chooses which kinds of events the event handler (nc_client_set_event_handler())
 * receives: an or of NC_EVENT_* bits; NC_EVENT_ALL (the default) for every kind,
 * 0 for none (the handler stays installed but receives nothing). An event of a
 * kind left out is not built at all: a handler that only wants each
 * request's end (NC_EVENT_REQUEST_END) pays for one event a request instead of
 * three. The log handler is not affected: it receives what its level asks for.
 * Applies to events emitted after the call returns, and stays when the handler
 * is replaced or removed.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, including from inside a hook.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, or a bit outside
 *   NC_EVENT_ALL: the mask is then unchanged).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_event_mask(nc_client *client, uint32_t mask);

/* Levels of nc_client_set_log_handler(). */
#define NC_LOG_OFF   0
#define NC_LOG_ERROR 1
#define NC_LOG_WARN  2
#define NC_LOG_INFO  3
#define NC_LOG_DEBUG 4
#define NC_LOG_TRACE 5

/**
 * Installs the log handler: lines of `level` and more severe go to `fn` (NULL:
 * to standard error, prefixed "netcore "). Each line starts with its level's
 * word: "ERROR", "WARN", "INFO", "DEBUG" or "TRACE", then a space and the text:
 *   INFO  GET http://127.0.0.1:8080/path => 200 (12.3 ms)      one per request
 *   WARN  GET http://…/path => NCTransportErrorDomain 7: <message> (1.0 ms)
 *   INFO  GET http://…/path: retry 2 in 200 ms (<reason>)
 *   DEBUG each start and each attempt's end with libcurl's timings
 * A request naming an endpoint or carrying a label (Since 0.4) has them after its
 * URL: "GET http://…/users/7 [endpoint=user.get label=profile] => 200 (3.1 ms)".
 * Lines never contain a token, a credential header value (Authorization, Cookie,
 * Proxy-Authorization, the configured "credential_headers"), the signing secret,
 * userinfo, secret query values (as in events) or a body. Each line is one line:
 * its control characters (a server's message may hold any) are written as
 * escapes, "\r", "\n", "\xHH" for the other C0/C1 controls and DEL, "\u2028" and
 * "\u2029" (a tab stays), so a response cannot forge a line. Built on the same event
 * seam as nc_client_set_event_handler(): with both installed, both receive. Only
 * the events the level writes lines for are built (WARN: a failed request's end).
 * The configuration's "log": {"level": …} installs the standard-error form when
 * the client is made; this call replaces it.
 *
 * Ownership: the line is borrowed for the call.
 * Thread:    as nc_client_set_event_handler().
 * Returns:   NC_OK (level NC_LOG_OFF removes the handler); NC_ERR_INVALID_ARGUMENT
 *   (NULL client, level outside NC_LOG_OFF…NC_LOG_TRACE).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_log_handler(nc_client *client, int32_t level, nc_event_fn fn,
                                           void *userdata);

/* ------------------------------------------------------------------------- */
/* 9. Hooks: request adapters (nc_outgoing)                                  */
/* ------------------------------------------------------------------------- */

/*
 * Before EVERY attempt of a request (a retried request gets a fresh timestamp,
 * signature and the current token; the hops of one redirect chain belong to one
 * attempt and are not adapted again), the client runs, in this order:
 *   1. "common_params" of the configuration (docs/configuration.md): added to the
 *      query of a query-encoded request, as members of a form or JSON body; a
 *      request's own parameter of the same name wins;
 *   2. the token (nc_client_set_token) or basic credentials
 *      (nc_client_set_basic_auth) as the Authorization header, unless the request
 *      already carries one (its own, or a client default header);
 *   3. the adapters added with nc_client_add_adapter, in the order they were added;
 *   4. "signing" of the configuration (HMAC-SHA256, docs/signing.md), over what
 *      the steps before produced.
 * Credentials (Authorization and the "credential_headers") are still dropped on a
 * redirect to another origin.
 */

/** The request one attempt is about to send, as an adapter sees it. */
typedef struct nc_outgoing nc_outgoing;

/**
 * A request adapter: reads `out` with nc_outgoing_method/_url/_header/_body/
 * _params_json and changes its headers (nc_outgoing_set_header()), its query
 * (nc_outgoing_set_query(), Since 0.4) and its body (nc_outgoing_set_body(),
 * Since 0.4). Returning anything but NC_OK
 * (or calling nc_outgoing_fail()) fails the request with NC_DOMAIN_CLIENT /
 * NC_CLIENT_ADAPTER_FAILED, and nothing is sent.
 *
 * Ownership: `out` is BORROWED for the duration of the call only, as is every
 *   string read from it; never keep them.
 * Thread:    the thread that drives the transfer: the client's transfer thread
 *   (nc_client_send), or the caller's thread (nc_client_send_sync) — possibly
 *   several at once for different requests. It may call the nc_outgoing_*
 *   functions on `out`, nc_client_send(), the nc_client_set_* functions and the
 *   cancels (its own request's included: nothing is then sent, and the request
 *   completes with NC_CLIENT_CANCELLED once the adapter returns); it must not
 *   block for long. As in every callback, nc_client_send_sync() returns
 *   NC_ERR_INVALID_STATE there and nc_client_free() is refused.
 * Since: 0.3
 */
typedef nc_status (*nc_adapter_fn)(nc_outgoing *out, void *userdata);

/**
 * Adds a request adapter to `client`: it runs before every attempt of the
 * requests sent from now on, after the adapters added before it.
 *
 * Ownership: `userdata` is passed to `fn` untouched and must stay valid until
 *   nc_client_free() returns; the client never frees it.
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or fn).
 * Since: 0.3
 */
NC_API nc_status nc_client_add_adapter(nc_client *client, nc_adapter_fn fn, void *userdata);

/**
 * The attempt's method ("GET", "POST", …).
 *
 * Ownership: borrowed from `out`, valid until the adapter returns.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   the method; NULL if `out` is NULL.
 * Since: 0.3
 */
NC_API const char *nc_outgoing_method(const nc_outgoing *out);

/**
 * The attempt's full URL, query included, percent-encoded as it will be sent.
 *
 * Ownership: borrowed from `out`, valid until the adapter returns.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   the URL; NULL if `out` is NULL.
 * Since: 0.3
 */
NC_API const char *nc_outgoing_url(const nc_outgoing *out);

/**
 * A header of the attempt (case-insensitive name), including those set by the
 * client's defaults, the token and earlier adapters.
 *
 * Ownership: `name` is borrowed; the result is borrowed from `out` and valid
 *   until the adapter returns (also after a later nc_outgoing_set_header()).
 * Thread:    inside the adapter call that received `out`.
 * Returns:   the value; NULL if the header is absent or an argument is NULL.
 * Since: 0.3
 */
NC_API const char *nc_outgoing_header(const nc_outgoing *out, const char *name);

/**
 * The attempt's encoded body (form, JSON or raw bytes).
 *
 * Ownership: borrowed from `out`, valid until the adapter returns. `len_out`
 *   (may be NULL) receives its length (0 when there is no body).
 * Thread:    inside the adapter call that received `out`.
 * Returns:   the bytes; NULL when there is no body or `out` is NULL.
 * Since: 0.3
 */
NC_API const void *nc_outgoing_body(const nc_outgoing *out, size_t *len_out);

/**
 * Sets (NULL `value`: removes) a header of this attempt.
 *
 * Ownership: `name` and `value` are copied.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL out or name, a name that is
 *   not an HTTP token, invalid UTF-8, or CR/LF/control characters in the value)
 *   and nothing is changed.
 * Since: 0.3
 */
NC_API nc_status nc_outgoing_set_header(nc_outgoing *out, const char *name, const char *value);

/**
 * Fails the request: whatever the adapter then returns, the request completes
 * with NC_DOMAIN_CLIENT / NC_CLIENT_ADAPTER_FAILED whose message is `message`,
 * and nothing is sent. Called twice, the last message wins.
 *
 * Ownership: `message` (UTF-8; NULL: a default message) is copied. Do not put
 *   secrets in it: it is the error's message.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL out, or invalid UTF-8).
 * Since: 0.3
 */
NC_API nc_status nc_outgoing_fail(nc_outgoing *out, const char *message);

/**
 * Sets the query parameter `name` of this attempt to `value`: every pair of that
 * name is removed from the URL's query, then `name=value` is appended, both
 * percent-encoded as params are; a NULL `value` only removes. A timestamp, a
 * nonce or a `sign=` parameter is added this way; signing ("signing") runs after
 * the adapters and signs the query as changed. The cache and coalescing keys stay
 * those of the request as resolved, before its adapters.
 *
 * Ownership: `name` and `value` (UTF-8) are copied.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL out or name, an empty name,
 *   invalid UTF-8) and nothing is changed.
 * Since: 0.4
 */
NC_API nc_status nc_outgoing_set_query(nc_outgoing *out, const char *name, const char *value);

/**
 * Replaces the body of this attempt with `len` bytes at `data` (NULL and 0: no
 * body), and, when `content_type` is not NULL, its Content-Type header. A body
 * file or multipart parts of the request are replaced too. Use it to encrypt a
 * field: read nc_outgoing_body() or nc_outgoing_params_json(), write the new body.
 * Signing runs after the adapters and signs the new body.
 *
 * Ownership: `data` and `content_type` are copied.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL out, NULL data with len > 0,
 *   a content type with invalid UTF-8 or CR/LF/control characters) and nothing
 *   is changed.
 * Since: 0.4
 */
NC_API nc_status nc_outgoing_set_body(nc_outgoing *out, const void *data, size_t len,
                                      const char *content_type);

/**
 * The request's params as compact JSON text: the object given with
 * nc_request_set_params() or nc_client_call(), the client's common params
 * included, before they were encoded into the query or the body (an endpoint's
 * path placeholders are no longer in it).
 *
 * Ownership: borrowed from `out`, valid until the adapter returns.
 * Thread:    inside the adapter call that received `out`.
 * Returns:   the JSON text; NULL when the request has no params or `out` is NULL.
 * Since: 0.4
 */
NC_API const char *nc_outgoing_params_json(const nc_outgoing *out);

/* ------------------------------------------------------------------------- */
/* 10. Hooks: retry policy and retry handler                                 */
/* ------------------------------------------------------------------------- */

/*
 * Retry is off unless configured: without a "retry" key (docs/configuration.md)
 * a request is sent once. With one, a failed attempt is sent again, after a wait,
 * when all of these hold:
 *   - fewer than "max_attempts" attempts were made (default 3, the first included);
 *   - the error is retried: NC_DOMAIN_TRANSPORT DNS (6), connect (7), timeout (28),
 *     TLS handshake (35), nothing received (52), connection reset or cut (18, 55,
 *     56, 65), HTTP/2 (16, 92); NC_DOMAIN_HTTP with a status in "statuses" (default
 *     408, 429, 500, 502, 503, 504). Never NC_DOMAIN_API, NC_DOMAIN_PARSE or
 *     NC_DOMAIN_CLIENT errors, unless the retry handler says so;
 *   - the method is in "methods" (default GET, HEAD, PUT, DELETE, OPTIONS), or the
 *     request opted in: NC_REQUEST_IDEMPOTENT, or an "Idempotency-Key" header;
 *   - the request did not set NC_REQUEST_NO_RETRY or a "retry" of false;
 *   - the wait ends before the deadline (deadline_ms), if there is one; when it
 *     would not, the request completes at once with NC_CLIENT_DEADLINE_EXCEEDED,
 *     whose message names the last attempt's error.
 * The wait: "backoff" "immediate" (0), "constant" ("initial_ms") or "exponential"
 * (initial_ms * multiplier^(n-1) before retry n), at most "max_delay_ms", drawn
 * uniformly from 0 up to it when "jitter" is true; a response's Retry-After
 * (seconds or an HTTP-date) replaces it when "respect_retry_after" is true, capped
 * by max_delay_ms. Each attempt ends with an "attempt_end" event and each retry
 * is announced by a "retry" event with "delay_ms" and "reason"
 * (nc_client_set_event_handler); nc_error_attempts() counts the attempts. Adapters,
 * the token and signing run again before every attempt. nc_task_cancel() during
 * a wait completes the request at once with NC_CLIENT_CANCELLED.
 *
 * libcurl itself never resends a non-idempotent request: a POST (or any method not
 * listed above as idempotent) whose kept-alive connection closes without an answer
 * fails with NC_DOMAIN_TRANSPORT 65 instead of being resent silently by libcurl (the
 * server may have acted on it); the retry policy resends it only if it opted in. An
 * idempotent request that finds its kept-alive connection already closed, before any
 * byte of answer, is sent once more on a new connection by libcurl itself (as
 * browsers do, RFC 9110 §9.2.2): within the same attempt, so no event shows it and
 * nc_error_attempts() does not count it.
 */

/**
 * The function of nc_client_set_retry_handler(): given a failed attempt's
 * response (HTTP and API errors; else NULL), its error and its number (from 1),
 * returns the wait in milliseconds before sending the request again (>= 0), -1 to
 * stop (the request completes with this error), or -2 for the retry policy's own
 * decision. Other negative values stop.
 */
typedef int64_t (*nc_retry_fn)(const nc_response *response, const nc_error *error, int32_t attempt,
                               void *userdata);

/**
 * Installs the client's retry handler, asked first after every failed attempt of
 * a request sent from now on that max_attempts allows to be followed by another
 * (and that did not turn retry off). Its wait retries any error of any method
 * (API and PARSE errors included); the deadline still applies. Installing one
 * turns retry on for the client: its -2 answer uses the configured "retry", or the
 * defaults when none is configured. The retry event's "reason" of a wait it chose
 * starts with "retry handler".
 *
 * Ownership: `response` and `error` passed to `fn` are borrowed for the call.
 *   `userdata` is passed through and never freed. `fn` NULL removes the handler.
 * Thread:    any thread. `fn` runs on the thread driving the request (the transfer
 *   thread, or the nc_client_send_sync caller's), as the hooks above do, and may
 *   call what they may; keep it short.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since: 0.3
 */
NC_API nc_status nc_client_set_retry_handler(nc_client *client, nc_retry_fn fn, void *userdata);

/* ------------------------------------------------------------------------- */
/* 11. Token refresh                                                         */
/* ------------------------------------------------------------------------- */

/*
 * Single flight: when requests fail because the login expired (a code of
 * envelope.auth_expired_codes, or HTTP 401), the refresher runs once however many
 * failed. While it runs, the expired requests and every request about to be sent
 * wait (nothing goes out with the old token); nc_client_refresh_done() with a new
 * token installs it (as nc_client_set_token) and sends each waiting request again,
 * once — a request that expires again after that replay completes with its error.
 * nc_client_refresh_done(c, NULL, message) ends them all with NC_DOMAIN_CLIENT /
 * NC_CLIENT_AUTH_REFRESH_FAILED and the message, and the auth-expired handler fires
 * (once). A request that carried an older token than the one in use when it
 * expired is sent again at once, without a refresh. "auth":
 * {"max_refreshes_per_minute": N} (default 3) bounds refresh storms: past it an
 * expiry completes with its own error. Requests flagged NC_REQUEST_SKIP_AUTH (the
 * refresh call itself) neither wait nor trigger a refresh. With a refresher set,
 * the auth-expired handler fires only for expiries no refresh answers (a failed
 * refresh, the rate limit, a second expiry after a replay). Waiting requests end
 * at once on nc_task_cancel(), a group cancel, their deadline or nc_client_free();
 * they wait for the answer otherwise (there is no refresh timeout: answer with a
 * failure when your refresh call fails).
 */

/**
 * The refresher: asked to get a new token because `error` (borrowed for the call)
 * expired a request. Answer with nc_client_refresh_done(), from inside the call or
 * later, from any thread — typically from the completion of a refresh request sent
 * with NC_REQUEST_SKIP_AUTH. It runs on the thread that saw the expiry (the transfer
 * thread; inside nc_client_dispatch() in queue mode; a synchronous caller's thread):
 * it must not block.
 */
typedef void (*nc_refresh_fn)(nc_client *client, const nc_error *error, void *userdata);

/**
 * Installs the token refresher (NULL removes it: expired requests then complete
 * with their error). Requests sent from now on use it.
 *
 * Ownership: `client` is borrowed; `userdata` is passed back as is.
 * Thread:    any thread, callbacks included.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_token_refresher(nc_client *client, nc_refresh_fn fn, void *userdata);

/**
 * Answers the running refresh: `token` (UTF-8, copied) is the new bearer token and
 * every waiting request is sent again with it; NULL: the refresh failed and every
 * waiting request completes with NC_CLIENT_AUTH_REFRESH_FAILED and `message`
 * (copied; NULL: a generic one).
 *
 * Ownership: `client` is borrowed; `token` and `message` are read during the call.
 * Thread:    any thread, callbacks included (also inside the refresher).
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, a token that is empty or
 *   has control characters, invalid UTF-8) and nothing changes;
 *   NC_ERR_INVALID_STATE when no refresh is running (nothing asked for one, or it
 *   was answered already).
 * Since:     0.3
 */
NC_API nc_status nc_client_refresh_done(nc_client *client, const char *token, const char *message);

/* ------------------------------------------------------------------------- */
/* 12. Cancellation groups                                                   */
/* ------------------------------------------------------------------------- */

/*
 * A request may name a group (nc_request_set_group, or its endpoint's "group");
 * one call cancels every request of the group that was sent with nc_client_send /
 * nc_client_call and has not completed: waiting to start, in flight, or waiting
 * between attempts (a retry's backoff). Each completes exactly once with
 * NC_DOMAIN_CLIENT / NC_CLIENT_CANCELLED, as nc_task_cancel() would. Requests sent
 * with nc_client_send_sync() belong to their caller's thread and are not
 * cancelled by a group. A request already cancelled, or whose completion is
 * already decided (queued for nc_client_dispatch, say), is not counted.
 */

/**
 * Cancels every request of `group` (see above) and writes how many this call
 * cancelled to `*cancelled_out` (each of those completes once with CANCELLED).
 * Callers of a coalesced transfer (nc_client_send()) count one each and are
 * matched by their own group; the transfer goes on while a caller outside the
 * group remains.
 * From another thread it waits for the client's transfer thread to act (one pass
 * of its loop, microseconds); inside a callback it acts at once. From a hook of a
 * request of the group (an adapter, its events, the retry handler) that request
 * counts too and completes with NC_CLIENT_CANCELLED once the hook has returned.
 *
 * Ownership: `client` is borrowed; `group` is read during the call;
 *   `cancelled_out` may be NULL, else written on NC_OK only.
 * Thread:    any thread, callbacks and hooks included.
 * Returns:   NC_OK (also when nothing matched: 0); NC_ERR_INVALID_ARGUMENT (NULL
 *   client or group, or a name nc_request_set_group refuses: empty, invalid UTF-8
 *   or control characters), and nothing is cancelled.
 * Since:     0.3
 */
NC_API nc_status nc_client_cancel_group(nc_client *client, const char *group, size_t *cancelled_out);

/**
 * Cancels every request of the client sent with nc_client_send / nc_client_call
 * and not yet completed, as nc_client_cancel_group() does for one group (a screen
 * or a session that ends). The client stays usable.
 *
 * Ownership: `client` is borrowed; `cancelled_out` may be NULL, else written on
 *   NC_OK only.
 * Thread:    any thread, callbacks and hooks included.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_cancel_all(nc_client *client, size_t *cancelled_out);

/* ------------------------------------------------------------------------- */
/* 13. Batches                                                               */
/* ------------------------------------------------------------------------- */

/*
 * A batch sends several requests with one completion when every one has ended,
 * the results in the order the requests were added (the "zip" of requests). Each
 * member is an ordinary request of the client: same hooks, events, reachability
 * and exactly-once rules; the batch only counts them down.
 *   nc_batch *b; nc_task *t;
 *   nc_batch_new(client, NC_BATCH_SETTLE, &b);
 *   nc_batch_add(b, user_request); nc_batch_add(b, orders_request);
 *   nc_batch_send(b, on_batch, ud, &t);   nc_batch_free(b);   (the batch keeps itself)
 *   void on_batch(const nc_batch *b, void *ud): nc_batch_response(b, i) / nc_batch_error(b, i)
 */

#define NC_BATCH_SETTLE    0 /* wait for every member, whatever fails */
#define NC_BATCH_FAIL_FAST 1 /* the first failure cancels the members still running */

typedef struct nc_batch nc_batch;

/**
 * Batch completion: called exactly once per successful nc_batch_send(), when
 * every member has ended (after the last member's own completion work, on the
 * same thread: the client's transfer thread, or inside nc_client_dispatch() in
 * "callbacks": "queue" mode). `batch` is the handle that was sent, BORROWED for
 * the call (the batch's own reference keeps it alive meanwhile); read its results
 * with nc_batch_count / nc_batch_response / nc_batch_error. It may call
 * nc_client_send(), nc_batch_send() of another batch and nc_task_cancel(); it must
 * not call nc_client_free() or nc_client_send_sync() on the same client.
 */
typedef void (*nc_batch_fn)(const nc_batch *batch, void *userdata);

/**
 * Creates an empty batch of requests for `client`, with `policy` NC_BATCH_SETTLE
 * or NC_BATCH_FAIL_FAST (the first member that fails cancels the others, which
 * then report NC_CLIENT_CANCELLED unless they had already finished).
 *
 * Ownership: `client` is borrowed (the batch keeps its own reference to it).
 *   *batch_out receives a new batch, released with nc_batch_free().
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or batch_out, unknown
 *   policy; *batch_out is not written).
 * Since:     0.3
 */
NC_API nc_status nc_batch_new(nc_client *client, int32_t policy, nc_batch **batch_out);

/**
 * Adds `request` as the batch's next member. Its results keep this position.
 *
 * Ownership: `request` is copied, so it may be changed or freed as soon as this
 *   returns. `batch` is borrowed.
 * Thread:    any thread; not at the same time as nc_batch_send() of this batch.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL batch or request);
 *   NC_ERR_INVALID_STATE (the batch was already sent: nothing is added).
 * Since:     0.3
 */
NC_API nc_status nc_batch_add(nc_batch *batch, const nc_request *request);

/**
 * Sends every member; `fn` is called exactly once when all have ended. A batch
 * with no member completes at once, sending nothing — still through `fn` on the
 * transfer thread (or at the next nc_client_dispatch()), never inside this call.
 * nc_task_cancel() on the task cancels every member still running (each reports
 * NC_CLIENT_CANCELLED); `fn` still runs exactly once and, in loop mode from
 * another thread, has returned when nc_task_cancel() returns. A batch is sent once.
 *
 * Ownership: the batch keeps its own reference until `fn` has returned, so the
 *   caller may nc_batch_free() it right after this call; `fn` receives that same
 *   handle, borrowed. `userdata` is passed to `fn` untouched. If `task_out` is not
 *   NULL it receives a new reference to the batch's task (nc_task_cancel,
 *   nc_task_free; nc_task_id of a batch's task is 0).
 * Thread:    any thread, including from inside a completion callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL batch or fn);
 *   NC_ERR_INVALID_STATE (already sent, or the client is shutting down) — then
 *   `fn` is never called and *task_out is not written.
 * Since:     0.3
 */
NC_API nc_status nc_batch_send(nc_batch *batch, nc_batch_fn fn, void *userdata, nc_task **task_out);

/**
 * Returns how many requests were added to the batch.
 *
 * Ownership: `batch` is borrowed.
 * Thread:    any thread.
 * Returns:   the count; 0 if `batch` is NULL.
 * Since:     0.3
 */
NC_API size_t nc_batch_count(const nc_batch *batch);

/**
 * Returns the response of member `index` (in the order added), as the member's
 * own completion would have received it: on success, and on HTTP/API/PARSE errors
 * of a received body.
 *
 * Ownership: borrowed from `batch`, valid as long as it (nc_response_retain to
 *   keep it longer).
 * Thread:    any thread, once the batch has completed (in `fn` or after it).
 * Returns:   NULL if `batch` is NULL, `index` is out of range, the batch has not
 *   completed, or the member received no response.
 * Since:     0.3
 */
NC_API const nc_response *nc_batch_response(const nc_batch *batch, size_t index);

/**
 * Returns the error of member `index` (in the order added).
 *
 * Ownership: borrowed from `batch`, valid as long as it (nc_error_copy to keep it
 *   longer).
 * Thread:    any thread, once the batch has completed (in `fn` or after it).
 * Returns:   NULL if the member succeeded, `batch` is NULL, `index` is out of
 *   range or the batch has not completed.
 * Since:     0.3
 */
NC_API const nc_error *nc_batch_error(const nc_batch *batch, size_t index);

/**
 * Drops the caller's reference to a batch. Does not cancel it: a sent batch goes
 * on and its `fn` still runs (the batch keeps itself until then).
 *
 * Ownership: consumes `batch`. NULL is a no-op.
 * Thread:    any thread.
 * Returns:   nothing.
 * Since:     0.3
 */
NC_API void nc_batch_free(nc_batch *batch);

/* ------------------------------------------------------------------------- */
/* 14. Reachability                                                          */
/* ------------------------------------------------------------------------- */

/*
 * Before each attempt (also before each retry) the client asks whether the
 * network is there, so a request fails at once with NC_DOMAIN_CLIENT /
 * NC_CLIENT_UNREACHABLE instead of waiting for DNS or a connect timeout:
 *   NC_REACH_AUTO     (default) the kernel's routing table decides, read once and
 *                     then watched over netlink by one thread per process (never
 *                     re-read per request). A request to a host other than
 *                     loopback fails while no route leaves the machine: no unicast
 *                     route outside the "local" table to a destination that is not
 *                     loopback, link-local or multicast, through an interface that
 *                     is up and running. Hosts are names and none is resolved
 *                     first, so any such route (default or not) counts as online.
 *                     Loopback hosts (localhost, 127.0.0.0/8, ::1) are never
 *                     blocked. Without netlink the state is unknown: never blocks.
 *   NC_REACH_ONLINE   forced: every request is sent; nothing is checked.
 *   NC_REACH_OFFLINE  forced: no request is sent, loopback included.
 * With "reachability": {"wait_for_network_ms": N} (N > 0) an unreachable request
 * waits up to N ms for a route to appear (AUTO) or for the mode to change, then is
 * sent at once; after N ms it fails with NC_CLIENT_UNREACHABLE. nc_task_cancel()
 * and nc_client_free() end a waiting request at once (CANCELLED / SHUTDOWN), as
 * for any request in flight. The same holds for nc_client_send_sync (which waits
 * on the calling thread) and in "callbacks": "queue" mode.
 */

#define NC_REACH_AUTO    0 /* the routing table decides; loopback is never blocked */
#define NC_REACH_ONLINE  1 /* forced online: nothing is checked */
#define NC_REACH_OFFLINE 2 /* forced offline: every request fails (or waits), loopback included */

/**
 * Sets the reachability mode (NC_REACH_AUTO, NC_REACH_ONLINE or NC_REACH_OFFLINE)
 * for attempts begun from now on; the configuration's "reachability"."mode" is
 * the initial one. Requests waiting for the network ask again at once, so
 * switching to NC_REACH_ONLINE sends them now.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, unknown mode; nothing
 *   changes).
 * Since:     0.3
 */
NC_API nc_status nc_client_set_reachability(nc_client *client, int32_t mode);

/**
 * Returns the state now for a host other than loopback: 1 (online: forced
 * ONLINE, or AUTO with a route off the machine, or routes that cannot be read)
 * or 2 (offline: forced OFFLINE, or AUTO without such a route).
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread.
 * Returns:   1 or 2; 0 if `client` is NULL.
 * Since:     0.3
 */
NC_API int32_t nc_client_reachability(const nc_client *client);

/*
 * Watching reachability (Since 0.4). The state nc_client_reachability() answers
 * changes when the mode changes (nc_client_set_reachability) or, in
 * NC_REACH_AUTO, when the routing table gains or loses its last route off the
 * machine. "Retry when reachable": a request waiting out a retry's delay (see
 * "Hooks: retry policy") when the state becomes online is sent at once, and a
 * "retry" event with "delay_ms" 0 and a "reason" starting "network returned"
 * says so — with or without a handler. Requests sent while the mode was forced
 * NC_REACH_ONLINE are not watched (nothing is checked for them), nor are
 * nc_client_send_sync requests, which wait their delay out.
 */

/** The function of nc_client_set_reachability_handler(): the new state, 1 or 2. */
typedef void (*nc_reachability_fn)(int32_t state, void *userdata);

/**
 * Installs the client's reachability handler: `fn` is called with the new state
 * (NC_REACH_ONLINE 1 or NC_REACH_OFFLINE 2, as nc_client_reachability() answers)
 * every time that state changes — once per change, in the order of the changes;
 * not for the state at install (read nc_client_reachability()), nor for a mode
 * change that leaves the state as it was. In "callbacks": "queue" mode it runs
 * inside nc_client_dispatch(), queued with the completions as the other hooks;
 * otherwise on the thread that saw the change: the process's route-watcher thread
 * (a routing change) or the thread whose nc_client_set_reachability() changed it
 * (then before that call returns, unless another thread is delivering an
 * earlier change, which then delivers this one too). Never two calls at once for
 * one client.
 *
 * Ownership: `userdata` is passed through and never freed; it must stay valid
 *   while the handler is installed and until nc_client_free() returns. `fn` NULL
 *   removes the handler.
 * Thread:    any thread, including from inside a hook. `fn` runs with no lock held
 *   and may call what the hooks may (section "Hooks: error handler…");
 *   nc_client_send_sync and nc_client_free are refused inside it as inside them.
 *   Keep it short: the route watcher serves every client of the process.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since: 0.4
 */
NC_API nc_status nc_client_set_reachability_handler(nc_client *client, nc_reachability_fn fn,
                                                    void *userdata);

/* ------------------------------------------------------------------------- */
/* 15. Response cache                                                        */
/* ------------------------------------------------------------------------- */

/*
 * With "cache" in the configuration (docs/caching.md) every cacheable GET/HEAD
 * answer is stored — status 200, no redirect followed, not Cache-Control:
 * no-store nor Vary: *, its body not sent to a body callback or an output file
 * (such a request is sent as NC_CACHE_NETWORK_ONLY; its callbacks run as without
 * a cache). Since 0.4 an answer to a request carrying credentials (Authorization,
 * Cookie, Proxy-Authorization, credential_headers, a token, basic credentials,
 * the cookie jar's cookies, a client certificate) is stored too, in the
 * partition of a SHA-256 of those values, or in the partition the app names
 * ("cache"."partition", nc_client_set_cache_partition()): answers never cross
 * from one partition to another, in memory or on disk. "cache"."shared": true
 * applies shared-cache rules instead: no partitions, no Cache-Control: private
 * answer, and an answer to a credentialed request only when it says public,
 * s-maxage or must-revalidate. The key is the partition, the method, the URL
 * with its query pairs sorted, and the request headers the answer's Vary names.
 * What is served is classified
 * again as the request reads it (envelope or raw), so a stored business error is
 * served as that error. Every answer from the cache has nc_response_from_cache()
 * == 1 and raises a "cache_hit" event. The policy decides when the cache is read:
 */
#define NC_CACHE_NETWORK_ONLY       0 /* default: never read; unconditional requests */
#define NC_CACHE_ELSE_NETWORK       1 /* fresh stored answer, else the network (stale: revalidated) */
#define NC_CACHE_NETWORK_ELSE_CACHE 2 /* network; a transport failure or no route: the stored answer */
#define NC_CACHE_THEN_NETWORK       3 /* stored answer to the cached callback, then the network's */
#define NC_CACHE_ONLY               4 /* stored answer or NC_CLIENT_NOT_CACHED; nothing sent */

/** A buffer of this many bytes always holds nc_client_cache_stats_json()'s text as
 * 0.3 wrote it (without "skipped"), and the whole text unless its counters are very
 * large: a smaller buffer that cannot hold the whole text gets the 0.3 members. */
#define NC_CACHE_STATS_MAX 512
/** A buffer of this many bytes always holds nc_client_cache_stats_json()'s whole
 * text, "skipped" included. Since 0.4. */
#define NC_CACHE_STATS_FULL_MAX 1024

/**
 * NC_CACHE_THEN_NETWORK: `fn` receives the stored answer (nc_response_from_cache()
 * == 1; `error` set when the stored answer is an error as the request reads it,
 * e.g. a business error) at most once, before the request's completion, on the
 * thread completions run on (the transfer thread; nc_client_dispatch() in queue
 * mode; the caller's thread for nc_client_send_sync()). Not called when nothing
 * usable is stored, for other policies, or for a request cancelled before it
 * started. The completion still runs exactly once, with the network's answer. `fn`
 * NULL removes it.
 *
 * Ownership: `request` is borrowed; `userdata` is passed through untouched; the
 *   response and error given to `fn` are borrowed for the call
 *   (nc_response_retain / nc_error_copy to keep them).
 * Thread:    the thread that uses the builder.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL request; unchanged).
 * Since:     0.3
 */
NC_API nc_status nc_request_set_cached_callback(nc_request *request, nc_complete_fn fn, void *userdata);

/**
 * Removes every stored answer, in memory and in the "cache"."dir" directory.
 * Requests in flight are not affected (an answer they receive may be stored).
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK (also when no cache is configured: nothing is stored);
 *   NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_cache_clear(nc_client *client);

/**
 * Removes the stored answers whose URL starts with `url_prefix`, in memory and
 * on disk. URLs are compared as stored: absolute, query pairs sorted, no fragment
 * ("http://host/api/users" removes "http://host/api/users?id=7" too).
 *
 * Ownership: `client` and `url_prefix` are borrowed.
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK (also when no cache is configured); NC_ERR_INVALID_ARGUMENT
 *   (NULL client or url_prefix, empty url_prefix; nothing removed).
 * Since:     0.3
 */
NC_API nc_status nc_client_cache_remove(nc_client *client, const char *url_prefix);

/**
 * Writes the cache's counters as JSON text (NUL-terminated) into `buf`:
 * {"hits","misses","stores","evictions","revalidations","not_modified","bytes",
 * "entries","disk_bytes","memory_limit","disk_limit","skipped"} — hits: answers
 * served from the cache (304s and cached callbacks included); misses: lookups by
 * a cache-reading policy that found nothing usable; evictions: entries the memory
 * store dropped to stay within memory_bytes; bytes/entries: the memory store now;
 * disk_bytes: this process's estimate of the directory's size; skipped (since
 * 0.4): answers not stored, by reason, every reason listed — "status" (not a 200,
 * or redirected), "no_store", "vary_star", "shared_private",
 * "shared_credentialed" (a shared cache), "credentials_changed" (the attempt sent
 * other credentials than the request was looked up with), "streamed" (a body
 * callback or an output file), "too_large", "disk_error". A log handler at
 * NC_LOG_DEBUG gets a line saying why each one was not stored.
 *
 * NC_CACHE_STATS_FULL_MAX bytes always hold the whole text; a buffer too small for
 * it but large enough for the members without "skipped" (NC_CACHE_STATS_MAX always
 * is: a program built against 0.3) receives those.
 *
 * Ownership: `client` is borrowed; `buf` (`cap` bytes) is the caller's; `len_out`
 *   (may be NULL) receives the text's length without the NUL.
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or buf, `cap` too small
 *   even for the members without "skipped" — NC_CACHE_STATS_MAX always suffices;
 *   nothing written); NC_ERR_INVALID_STATE (no cache configured; nothing written).
 * Since:     0.3
 */
NC_API nc_status nc_client_cache_stats_json(nc_client *client, char *buf, size_t cap, size_t *len_out);

/**
 * Names the partition every answer is stored in and looked up in from now on,
 * as "cache": {"partition"} does; NULL goes back to the default, the partition
 * of the credentials each request carries (a SHA-256 of its Authorization,
 * Cookie, Proxy-Authorization and "credential_headers" values, the token or
 * basic credentials, the cookie jar's cookies for its host, the client
 * certificate). A name stays the same across a token refresh, so the entries
 * survive it: give each user their own (an account id, say), and set it again
 * when the user changes. Answers stored under one partition are never served
 * under another, in memory or on disk. Requests already sent keep theirs. See
 * docs/caching.md, "Partitions".
 *
 * Ownership: `client` and `partition` are borrowed (the name is copied).
 * Thread:    any thread, including from inside a callback.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client, an empty name or one
 *   that is not UTF-8; nothing changed); NC_ERR_INVALID_STATE (no cache
 *   configured, or a shared one, "shared": true, which keeps no partitions;
 *   nothing changed); NC_ERR_NO_MEMORY (libcrypto could not hash the name).
 * Since:     0.4
 */
NC_API nc_status nc_client_set_cache_partition(nc_client *client, const char *partition);

/* ------------------------------------------------------------------------- */
/* 16. Cookies                                                               */
/* ------------------------------------------------------------------------- */

/*
 * A client made with "cookies": {"enabled": true} keeps the cookies servers set
 * (libcurl's cookie engine, one jar shared by all of the client's requests and
 * threads) and sends each back only where its rules allow: its host (or its
 * Domain's subdomains), its Path, https only when Secure, until it expires — on
 * redirect hops too. Off by default: a client without it keeps and sends none.
 * "cookies": {"file": "path"} loads a Netscape cookie file when the client is made
 * and writes it (atomically, mode 0600) at nc_client_free() and on
 * nc_client_cookies_flush(). Cookies are credentials: never logged or in events.
 * Bounded as browsers bound theirs: 180 cookies a domain and 3,000 in all; past
 * them the oldest are evicted (in all: from the domains holding the most).
 * docs/cookies.md.
 */

/**
 * Lists the jar's unexpired cookies as a JSON array of objects:
 * [{"name":"sid","value":"…","domain":"127.0.0.1","include_subdomains":false,
 *   "path":"/","secure":false,"http_only":true,"expires":0}, …]
 * "expires" is Unix seconds, 0 for a session cookie; "domain" has no leading dot.
 * The jar's bounds are enforced first, so the list never holds more than 180
 * cookies of one domain or 3,000 in all. A client without a jar lists "[]". The
 * values are credentials: do not log them.
 *
 * Ownership: `client` is borrowed. On NC_OK, *json_out receives a new
 *   NUL-terminated UTF-8 string the caller releases with nc_string_free().
 * Thread:    any thread (the jar has its own lock).
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL argument); NC_ERR_NO_MEMORY.
 *   *json_out is written only on NC_OK.
 * Since:     0.3
 */
NC_API nc_status nc_client_cookies_json(const nc_client *client, char **json_out);

/**
 * Forgets every cookie of the jar: requests sent from now on carry none until a
 * server sets one again. The cookie file keeps its contents until the next
 * nc_client_cookies_flush() or nc_client_free(), which write the empty jar.
 * Nothing on a client without a jar.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client).
 * Since:     0.3
 */
NC_API nc_status nc_client_cookies_clear(nc_client *client);

/**
 * Writes the jar to "cookies.file" now, as nc_client_free() does: a temporary
 * file beside it (mode 0600) renamed over it, so a reader sees the old file or the
 * new one, never part of one. Nothing (NC_OK) without a file or without a jar.
 *
 * Ownership: `client` is borrowed. On NC_ERR_FAILED, if `error_out` is not NULL,
 *   *error_out receives a new error (NC_DOMAIN_TRANSPORT 23, the message naming
 *   the file and the reason) released with nc_error_free().
 * Thread:    any thread.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client); NC_ERR_FAILED (the
 *   file could not be written; the previous file is unchanged).
 * Since:     0.3
 */
NC_API nc_status nc_client_cookies_flush(nc_client *client, nc_error **error_out);

/**
 * Releases a string the library returned as an owned out-parameter
 * (nc_client_cookies_json()).
 *
 * Ownership: consumes `s`. NULL is a no-op.
 * Thread:    any thread.
 * Returns:   nothing.
 * Since:     0.3
 */
NC_API void nc_string_free(char *s);

/* ------------------------------------------------------------------------- */
/* 17. Event-loop integration ("callbacks": "queue")                         */
/* ------------------------------------------------------------------------- */

/**
 * Returns a file descriptor that is readable while completions wait in the queue;
 * add it to select/poll/epoll, asyncio add_reader, libuv or GLib, and call
 * nc_client_dispatch() when it is readable. Do not read, write or close it.
 *
 * Ownership: the descriptor belongs to the client and is closed by nc_client_free().
 * Thread:    any thread.
 * Returns:   -1 unless the client was configured with "callbacks": "queue", or if
 *   `client` is NULL.
 * Since:     0.1
 */
NC_API int nc_client_fd(const nc_client *client);

/**
 * Runs every queued completion callback on the calling thread, in completion
 * order, and makes nc_client_fd() unreadable again. Completions queued while it
 * runs wait for the next call.
 *
 * Ownership: `client` is borrowed.
 * Thread:    any thread, one at a time per client (the caller's event loop thread).
 * Returns:   NC_OK (also when nothing was queued); NC_ERR_INVALID_ARGUMENT (NULL);
 *   NC_ERR_INVALID_STATE (the client is not in queue mode, or this is a nested
 *   call from a callback).
 * Since:     0.1
 */
NC_API nc_status nc_client_dispatch(nc_client *client);

/* ------------------------------------------------------------------------- */
/* 18. Stubs: canned answers, recording and replay                           */
/* ------------------------------------------------------------------------- */

/*
 * A client configured with "stubs" (docs/configuration.md, "Stubs") answers the
 * requests its routes match without the network; README, "Working offline: stubs
 * and recordings". A route is a JSON object:
 *
 *   {"method": "GET", "path": "/users/{id}", "query": {"page": "2"},
 *    "status": 200, "headers": {"ETag": "\"v1\""}, "body": {"id": 7},
 *    "delay_ms": 50, "times": 1}
 *
 *   "method"      the method it answers (absent or "*": any)
 *   "path"        the URL's path as sent (the base URL's path included, no query):
 *                 a "{name}" segment matches any one segment, a last "*" the rest
 *   "query"       parameters the request must carry (name -> value; null: any value)
 *   "status"      the HTTP status (default 200)
 *   "headers"     response headers, name -> string
 *   "body"        a string is sent as its UTF-8 text; any other JSON value compact,
 *                 with Content-Type: application/json unless "headers" names one
 *   "body_base64" / "body_file"  the body as base64, or a file's bytes (a relative
 *                 path is taken from "stubs.dir", else the working directory);
 *                 at most one of the three
 *   "delay_ms"    when the answer arrives (a request's timeout_ms cuts it: TRANSPORT 28)
 *   "error"       {"transport": <CURLcode 1-99>}: fail as the network would
 *                 (TRANSPORT <code>) instead of answering
 *   "times"       how many requests it answers, then it is passed over (default: no end)
 *   "responses"   instead of one answer at the route's level: answers given in
 *                 turn, the last one repeating ("fail twice, then succeed":
 *                 [{"status": 503}, {"status": 503}, {"status": 200, "body": …}])
 *
 * Routes are tried in order (configured, then "stubs.dir"'s files, then those
 * added here); the first that matches and has answers left answers. A stubbed
 * answer goes through everything a real one does — envelope and classification,
 * redirects, retries, the cache, hooks — and events say "stubbed": true. A
 * request no route answers goes to the network ("mode": "fallback") or completes
 * with NC_DOMAIN_CLIENT / NC_CLIENT_NO_STUB naming it, nothing sent ("mode":
 * "only", the default). Synchronous sends are answered the same way.
 * "stubs": {"record": "DIR"} writes each answer that came from the network as a
 * route file of DIR, without credentials (docs/configuration.md, "Recording"),
 * which "stubs": {"dir": "DIR"} replays.
 */

/**
 * Adds a route (the object above) after the client's others, for requests sent
 * from now on; requests already sent are unaffected. A "body_file" is read now.
 *
 * Ownership: `route_json` is borrowed (NUL-terminated UTF-8, copied). On failure,
 *   if `error_out` is not NULL, *error_out receives a new error (NC_DOMAIN_CLIENT /
 *   NC_CLIENT_INVALID_REQUEST whose message names the member and what is wrong,
 *   or that the client has no stubs) released with nc_error_free().
 * Thread:    any thread, including inside this client's callbacks.
 * Returns:   NC_OK; NC_ERR_INVALID_ARGUMENT (NULL client or route_json, invalid
 *   UTF-8, not JSON, an unknown member or a wrong value; nothing changes);
 *   NC_ERR_INVALID_STATE (the client was created without "stubs": give
 *   "stubs": {} to add routes later; nothing changes).
 * Since:     0.4
 */
NC_API nc_status nc_client_add_stub(nc_client *client, const char *route_json, nc_error **error_out);

#ifdef __cplusplus
}
#endif

#endif /* NETCORE_H */
