"""The calls the benchmark makes into libnetcore's Python binding (bindings/python,
package `netcore`), kept in one place so an API change touches one file.

The binding is imported from $NETCORE_BINDING_PATH (bench/run.sh sets it to
bindings/python when that folder exists) and loads $NETCORE_LIBRARY (the
release build in build/lib).
"""
import os
import sys

_path = os.environ.get("NETCORE_BINDING_PATH")
if _path and _path not in sys.path:
    sys.path.insert(0, _path)

import netcore  # noqa: E402  (ImportError: the peer is skipped with a note)


def sync_client(config):
    return netcore.Client(config)


def sync_get(client, url, raw):
    """one GET; returns the body size. Envelope mode reads .data (the business
    data as Python objects, what a caller uses); raw mode reads the body bytes."""
    r = client.get(url, envelope=False) if raw else client.get(url)
    body = r.body
    if not raw and r.data is None:
        raise ValueError("no data")
    return len(body)


def close(client):
    client.close()


async def async_client(config):
    return netcore.AsyncClient(config)


async def async_get(client, url, raw):
    r = await (client.get(url, envelope=False) if raw else client.get(url))
    body = r.body
    if not raw and r.data is None:
        raise ValueError("no data")
    return len(body)


async def async_close(client):
    await client.aclose()
