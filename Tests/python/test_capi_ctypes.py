"""The C ABI as Python's ctypes sees it: the string (JSON text) forms only, no
json_t. The `netcore` package itself is tested by the other files; these tests pin
the ABI facts it relies on."""
import ctypes
import json

import pytest

NC_OK, NC_ERR_INVALID_ARGUMENT, NC_ERR_FAILED = 0, 1, 4


@pytest.fixture(scope="module")
def nc(libpath):
    lib = ctypes.CDLL(libpath)
    P = ctypes.c_void_p
    sigs = {
        "nc_version": (ctypes.c_char_p, []),
        "nc_version_number": (ctypes.c_uint32, []),
        "nc_client_new": (ctypes.c_int32, [ctypes.c_char_p, ctypes.POINTER(P), ctypes.POINTER(P)]),
        "nc_client_free": (None, [P]),
        "nc_request_new": (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(P)]),
        "nc_request_free": (None, [P]),
        "nc_request_set_params_json": (ctypes.c_int32, [P, ctypes.c_char_p, ctypes.c_size_t]),
        "nc_request_set_encoding": (ctypes.c_int32, [P, ctypes.c_int32]),
        "nc_request_set_header": (ctypes.c_int32, [P, ctypes.c_char_p, ctypes.c_char_p]),
        "nc_client_send_sync": (ctypes.c_int32, [P, P, ctypes.POINTER(P), ctypes.POINTER(P)]),
        "nc_response_status": (ctypes.c_int32, [P]),
        "nc_response_data_json": (ctypes.c_char_p, [P, ctypes.POINTER(ctypes.c_size_t)]),
        "nc_response_free": (None, [P]),
        "nc_error_json": (ctypes.c_char_p, [P]),
        "nc_error_message": (ctypes.c_char_p, [P]),
        "nc_error_free": (None, [P]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def new_client(nc, config):
    client, err = ctypes.c_void_p(), ctypes.c_void_p()
    status = nc.nc_client_new(json.dumps(config).encode(), ctypes.byref(client), ctypes.byref(err))
    return status, client, err


def send(nc, client, method, path, params=None, header=None):
    req = ctypes.c_void_p()
    assert nc.nc_request_new(method.encode(), path.encode(), ctypes.byref(req)) == NC_OK
    try:
        if params is not None:
            text = json.dumps(params).encode()
            assert nc.nc_request_set_params_json(req, text, len(text)) == NC_OK
            assert nc.nc_request_set_encoding(req, 3) == NC_OK
        if header is not None:
            status = nc.nc_request_set_header(req, header[0], header[1])
            if status != NC_OK:
                return status, None, None
        resp, err = ctypes.c_void_p(), ctypes.c_void_p()
        status = nc.nc_client_send_sync(client, req, ctypes.byref(resp), ctypes.byref(err))
        return status, resp, err
    finally:
        nc.nc_request_free(req)


def test_version_matches_header(nc, header_version):
    text, number = header_version
    assert nc.nc_version() == text.encode("ascii")
    assert nc.nc_version_number() == number


def test_envelope_success_and_business_error(nc, server):
    status, client, _ = new_client(nc, {"base_url": server.base_url + "/api", "envelope": {}})
    assert status == NC_OK
    try:
        status, resp, err = send(nc, client, "POST", "/login", {"username": "ada", "password": "secret"})
        assert status == NC_OK and not err.value
        n = ctypes.c_size_t()
        data = json.loads(nc.nc_response_data_json(resp, ctypes.byref(n)))
        assert data == {"token": "tok-ada", "expires_in": 3600}
        assert n.value == len(json.dumps(data, separators=(",", ":")))
        nc.nc_response_free(resp)

        status, resp, err = send(nc, client, "POST", "/login", {"username": "ada", "password": "nope"})
        assert status == NC_ERR_FAILED
        e = json.loads(nc.nc_error_json(err))
        assert e["domain"] == "NCAPIErrorDomain"
        assert (e["code"], e["code_str"], e["trace_id"]) == (1001, "1001", "trace-login")
        assert e["message"] == "wrong username or password"
        assert e["data"] == {"attempts_left": 2}
        assert nc.nc_response_status(resp) == 200
        nc.nc_response_free(resp)
        nc.nc_error_free(err)
    finally:
        nc.nc_client_free(client)


def test_bad_config_names_the_key(nc):
    status, client, err = new_client(nc, {"timeout_ms": "soon"})
    assert status == NC_ERR_INVALID_ARGUMENT
    assert not client.value
    assert b"'timeout_ms'" in nc.nc_error_message(err)
    nc.nc_error_free(err)


def test_header_injection_is_refused_and_nothing_sent(nc, server):
    status, client, _ = new_client(nc, {"base_url": server.base_url})
    try:
        status, _, _ = send(nc, client, "GET", "/echo", header=(b"X-A", b"v\r\nX-Injected: 1"))
        assert status == NC_ERR_INVALID_ARGUMENT
    finally:
        nc.nc_client_free(client)
