"""Hooks in Python: on_auth_expired, on_event, event_hooks, the "netcore" logger,
Response.elapsed / .metrics, for Client and AsyncClient."""
import asyncio
import datetime
import logging
import threading

import pytest

import netcore

ENVELOPE = {"code": "code", "ok_codes": [0], "message": "msg", "data": "data",
            "auth_expired_codes": [401001]}


def test_on_auth_expired_once_per_expiry(base):
    seen = []
    lock = threading.Lock()

    def expired(err):
        with lock:
            seen.append(err)

    # "coalesce": False: 20 transfers failing together, not one shared transfer.
    with netcore.Client({"base_url": base, "envelope": ENVELOPE, "coalesce": False},
                        on_auth_expired=expired) as c:
        tasks = [c.send("GET", "/profile") for _ in range(20)]
        for t in tasks:
            assert isinstance(t.exception(timeout=20), netcore.APIError)
        assert len(seen) == 1 and isinstance(seen[0], netcore.APIError) and seen[0].code == 401001
        c.set_header("Authorization", "Bearer also-expired")
        with pytest.raises(netcore.APIError):
            c.get("/profile")
        assert len(seen) == 2


def test_events_hooks_and_metrics_carry_no_secrets(base):
    events, starts, ends = [], [], []
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}, on_event=events.append,
                        event_hooks={"request": [starts.append], "response": [ends.append]}) as c:
        c.set_header("Authorization", "Bearer SECRET-TOKEN")
        r = c.get("/env/code/ok", params={"token": "SECRET-Q", "page": 2, "auth[token]": "SECRET-N"})
        assert r.data == {"id": 7, "name": "Ada"}
        assert isinstance(r.elapsed, datetime.timedelta) and r.elapsed.total_seconds() >= 0
        assert r.metrics["attempts"] == 1 and len(r.metrics["attempt_log"]) == 1
        assert "SECRET" not in repr(r.metrics)
    assert [e["event"] for e in events] == ["request_start", "attempt_end", "request_end"]
    assert all("SECRET" not in repr(e) for e in events)
    assert "token=REDACTED" in events[0]["url"] and "page=2" in events[0]["url"]
    assert len(starts) == 1 and starts[0].method == "GET" and starts[0].id == events[0]["id"]
    assert len(ends) == 1 and ends[0].status_code == 200 and ends[0].error is None


def test_event_kinds_choose_what_crosses_into_python(base, monkeypatch):
    from netcore import _hooks
    seen_masks = []
    real_mask = _hooks.event_mask
    monkeypatch.setattr(_hooks, "event_mask", lambda *a: seen_masks.append(real_mask(*a)) or seen_masks[-1])
    events, ends = [], []
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}, on_event=events.append,
                        event_kinds=["request_end"]) as c:
        c.get("/env/code/ok")
        c.get("/env/code/ok")
    assert [e["event"] for e in events] == ["request_end", "request_end"]
    # response hooks alone ask for request_end only; request_start is not delivered to on_event
    # when event_kinds leaves it out, though a request hook needs it
    events.clear()
    starts = []
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}, event_hooks={"response": [ends.append]}) as c:
        c.get("/env/code/ok")
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}, on_event=events.append,
                        event_kinds=["attempt_end"], event_hooks={"request": [starts.append]}) as c:
        c.get("/env/code/ok")
    assert len(ends) == 1 and ends[0].status_code == 200
    assert [e["event"] for e in events] == ["attempt_end"] and len(starts) == 1
    assert seen_masks == [0x10, 0x10, 0x02 | 0x01]
    for bad, message in ((dict(event_kinds=["request_end"]), "give on_event too"),
                         (dict(on_event=events.append, event_kinds=["nope"]), "unknown kind"),
                         (dict(on_event=events.append, event_kinds="request_end"), "not the string")):
        with pytest.raises(ValueError, match=message):
            netcore.Client({"base_url": base}, **bad)
    with netcore.Client({"base_url": base}) as c, c._core.use() as h:
        from netcore.errors import check_call
        with pytest.raises(netcore.InvalidArgument):
            check_call(netcore._capi.C.nc_client_set_event_mask, h, 0x20)
        check_call(netcore._capi.C.nc_client_set_event_mask, h, 0x1f)


def test_event_hook_errors_are_reported_not_raised(base, caplog):
    def boom(_):
        raise RuntimeError("hook failed")

    with netcore.Client({"base_url": base, "envelope": ENVELOPE}, event_hooks={"response": [boom]}) as c:
        assert c.get("/env/code/ok").status == 200
    with pytest.raises(ValueError):
        netcore.Client({"base_url": base}, event_hooks={"bogus": []})


def test_netcore_logger_receives_lines_when_enabled(base, caplog):
    with caplog.at_level(logging.DEBUG, logger="netcore"):
        with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
            c.set_header("Authorization", "Bearer SECRET-TOKEN")
            c.get("/env/code/ok", params={"api_key": "SECRET-K"})
            with pytest.raises(netcore.APIError):
                c.get("/env/code/fail")
    records = [r for r in caplog.records if r.name == "netcore"]
    infos = [r.getMessage() for r in records if r.levelno == logging.INFO]
    assert any(m.startswith("GET http://127.0.0.1:") and " => 200 (" in m for m in infos)
    assert any(r.levelno == logging.WARNING and "NCAPIErrorDomain 1001" in r.getMessage() for r in records)
    assert any(r.levelno == logging.DEBUG for r in records)
    assert all("SECRET" not in r.getMessage() for r in records)


class Captured(logging.Handler):
    """The records the "netcore" logger hands to its handlers, while installed."""

    def __init__(self):
        super().__init__(logging.NOTSET)
        self.records = []

    def emit(self, record):
        self.records.append(record)

    def lines(self):
        """The library's request lines (``METHOD url => ...``) received so far."""
        return [r for r in self.records if " => " in r.getMessage()]


@pytest.fixture
def netcore_log():
    """``netcore_log(level)``: the "netcore" logger at ``level`` (NOTSET: its parents'),
    with a Captured handler; levels and handlers restored afterwards."""
    log, root = logging.getLogger("netcore"), logging.getLogger()
    saved = (log.level, root.level, log.propagate)
    handler = Captured()

    def setup(level, root_level=logging.WARNING):
        log.setLevel(level)
        root.setLevel(root_level)
        log.propagate = False  # only ours: no pytest/root handler involved
        log.addHandler(handler)
        return handler

    yield setup
    log.removeHandler(handler)
    log.setLevel(saved[0])
    root.setLevel(saved[1])
    log.propagate = saved[2]


def test_logger_at_warning_gets_each_failure_without_secrets(base, netcore_log):
    got = netcore_log(logging.WARNING)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        c.set_token("SECRET-BEARER")
        assert c.get("/env/code/ok", params={"token": "SECRET"}).status == 200
        assert got.lines() == []  # a success logs nothing at WARNING
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500", params={"token": "SECRET", "page": 2})
    (record,) = got.lines()
    message = record.getMessage()
    assert record.levelno == logging.WARNING and record.name == "netcore"
    assert message.startswith("GET http://127.0.0.1:") and "/api/status/500?" in message
    assert "NCHTTPErrorDomain 500" in message and "page=2" in message
    assert "SECRET" not in message


def test_a_servers_message_cannot_forge_a_log_line(base, netcore_log):
    """CR, LF and ESC in an envelope's message reach the record escaped: one line."""
    got = netcore_log(logging.WARNING)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        with pytest.raises(netcore.APIError) as info:
            c.get("/status/200", params={"body": "envelope", "code": 7, "msg": "a\r\nINFO forged\x1b[2J"})
    assert info.value.message == "a\r\nINFO forged\x1b[2J"  # the error keeps what the server said
    (record,) = got.lines()
    assert "NCAPIErrorDomain 7: a\\r\\nINFO forged\\x1B[2J (" in record.getMessage()
    assert "\n" not in record.getMessage() and "\x1b" not in record.getMessage()


def test_python_default_level_gets_failures(base, netcore_log):
    """No level set anywhere: the root logger's WARNING (Python's default) applies."""
    got = netcore_log(logging.NOTSET, root_level=logging.WARNING)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        c.get("/env/code/ok")
        with pytest.raises(netcore.APIError):
            c.post("/env/code/fail", data={"password": "SECRET"})
    (record,) = got.lines()
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("POST http://") and "/env/code/fail" in record.getMessage()
    assert "SECRET" not in record.getMessage()


def test_logger_at_info_gets_successes(base, netcore_log):
    got = netcore_log(logging.INFO)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        c.get("/env/code/ok", params={"api_key": "SECRET"})
    (record,) = got.lines()
    assert record.levelno == logging.INFO and " => 200 (" in record.getMessage()
    assert "/env/code/ok" in record.getMessage() and "SECRET" not in record.getMessage()


def test_async_client_logs_failures_at_warning(base, netcore_log):
    got = netcore_log(logging.WARNING)

    async def main():
        async with netcore.AsyncClient({"base_url": base, "envelope": ENVELOPE}) as c:
            await c.get("/env/code/ok")
            with pytest.raises(netcore.HTTPError):
                await c.delete("/status/503", params={"secret": "SECRET"})

    asyncio.run(main())
    (record,) = got.lines()
    assert record.levelno == logging.WARNING and record.getMessage().startswith("DELETE http://")
    assert "/status/503" in record.getMessage() and "SECRET" not in record.getMessage()


@pytest.mark.parametrize("level, kept", [(logging.WARNING, False), (logging.INFO, False), (logging.DEBUG, True)])
def test_attempt_log_is_kept_for_a_debug_logger_only(base, netcore_log, level, kept):
    """A logger at WARNING (Python's default) or INFO writes no timings, so none are read."""
    netcore_log(level)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        metrics = c.get("/env/code/ok").metrics
    assert metrics["attempts"] == 1
    assert len(metrics["attempt_log"]) == (1 if kept else 0)


@pytest.mark.parametrize("level", [logging.ERROR, logging.CRITICAL + 1])
def test_logger_above_warning_installs_nothing(base, netcore_log, level):
    got = netcore_log(level)
    with netcore.Client({"base_url": base, "envelope": ENVELOPE}) as c:
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500")
        assert c.get("/env/code/ok").metrics["attempt_log"] == []  # no log handler installed
    assert got.records == []


@pytest.mark.parametrize("level, expected", [
    (logging.DEBUG, "NC_LOG_DEBUG"), (logging.INFO, "NC_LOG_INFO"), (logging.WARNING, "NC_LOG_WARN"),
    (logging.ERROR, "NC_LOG_OFF"), (logging.CRITICAL, "NC_LOG_OFF"), (logging.CRITICAL + 1, "NC_LOG_OFF"),
])
def test_log_level_mapping_uses_the_headers_levels(level, expected, header_macros):
    from netcore import _hooks
    log = logging.Logger("netcore-test", level)
    assert _hooks.log_level_for(log) == header_macros[expected]


def _run_app(base, code):
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(netcore.__file__))))
    script = ("import logging, netcore\n" + code + "\n"
              "with netcore.Client({'base_url': %r}) as c:\n"
              "    try:\n"
              "        c.get('/status/500')\n"
              "    except netcore.HTTPError:\n"
              "        print('failed as expected')\n"
              "    c.send('GET', '/echo', callback=lambda r, e: 1 / 0).wait(10)\n") % base
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "failed as expected\n", p.stderr
    return p.stderr


def test_an_app_without_logging_config_prints_nothing(base):
    """The package's NullHandler: no "last resort" output on stderr."""
    assert _run_app(base, "") == ""


def test_an_app_with_logging_config_gets_the_warning(base):
    err = _run_app(base, "logging.basicConfig()")
    assert "WARNING:netcore:GET http://127.0.0.1:" in err and "/api/status/500 => NCHTTPErrorDomain 500" in err
    assert "ERROR:netcore:netcore: completion callback" in err and "ZeroDivisionError" in err


def test_async_client_hooks(base):
    async def main():
        events, expired = [], []
        async with netcore.AsyncClient({"base_url": base, "envelope": ENVELOPE},
                                       on_event=events.append, on_auth_expired=expired.append) as c:
            r = await c.get("/env/code/ok")
            assert r.metrics["attempts"] == 1 and r.elapsed >= datetime.timedelta(0)
            results = await asyncio.gather(*[c.get("/profile") for _ in range(5)], return_exceptions=True)
            assert all(isinstance(x, netcore.APIError) for x in results)
        assert len(expired) == 1
        assert {"request_start", "attempt_end", "request_end"} <= {e["event"] for e in events}

    asyncio.run(main())
