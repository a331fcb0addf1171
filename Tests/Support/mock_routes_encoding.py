"""Content encodings beyond /gzip: every encoding libcurl can decode (gzip, deflate,
br, zstd), for the check that what the client advertises it also decodes, and
that decoded bytes count against limits.max_response_bytes whatever the encoding.
brotli and zstd are compressed through the system's libbrotlienc / libzstd (ctypes,
no Python package needed); without them those routes answer 501.

  /encoding/body?enc=E&pad=N   the ok envelope {"code":0,"msg":"ok","data":{"enc":E,
                               "accept_encoding":the request's Accept-Encoding,
                               "pad":"a" * N (default 2000)}}, compressed with E
                               (gzip, deflate, br, zstd), "Content-Encoding: E"
  /encoding/bomb?enc=E&mb=N    N MiB (default 16, at most 256) of zeros compressed
                               with E, "Content-Encoding: E" (cached per E and N)
"""
import ctypes
import ctypes.util
import gzip
import threading
import zlib

from mock_server import JSON_TYPE, dumps, ok


def _load(name, soname):
    try:
        return ctypes.CDLL(ctypes.util.find_library(name) or soname)
    except OSError:
        return None


def _brotli_compressor():
    lib = _load("brotlienc", "libbrotlienc.so.1")
    if lib is None:
        return None
    lib.BrotliEncoderMaxCompressedSize.restype = ctypes.c_size_t
    lib.BrotliEncoderMaxCompressedSize.argtypes = [ctypes.c_size_t]
    lib.BrotliEncoderCompress.restype = ctypes.c_int
    lib.BrotliEncoderCompress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_size_t,
                                          ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p]

    def compress(data):
        size = ctypes.c_size_t(lib.BrotliEncoderMaxCompressedSize(len(data)) or len(data) + 1024)
        out = ctypes.create_string_buffer(size.value)
        # quality 5, window 22 (BROTLI_DEFAULT_WINDOW), mode 0 (generic)
        if not lib.BrotliEncoderCompress(5, 22, 0, len(data), data, ctypes.byref(size), out):
            raise RuntimeError("BrotliEncoderCompress failed")
        return out.raw[:size.value]
    return compress


def _zstd_compressor():
    lib = _load("zstd", "libzstd.so.1")
    if lib is None:
        return None
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    lib.ZSTD_isError.restype = ctypes.c_uint
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]

    def compress(data):
        out = ctypes.create_string_buffer(lib.ZSTD_compressBound(len(data)))
        n = lib.ZSTD_compress(out, len(out), data, len(data), 3)
        if lib.ZSTD_isError(n):
            raise RuntimeError("ZSTD_compress failed")
        return out.raw[:n]
    return compress


COMPRESSORS = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "deflate": zlib.compress,  # zlib framing: what "deflate" means in HTTP
    "br": _brotli_compressor(),
    "zstd": _zstd_compressor(),
}

_bombs = {}
_bombs_lock = threading.Lock()


def _compressor(h):
    enc = h.arg("enc", "gzip")
    compress = COMPRESSORS.get(enc)
    if compress is None:
        h.send_json(501, ok({"enc": enc, "reason": "this machine cannot compress with it"}))
    return enc, compress


def route_body(h):
    enc, compress = _compressor(h)
    if compress is None:
        return
    data = {"enc": enc, "accept_encoding": h.headers.get("Accept-Encoding"),
            "pad": "a" * min(max(0, h.int_arg("pad", 2000)), 1 << 20)}
    h.send_body(200, compress(dumps(ok(data))), JSON_TYPE,
                [("Content-Encoding", enc), ("Vary", "Accept-Encoding")])


def route_bomb(h):
    enc, compress = _compressor(h)
    if compress is None:
        return
    mb = min(max(1, h.int_arg("mb", 16)), 256)
    with _bombs_lock:
        if (enc, mb) not in _bombs:
            _bombs[(enc, mb)] = compress(b"\0" * (mb << 20))
        body = _bombs[(enc, mb)]
    h.send_body(200, body, JSON_TYPE, [("Content-Encoding", enc)])


ROUTES = {"/encoding/body": route_body, "/encoding/bomb": route_bomb}
