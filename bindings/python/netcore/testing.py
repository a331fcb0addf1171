"""Stubs for tests and for working offline: canned answers, recording and replay
(README, "Working offline: stubs and recordings"; docs/configuration.md, "Stubs").

A client made with ``"stubs"`` answers the requests its routes match without the
network; the answer goes through everything a real one does (the envelope, retries,
the cache, hooks; events say ``"stubbed": true``). A request no route answers
raises :class:`netcore.NoStub` (``mode="only"``, the default) or goes to the
network (``mode="fallback"``)::

    import netcore, netcore.testing

    with netcore.testing.stubbed({"base_url": "http://api.test", "envelope": {}}) as client:
        netcore.testing.stub(client, "/users/{id}", json={"code": 0, "data": {"name": "Ada"}})
        assert client.get("/users/7").data == {"name": "Ada"}

As a pytest fixture::

    @pytest.fixture
    def client():
        with netcore.testing.stubbed(CONFIG) as c:
            yield c

A cassette: :func:`recording` writes every answer from the network into a
directory (credentials redacted), :func:`replaying` answers from it with no
network at all.
"""
from __future__ import annotations

import base64
import contextlib
import json as _json
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence, Type

from ._core import Config, config_text
from .client import Client

__all__ = ["stub", "answer", "stubbed", "recording", "replaying"]

_UNSET: Any = object()


def answer(status: int = 200, *, json: Any = _UNSET, body: Any = None, body_file: Optional[str] = None,
           headers: Optional[Mapping[str, str]] = None, delay_ms: int = 0,
           transport_error: Optional[int] = None) -> Dict[str, Any]:
    """One answer of a route, as a dict for :func:`stub`'s ``responses``:
    ``json`` any JSON value (sent compact, ``Content-Type: application/json``),
    ``body`` a ``str`` (its UTF-8 text) or ``bytes``, ``body_file`` a file's
    bytes; ``delay_ms`` when it arrives; ``transport_error`` a libcurl code
    (7, 28...) to fail with instead, as the network would
    (:class:`netcore.TransportError`)."""
    a: Dict[str, Any] = {}
    if transport_error is not None:
        a["error"] = {"transport": int(transport_error)}
    else:
        a["status"] = int(status)
    if headers:
        a["headers"] = dict(headers)
    if json is not _UNSET:
        a["body"] = json if not isinstance(json, str) else _json.dumps(json)
        if isinstance(json, str):
            a.setdefault("headers", {}).setdefault("Content-Type", "application/json")
    if body is not None:
        if isinstance(body, (bytes, bytearray)):
            a["body_base64"] = base64.b64encode(bytes(body)).decode("ascii")
        else:
            a["body"] = str(body)
    if body_file is not None:
        a["body_file"] = str(body_file)
    if delay_ms:
        a["delay_ms"] = int(delay_ms)
    return a


def stub(client: Any, path: str, *, method: Optional[str] = "GET", query: Optional[Mapping[str, Any]] = None,
         status: int = 200, json: Any = _UNSET, body: Any = None, body_file: Optional[str] = None,
         headers: Optional[Mapping[str, str]] = None, delay_ms: int = 0, transport_error: Optional[int] = None,
         times: Optional[int] = None, responses: Optional[Sequence[Mapping[str, Any]]] = None) -> None:
    """Add a route to ``client`` (made with ``"stubs"``, e.g. by :func:`stubbed`):
    ``method`` (``None``: any) and ``path`` (``"/users/{id}"``: a ``{name}`` segment
    matches any one, a last ``*`` the rest; the URL's path as sent, the base URL's
    path included), ``query`` parameters it requires (``None`` value: any). The
    answer is given by the keywords of :func:`answer`, or ``responses`` lists
    answers given in turn (the last repeats): ``[answer(503), answer(503),
    answer(json={...})]`` fails twice, then succeeds. ``times``: how many requests
    it answers before it is passed over.

    Raises:
        InvalidArgument: a wrong value (the message names it).
        InvalidState: the client was made without ``"stubs"``.
    """
    route: Dict[str, Any] = {"path": path}
    if method is not None:
        route["method"] = method
    if query:
        route["query"] = {k: (None if v is None else str(v) if not isinstance(v, bool) else str(v).lower())
                          for k, v in query.items()}
    if times is not None:
        route["times"] = int(times)
    if responses is not None:
        route["responses"] = [dict(r) for r in responses]
    else:
        route.update(answer(status, json=json, body=body, body_file=body_file, headers=headers,
                            delay_ms=delay_ms, transport_error=transport_error))
    client.add_stub(route)


def _with_stubs(config: Optional[Config], stubs: Dict[str, Any]) -> bytes:
    return config_text(config if config is not None else {}, {"stubs": stubs})


@contextlib.contextmanager
def stubbed(config: Optional[Config] = None, *, routes: Sequence[Mapping[str, Any]] = (), mode: str = "only",
            dir: Optional[str] = None, record: Optional[str] = None, client_class: Optional[Type[Any]] = None,
            **client_kwargs: Any) -> Iterator[Any]:
    """A :class:`netcore.Client` (or ``client_class``, e.g. :class:`netcore.AsyncClient`)
    made from ``config`` with ``"stubs"``: ``routes`` (dicts, as :meth:`Client.add_stub`
    takes), ``mode`` (``"only"``: a request no route answers raises
    :class:`netcore.NoStub`; ``"fallback"``: it goes to the network), ``dir`` (route
    files to replay), ``record`` (where to write the network's answers). Closed at
    the end of the ``with``."""
    stubs: Dict[str, Any] = {"routes": [dict(r) for r in routes], "mode": mode}
    if dir is not None:
        stubs["dir"] = str(dir)
    if record is not None:
        stubs["record"] = str(record)
    klass = client_class or Client
    client = klass(_json.loads(_with_stubs(config, stubs)), **client_kwargs)
    try:
        yield client
    finally:
        client.close()


def recording(dir: str, config: Optional[Config] = None, **kwargs: Any) -> "contextlib._GeneratorContextManager[Any]":
    """:func:`stubbed` recording every answer from the network into ``dir`` (made
    if missing; credentials, cookies and secret parameters redacted); requests a
    route answers are not sent nor recorded."""
    return stubbed(config, mode="fallback", record=dir, **kwargs)


def replaying(dir: str, config: Optional[Config] = None, **kwargs: Any) -> "contextlib._GeneratorContextManager[Any]":
    """:func:`stubbed` answering from the route files of ``dir`` (what
    :func:`recording` wrote), with no network: a request it holds no answer for
    raises :class:`netcore.NoStub`."""
    return stubbed(config, mode="only", dir=dir, **kwargs)
