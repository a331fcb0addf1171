"""Typed models: model= on the request methods and call(), Response.data_as, for
every kind the standard library offers, and pydantic when present; a mismatch is a
ParseError (DECODING_FAILED) naming the key path, seen by the on_error hook."""
import dataclasses
import datetime
import decimal
import enum
import json
import os
import subprocess
import sys
import textwrap
import uuid
from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

import pytest

import netcore
from netcore._models import decode


class Status(enum.Enum):
    PAID = "paid"
    OPEN = "open"


@dataclasses.dataclass
class Customer:
    id: int
    name: str
    email: Optional[str]


@dataclasses.dataclass
class Item:
    sku: str
    qty: int
    price: float
    tags: List[str]


@dataclasses.dataclass
class Order:
    id: int
    status: Status
    created: datetime.datetime
    customer: Customer
    items: List[Item]
    totals: Dict[str, float]
    note: str = "none"


class ItemTD(TypedDict):
    sku: str
    qty: int


class ItemNT(NamedTuple):
    sku: str
    qty: int
    price: float = 0.0


class User(TypedDict):
    id: int
    name: str


def expect_failure(value, model, message):
    with pytest.raises(Exception) as info:
        decode(value, model)
    assert str(info.value) == message


# -- the decoder, on values -----------------------------------------------------

def test_scalars_and_their_mismatches():
    assert decode(3, int) == 3 and decode(3, float) == 3.0 and isinstance(decode(3, float), float)
    assert decode("x", str) == "x" and decode(True, bool) is True and decode(None, type(None)) is None
    expect_failure(True, int, "data: expected int, found boolean")
    expect_failure("3", int, "data: expected int, found string")
    expect_failure(1.5, int, "data: expected int, found number")
    expect_failure(None, str, "data: expected str, found null")
    expect_failure(1, bool, "data: expected bool, found integer")


def test_the_standard_library_kinds():
    assert decode("2026-11-28T12:00:00Z", datetime.datetime) == \
        datetime.datetime(2026, 11, 28, 12, tzinfo=datetime.timezone.utc)
    assert decode("2026-11-28", datetime.date) == datetime.date(2026, 11, 28)
    assert decode("12:30:00", datetime.time) == datetime.time(12, 30)
    assert decode("1.10", decimal.Decimal) == decimal.Decimal("1.10")
    u = uuid.uuid4()
    assert decode(str(u), uuid.UUID) == u
    assert decode("paid", Status) is Status.PAID
    assert decode(["a", 1], Tuple[str, int]) == ("a", 1)
    assert decode([1, 2], Tuple[int, ...]) == (1, 2)
    assert decode({"a": [1]}, Dict[str, List[int]]) == {"a": [1]}
    assert decode("b", Literal["a", "b"]) == "b"
    assert decode(None, Optional[int]) is None and decode(4, Optional[int]) == 4
    assert decode("x", Union[int, str]) == "x"
    assert decode({"sku": "A", "qty": 2, "other": 1}, ItemTD) == {"sku": "A", "qty": 2}
    assert decode({"sku": "A", "qty": 2}, ItemNT) == ItemNT("A", 2, 0.0)
    assert decode(["A", 2, 1.5], ItemNT) == ItemNT("A", 2, 1.5)
    assert decode({"x": 1}, Any) == {"x": 1}
    assert decode([1], list) == [1] and decode({"a": 1}, dict) == {"a": 1}


def test_mismatches_name_the_key_path():
    expect_failure("late", datetime.datetime,
                   "data: expected datetime (an ISO 8601 string), found 'late'")
    expect_failure("lost", Status, "data: expected Status (one of 'paid', 'open'), found string 'lost'")
    expect_failure({"sku": "A"}, ItemTD, "data.qty: key not found")
    expect_failure({"sku": "A", "qty": "2"}, ItemNT, "data.qty: expected int, found string")
    expect_failure([1, "2"], List[int], "data[1]: expected int, found string")
    expect_failure({"a": [1, None]}, Dict[str, List[int]], "data.a[1]: expected int, found null")
    expect_failure("c", Literal["a", "b"], "data: expected one of 'a', 'b', found string 'c'")
    expect_failure([1], Tuple[int, int], "data: expected tuple[int, int], found an array of 1")
    expect_failure({}, Union[int, str], "data: expected int | str, found object")
    expect_failure(3, ItemTD, "data: expected ItemTD, found integer")


def test_dataclass_defaults_optional_and_extra_keys():
    @dataclasses.dataclass
    class D:
        a: int
        b: Optional[int]
        c: str = "c"
        d: List[int] = dataclasses.field(default_factory=list)

    assert decode({"a": 1, "zzz": 0}, D) == D(1, None, "c", [])
    expect_failure({"b": 1}, D, "data.a: key not found")


def test_a_model_that_is_not_a_type_is_refused_before_sending(raw_client):
    with pytest.raises(TypeError):
        raw_client.get("/plain/users/7", model=42)


# -- through the clients --------------------------------------------------------

def test_model_on_get_in_raw_and_envelope_mode(raw_client, client):
    order = raw_client.get("/plain/order", model=Order)
    assert isinstance(order, Order) and order.status is Status.PAID
    assert order.created.tzinfo is datetime.timezone.utc
    assert order.items[3] == Item("A3", 4, 4.5, ["x"]) and order.customer.email is None
    assert order.totals == {"net": 10.5, "tax": 2.0} and order.note == "none"
    assert client.get("/env/order", model=Order) == order
    assert client.get("/env/order").data_as(Order) == order
    assert client.get("/env/code/ok", model=User) == {"id": 7, "name": "Ada"}


def test_a_mismatch_raises_a_parse_error_seen_by_on_error(base):
    seen = []
    with netcore.Client({"base_url": base, "envelope": {}}, on_error=seen.append) as c:
        with pytest.raises(netcore.ParseError) as info:
            c.get("/env/order", params={"price": json.dumps("free")}, model=Order)
        e = info.value
        assert e.code == netcore.ParseCode.DECODING_FAILED == 5
        assert e.message == "Could not decode Order: data.items[3].price: expected float, found string"
        assert e.domain == "NCParseErrorDomain" and e.http_status == 200 and e.attempts == 1
        assert e.response is not None and e.response.status_code == 200 and e.data["id"] == 42
        assert isinstance(e, ValueError)
        assert seen == [e]
        # data_as on a response in hand: the same error, the same hook.
        r = c.get("/env/order", params={"price": "null"})
        with pytest.raises(netcore.ParseError) as info:
            r.data_as(Order)
        assert info.value.message == "Could not decode Order: data.items[3].price: expected float, found null"
        assert seen[-1] is info.value and len(seen) == 2
        # skip_error_handler=True keeps it from the hook.
        with pytest.raises(netcore.ParseError):
            c.get("/env/order", params={"price": "[]"}, model=Order, skip_error_handler=True)
        assert len(seen) == 2


def test_call_with_model(base):
    with netcore.Client({"base_url": base, "envelope": {}}) as c:
        c.define_endpoint("user.get", path="/users/{id}")
        assert c.call("user.get", id=7, model=User) == {"id": 7, "name": "Ada"}
        c.define_endpoint("orders", path="/env/order")
        with pytest.raises(netcore.ParseError) as info:
            c.call("orders", model=List[Order])
        assert info.value.message == "Could not decode list[Order]: data: expected list, found object"


def test_async_model_and_call(base):
    import asyncio

    seen = []

    async def main():
        async with netcore.AsyncClient({"base_url": base, "envelope": {}}, on_error=seen.append) as c:
            c.define_endpoint("user.get", path="/users/{id}")
            assert await c.call("user.get", id=7, model=User) == {"id": 7, "name": "Ada"}
            order = await c.get("/env/order", model=Order)
            assert order.items[3].price == 4.5
            with pytest.raises(netcore.ParseError) as info:
                await c.get("/env/order", params={"price": '"x"'}, model=Order)
            return info.value

    e = asyncio.run(main())
    assert seen == [e] and "data.items[3].price: expected float, found string" in e.message


# -- pydantic, present and absent --------------------------------------------------

PYDANTIC_SCRIPT = textwrap.dedent('''
    import sys, json
    block = sys.argv[1] == "block"
    if block:
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "pydantic" or name.startswith("pydantic."):
                    raise ImportError("pydantic is not installed here")
        sys.meta_path.insert(0, Block())
    import dataclasses, netcore
    @dataclasses.dataclass
    class U:
        id: int
        name: str
    out = {"pydantic_loaded": "pydantic" in sys.modules}
    with netcore.Client({"base_url": sys.argv[2]}) as c:
        out["dataclass"] = dataclasses.asdict(c.get("/plain/users/7", model=U))
        if not block:
            import pydantic
            class P(pydantic.BaseModel):
                id: int
                name: str
                roles: list[str]
            out["pydantic"] = c.get("/plain/users/7", model=P).model_dump()
            class Bad(pydantic.BaseModel):
                id: str
            try:
                c.get("/plain/users/7", model=Bad)
            except netcore.ParseError as e:
                out["error"] = [e.code, e.message]
    print(json.dumps(out))
''')


def run_pydantic_script(mode, base):
    p = subprocess.run([sys.executable, "-c", PYDANTIC_SCRIPT, mode, base], capture_output=True,
                       text=True, timeout=60, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_without_pydantic_the_standard_library_models_work(base):
    out = run_pydantic_script("block", base)
    assert out == {"pydantic_loaded": False, "dataclass": {"id": 7, "name": "Ada"}}


def test_pydantic_models_when_installed(base):
    pytest.importorskip("pydantic")
    out = run_pydantic_script("use", base)
    assert out["pydantic_loaded"] is False  # netcore itself never imports it
    assert out["pydantic"] == {"id": 7, "name": "Ada", "roles": ["admin"]}
    code, message = out["error"]
    assert code == 5 and message.startswith("Could not decode Bad: data.id: ")
