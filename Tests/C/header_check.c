/*
 * header_check.c — compiled (never run) by Tests/C/run.sh as C99, C11 and C++11
 * with -Wall -Wextra -pedantic -Werror. Every function of the 0.1 API is named
 * here with its exact type, so a missing or changed declaration fails to compile.
 */
#include "netcore.h"

struct nc_api_table {
    const char *(*version)(void);
    uint32_t (*version_number)(void);
    const char *(*status_str)(nc_status);
    nc_domain (*error_domain)(const nc_error *);
    const char *(*error_domain_name)(const nc_error *);
    int64_t (*error_code)(const nc_error *);
    const char *(*error_code_str)(const nc_error *);
    const char *(*error_message)(const nc_error *);
    int32_t (*error_http_status)(const nc_error *);
    const char *(*error_trace_id)(const nc_error *);
    json_t *(*error_data)(const nc_error *);
    const char *(*error_data_json)(const nc_error *, size_t *);
    const void *(*error_body)(const nc_error *, size_t *);
    int32_t (*error_attempts)(const nc_error *);
    int (*error_is_retryable)(const nc_error *);
    int (*error_is_auth_expired)(const nc_error *);
    const char *(*error_json)(const nc_error *);
    nc_error *(*error_copy)(const nc_error *);
    void (*error_free)(nc_error *);
    nc_status (*client_new)(const char *, nc_client **, nc_error **);
    void (*client_free)(nc_client *);
    nc_status (*client_set_environment)(nc_client *, const char *);
    nc_status (*client_set_header)(nc_client *, const char *, const char *);
    nc_status (*request_new)(const char *, const char *, nc_request **);
    void (*request_free)(nc_request *);
    nc_status (*request_set_header)(nc_request *, const char *, const char *);
    nc_status (*request_set_query)(nc_request *, const char *, const char *);
    nc_status (*request_set_params_json)(nc_request *, const char *, size_t);
    nc_status (*request_set_params)(nc_request *, json_t *);
    nc_status (*request_set_encoding)(nc_request *, int32_t);
    nc_status (*request_set_body)(nc_request *, const void *, size_t, const char *);
    nc_status (*request_set_timeout_ms)(nc_request *, int64_t);
    nc_status (*request_set_envelope)(nc_request *, int);
    nc_status (*client_send)(nc_client *, const nc_request *, nc_complete_fn, void *, nc_task **);
    nc_status (*client_send_sync)(nc_client *, const nc_request *, nc_response **, nc_error **);
    void (*task_cancel)(nc_task *);
    void (*task_free)(nc_task *);
    int32_t (*response_status)(const nc_response *);
    const char *(*response_header)(const nc_response *, const char *);
    size_t (*response_header_count)(const nc_response *);
    nc_status (*response_header_at)(const nc_response *, size_t, const char **, const char **);
    const void *(*response_body)(const nc_response *, size_t *);
    json_t *(*response_json)(const nc_response *);
    json_t *(*response_data)(const nc_response *);
    const char *(*response_data_json)(const nc_response *, size_t *);
    int (*response_from_cache)(const nc_response *);
    nc_response *(*response_retain)(const nc_response *);
    void (*response_free)(nc_response *);
    int (*client_fd)(const nc_client *);
    nc_status (*client_dispatch)(nc_client *);
    nc_status (*request_set_output_file)(nc_request *, const char *);
    /* Since 0.3: hooks */
    nc_status (*request_set_flags)(nc_request *, uint32_t);
    nc_status (*client_set_error_handler)(nc_client *, nc_complete_fn, void *);
    nc_status (*client_set_auth_expired_handler)(nc_client *, nc_complete_fn, void *);
    nc_status (*client_set_event_handler)(nc_client *, nc_event_fn, void *);
    nc_status (*client_set_event_mask)(nc_client *, uint32_t);
    nc_status (*client_set_log_handler)(nc_client *, int32_t, nc_event_fn, void *);
    uint64_t (*task_id)(const nc_task *);
    const char *(*response_metrics_json)(const nc_response *);
    nc_status (*client_define_endpoint)(nc_client *, const char *, const char *);
    nc_status (*request_new_endpoint)(const char *, nc_request **);
    nc_status (*client_call)(nc_client *, const char *, const char *, size_t, nc_complete_fn, void *,
                             nc_task **);
    nc_status (*client_call_sync)(nc_client *, const char *, const char *, size_t, nc_response **,
                                  nc_error **);
};

struct nc_api_table nc_api_check_table = {
    nc_version,
    nc_version_number,
    nc_status_str,
    nc_error_domain,
    nc_error_domain_name,
    nc_error_code,
    nc_error_code_str,
    nc_error_message,
    nc_error_http_status,
    nc_error_trace_id,
    nc_error_data,
    nc_error_data_json,
    nc_error_body,
    nc_error_attempts,
    nc_error_is_retryable,
    nc_error_is_auth_expired,
    nc_error_json,
    nc_error_copy,
    nc_error_free,
    nc_client_new,
    nc_client_free,
    nc_client_set_environment,
    nc_client_set_header,
    nc_request_new,
    nc_request_free,
    nc_request_set_header,
    nc_request_set_query,
    nc_request_set_params_json,
    nc_request_set_params,
    nc_request_set_encoding,
    nc_request_set_body,
    nc_request_set_timeout_ms,
    nc_request_set_envelope,
    nc_client_send,
    nc_client_send_sync,
    nc_task_cancel,
    nc_task_free,
    nc_response_status,
    nc_response_header,
    nc_response_header_count,
    nc_response_header_at,
    nc_response_body,
    nc_response_json,
    nc_response_data,
    nc_response_data_json,
    nc_response_from_cache,
    nc_response_retain,
    nc_response_free,
    nc_client_fd,
    nc_client_dispatch,
    nc_request_set_output_file,
    nc_request_set_flags,
    nc_client_set_error_handler,
    nc_client_set_auth_expired_handler,
    nc_client_set_event_handler,
    nc_client_set_event_mask,
    nc_client_set_log_handler,
    nc_task_id,
    nc_response_metrics_json,
    nc_client_define_endpoint,
    nc_request_new_endpoint,
    nc_client_call,
    nc_client_call_sync,
};

/* Adapters, token, signing (0.3). */
struct nc_adapters_api_table {
    nc_status (*client_add_adapter)(nc_client *, nc_adapter_fn, void *);
    const char *(*outgoing_method)(const nc_outgoing *);
    const char *(*outgoing_url)(const nc_outgoing *);
    const char *(*outgoing_header)(const nc_outgoing *, const char *);
    const void *(*outgoing_body)(const nc_outgoing *, size_t *);
    nc_status (*outgoing_set_header)(nc_outgoing *, const char *, const char *);
    nc_status (*outgoing_fail)(nc_outgoing *, const char *);
    nc_status (*client_set_token)(nc_client *, const char *);
    nc_status (*client_set_basic_auth)(nc_client *, const char *, const char *);
    nc_status (*request_set_max_redirects)(nc_request *, int32_t);
    const char *(*response_url)(const nc_response *);
};

struct nc_adapters_api_table nc_adapters_api_check_table = {
    nc_client_add_adapter,    nc_outgoing_method,           nc_outgoing_url,  nc_outgoing_header,
    nc_outgoing_body,         nc_outgoing_set_header,       nc_outgoing_fail, nc_client_set_token,
    nc_client_set_basic_auth, nc_request_set_max_redirects, nc_response_url,
};
typedef char nc_check_adapter_codes[NC_CLIENT_ADAPTER_FAILED == 9 ? 1 : -1];

/* Retry and time limits (0.3). */
struct nc_retry_api_table {
    nc_status (*request_set_retry_json)(nc_request *, const char *, size_t);
    nc_status (*request_set_deadline_ms)(nc_request *, int64_t);
    nc_status (*request_set_connect_timeout_ms)(nc_request *, int64_t);
    nc_status (*request_set_idle_timeout_ms)(nc_request *, int64_t);
    nc_status (*client_set_retry_handler)(nc_client *, nc_retry_fn, void *);
};

struct nc_retry_api_table nc_retry_api_check_table = {
    nc_request_set_retry_json,      nc_request_set_deadline_ms,  nc_request_set_connect_timeout_ms,
    nc_request_set_idle_timeout_ms, nc_client_set_retry_handler,
};
typedef int64_t (*nc_check_retry_fn)(const nc_response *, const nc_error *, int32_t, void *);
typedef char nc_check_retry_fn_type[sizeof(nc_retry_fn) == sizeof(nc_check_retry_fn) ? 1 : -1];
typedef char nc_check_deadline_code[NC_CLIENT_DEADLINE_EXCEEDED == 10 ? 1 : -1];

/* Transfers (0.3): progress and streamed bodies, with their callback types. */
struct nc_transfer_api_table {
    nc_status (*request_set_progress)(nc_request *, nc_progress_fn, void *);
    nc_status (*request_set_body_callback)(nc_request *, nc_body_fn, void *);
};

struct nc_transfer_api_table nc_transfer_api_check_table = {
    nc_request_set_progress,
    nc_request_set_body_callback,
};
typedef void (*nc_check_progress_fn)(int64_t, int64_t, int64_t, int64_t, void *);
typedef char nc_check_progress_fn_type[sizeof(nc_progress_fn) == sizeof(nc_check_progress_fn) ? 1 : -1];
typedef int (*nc_check_body_fn)(const void *, size_t, void *);
typedef char nc_check_body_fn_type[sizeof(nc_body_fn) == sizeof(nc_check_body_fn) ? 1 : -1];

/* Every constant is an integer constant expression of the documented value. */
typedef char nc_check_version[(NC_VERSION_NUMBER >> 16) == NC_VERSION_MAJOR ? 1 : -1];
typedef char nc_check_status[(NC_OK == 0 && NC_ERR_INVALID_ARGUMENT == 1 && NC_ERR_INVALID_STATE == 2 &&
                              NC_ERR_NO_MEMORY == 3 && NC_ERR_FAILED == 4)
                                 ? 1
                                 : -1];
typedef char nc_check_domains[(NC_DOMAIN_CLIENT == 1 && NC_DOMAIN_TRANSPORT == 2 &&
                               NC_DOMAIN_HTTP == 3 && NC_DOMAIN_API == 4 && NC_DOMAIN_PARSE == 5)
                                  ? 1
                                  : -1];
typedef char nc_check_client_codes[(NC_CLIENT_CANCELLED == 1 && NC_CLIENT_UNREACHABLE == 2 &&
                                    NC_CLIENT_INVALID_REQUEST == 3 && NC_CLIENT_INVALID_CONFIG == 4 &&
                                    NC_CLIENT_RESPONSE_TOO_LARGE == 5 && NC_CLIENT_SHUTDOWN == 6 &&
                                    NC_CLIENT_HEADERS_TOO_LARGE == 7 && NC_CLIENT_INTERNAL == 8)
                                       ? 1
                                       : -1];
typedef char nc_check_parse_codes[(NC_PARSE_INVALID_JSON == 1 && NC_PARSE_NOT_OBJECT == 2 &&
                                   NC_PARSE_MISSING_FIELD == 3 && NC_PARSE_FIELD_TYPE == 4 &&
                                   NC_PARSE_DUPLICATE_KEY == 6)
                                      ? 1
                                      : -1];
typedef char nc_check_encodings[(NC_ENCODING_DEFAULT == 0 && NC_ENCODING_QUERY == 1 &&
                                 NC_ENCODING_FORM == 2 && NC_ENCODING_JSON == 3)
                                    ? 1
                                    : -1];

typedef char nc_check_request_flags[(NC_REQUEST_SKIP_ERROR_HANDLER == 1 && NC_REQUEST_NO_COALESCE == 2 &&
                                     NC_REQUEST_NO_RETRY == 4 && NC_REQUEST_IDEMPOTENT == 8 &&
                                     NC_REQUEST_SKIP_AUTH == 16)
                                        ? 1
                                        : -1];
typedef char nc_check_log_levels[(NC_LOG_OFF == 0 && NC_LOG_ERROR == 1 && NC_LOG_WARN == 2 &&
                                  NC_LOG_INFO == 3 && NC_LOG_DEBUG == 4 && NC_LOG_TRACE == 5)
                                     ? 1
                                     : -1];

const char nc_check_version_string[] = NC_VERSION_STRING;
