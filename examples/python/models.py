"""Typed models and streamed lines: the data as your classes, not dictionaries.

usage: python3 models.py BASE_URL
`model=` (or `response.data_as(...)`) turns the data into dataclasses, TypedDicts,
NamedTuples, enums, datetimes, lists and dicts of them — standard library only
(pydantic models too, when the app uses pydantic). A mismatch raises
netcore.ParseError naming the key path. Exits 1 on an unexpected result."""
import dataclasses
import datetime
import enum
import json
import sys
from typing import Dict, List, Optional, TypedDict

import netcore


class Status(enum.Enum):
    PAID = "paid"
    OPEN = "open"


@dataclasses.dataclass
class Item:
    sku: str
    qty: int
    price: float


@dataclasses.dataclass
class Order:
    id: int
    status: Status
    created: datetime.datetime
    items: List[Item]
    totals: Dict[str, float]
    note: Optional[str] = None


class User(TypedDict):
    id: int
    name: str


base = sys.argv[1]
with netcore.Client({"base_url": base}) as client:          # an ordinary JSON API
    user: User = client.get("/plain/users/7", model=User)
    order: Order = client.get("/plain/order", model=Order)
    print("user:", user["name"], "- order", order.id, order.status.name, order.created.isoformat())
    print("fourth item:", order.items[3])
    try:
        client.get("/plain/order", params={"price": '"free"'}, model=Order)
        mismatch = ""
    except netcore.ParseError as e:                          # code DECODING_FAILED
        mismatch = e.message
        print("mismatch:", mismatch)
    with client.stream("GET", "/ndjson", params={"n": 3}) as r:   # one JSON record a line
        records = [json.loads(line) for line in r.iter_lines()]
    print("ndjson:", [rec["i"] for rec in records])

with netcore.Client({"base_url": base, "envelope": {}}) as api:   # the same data in an envelope
    same = api.get("/env/order").data_as(Order)

ok = (user == {"id": 7, "name": "Ada"} and order.items[3].price == 4.5 and same == order
      and mismatch == "Could not decode Order: data.items[3].price: expected float, found string"
      and [rec["i"] for rec in records] == [0, 1, 2])
sys.exit(0 if ok else 1)
