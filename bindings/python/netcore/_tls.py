"""``verify=``, ``cert=``, ``proxy=`` and ``http2=`` of :class:`netcore.Client` and
:class:`netcore.AsyncClient`, in the names requests and httpx use, turned into the
configuration's ``"tls"``, ``"proxy"`` and ``"http_version"`` keys
(``docs/tls.md``). The library checks the values (files readable, URL form) and
refuses bad ones with :class:`~netcore.InvalidConfig` naming the key.

TLS options only narrow trust: ``verify=False`` is refused, since the library has
no way to turn certificate verification off. Trust a development server's
self-signed certificate with ``verify="dev-cert.pem"`` instead.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Tuple, Union

from .errors import ClientCode, Error, client_error

Verify = Union[bool, str, "os.PathLike[str]"]
Cert = Union[str, "os.PathLike[str]", Tuple[Union[str, "os.PathLike[str]"], Union[str, "os.PathLike[str]"]]]

_UNSET: Any = object()


def _invalid(message: str) -> Error:
    return client_error(ClientCode.INVALID_CONFIG, message)


def _path(value: Any, name: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise _invalid(f"{name} must be a path (str or os.PathLike), not {type(value).__name__}")


def connection_keys(verify: Verify = True, cert: Optional[Cert] = None,
                    proxy: Optional[str] = _UNSET, http2: Optional[bool] = None,
                    coalesce: Optional[bool] = None) -> Dict[str, Any]:
    """The configuration members the keyword arguments stand for ({} for the defaults).

    verify: ``True`` (the default): the system CA store; a path: a CA bundle file
        (``tls.ca_file``) or a directory made by ``openssl rehash`` (``tls.ca_path``),
        the only CAs trusted. ``False`` is refused with
        :class:`~netcore.InvalidConfig`.
    cert: a PEM file with the client certificate and its key (``tls.client_cert``),
        or a ``(cert, key)`` pair (``tls.client_key`` too).
    proxy: a proxy URL for every request (``proxy.url``); ``""`` or ``None``: no
        proxy whatever the environment says. Not given: the environment's.
    http2: ``True``: ``http_version`` ``"2"`` (HTTP/2 over https when the server
        offers it); ``False``: ``"1.1"``.
    coalesce: ``"coalesce"`` (identical GET/HEAD requests in flight share one
        transfer; default ``True``). The core checks its type.
    """
    tls: Dict[str, Any] = {}
    if verify is False:
        raise _invalid("verify=False is not supported: libnetcore always verifies the server's "
                       "certificate and host name. To trust a private CA or a development server's "
                       "self-signed certificate, pass its PEM file: verify=\"ca.pem\" (docs/tls.md).")
    if verify is not True:
        path = _path(verify, "verify")
        tls["ca_path" if os.path.isdir(path) else "ca_file"] = path
    if cert is not None:
        if isinstance(cert, tuple):
            if len(cert) != 2:
                raise _invalid("cert must be a path or a (cert, key) pair")
            tls["client_cert"] = _path(cert[0], "cert[0]")
            tls["client_key"] = _path(cert[1], "cert[1]")
        else:
            tls["client_cert"] = _path(cert, "cert")
    out: Dict[str, Any] = {}
    if tls:
        out["tls"] = tls
    if proxy is not _UNSET:
        if proxy is not None and not isinstance(proxy, str):
            raise _invalid(f"proxy must be a URL string or None, not {type(proxy).__name__}")
        out["proxy"] = {"url": proxy or ""}
    if http2 is not None:
        out["http_version"] = "2" if http2 else "1.1"
    if coalesce is not None:
        out["coalesce"] = coalesce
    return out


def with_connection_keys(config: bytes, keys: Dict[str, Any]) -> bytes:
    """The configuration text with ``keys`` merged in: the keyword arguments win over
    the same members of the configuration (``"tls"`` and ``"proxy"`` member by
    member). Text that is not a JSON object is passed on unchanged for the library
    to report."""
    if not keys:
        return config
    try:
        obj = json.loads(config.decode("utf-8"))
    except ValueError:
        return config
    if not isinstance(obj, dict):
        return config
    for name, value in keys.items():
        current = obj.get(name)
        obj[name] = dict(current, **value) if isinstance(value, dict) and isinstance(current, dict) else value
    return json.dumps(obj).encode("utf-8")
