"""Typed models: business data (``Response.data``, JSON values) turned into the
classes an app declares — ``model=`` of the request methods and ``call``, and
:meth:`netcore.Response.data_as`.

Standard library only. A model is one of:

* ``dataclasses`` (their fields, defaults kept; keys the class does not name are
  ignored, as Swift's ``Decodable`` ignores them), ``typing.TypedDict`` (a dict
  with its required keys checked), ``typing.NamedTuple`` (from an object by field
  name, or from an array by position);
* ``enum.Enum`` subclasses (by value), ``typing.Literal``;
* ``Optional[X]`` and unions (the first arm that matches wins), ``Any``;
* ``list[X]``, ``tuple[X, ...]``, ``tuple[A, B]``, ``set[X]``, ``frozenset[X]``,
  ``dict[str, X]`` (and their ``typing`` spellings and ``Sequence`` / ``Mapping``),
  nested to any depth;
* ``str``, ``int`` (a JSON integer), ``float`` (any JSON number), ``bool``,
  ``None``, ``decimal.Decimal`` (a number or a numeric string), ``uuid.UUID``,
  ``datetime.datetime`` / ``date`` / ``time`` (ISO 8601 strings; ``Z`` accepted);
* a pydantic model (``BaseModel`` subclass) when the app uses pydantic: validated
  with ``model_validate`` (pydantic 2) or ``parse_obj`` (pydantic 1). netcore never
  imports pydantic itself: it looks for the module the model came from.

A value that does not fit raises :class:`netcore.ParseError` with code
``ParseCode.DECODING_FAILED`` (``NC_PARSE_DECODING_FAILED``) whose message names the
key path from ``data``, as Swift's ``Response.decode`` does::

    Could not decode Order: data.items[3].price: expected float, found string
"""
from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import sys
import types
import typing
import uuid
from collections.abc import Mapping as AbcMapping, Sequence as AbcSequence, Set as AbcSet
from typing import Any, Dict, List, Tuple, TypeVar, Union

__all__ = ["decode", "check_model", "DecodeFailure", "model_name", "ROOT"]

#: The name of the decoded value in a message: the path starts there.
ROOT = "data"

_UnionType: Any = getattr(types, "UnionType", None)  # X | Y (Python 3.10+)
_is_typeddict: Any = getattr(typing, "is_typeddict", None)  # Python 3.10+


class DecodeFailure(Exception):
    """Where and why a value did not fit (turned into a ParseError by the caller,
    in errors.py). ``path`` is the key path from ``data``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def json_type(value: Any) -> str:
    """The JSON name of a parsed value, as the library's messages spell it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def model_name(tp: Any) -> str:
    """How a model is named in a message: ``User``, ``list[User]``, ``Optional[int]``."""
    if tp is type(None) or tp is None:
        return "None"
    origin = typing.get_origin(tp)
    if origin is Union or (_UnionType is not None and origin is _UnionType):
        args = typing.get_args(tp)
        if len(args) == 2 and type(None) in args:
            other = args[0] if args[1] is type(None) else args[1]
            return f"Optional[{model_name(other)}]"
        return " | ".join(model_name(a) for a in args)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin is not None:
        args = typing.get_args(tp)
        base = getattr(origin, "__name__", str(origin))
        return f"{base}[{', '.join('...' if a is Ellipsis else model_name(a) for a in args)}]"
    if isinstance(tp, type):
        return tp.__name__
    return str(tp).replace("typing.", "")


def _fail(path: str, expected: str, value: Any) -> DecodeFailure:
    return DecodeFailure(path, f"expected {expected}, found {json_type(value)}")


def _hints(cls: Any) -> Dict[str, Any]:
    """The class's field annotations, strings resolved (``from __future__ import
    annotations`` in the app's module)."""
    try:
        return typing.get_type_hints(cls)
    except Exception:  # an unresolvable name: the raw annotations (strings stay Any)
        return dict(getattr(cls, "__annotations__", {}))


def _iso(text: str) -> str:
    """ISO 8601 as ``fromisoformat`` of every supported Python reads it (``Z``)."""
    return text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text


def _pydantic_model(tp: Any) -> Any:
    """pydantic's BaseModel when ``tp`` is one of its models, else None (pydantic
    is looked up among the loaded modules: a model of it means it is loaded)."""
    module = sys.modules.get("pydantic")
    base = getattr(module, "BaseModel", None) if module is not None else None
    if base is not None and isinstance(tp, type) and issubclass(tp, base):
        return base
    return None


def _pydantic(tp: Any, value: Any, path: str) -> Any:
    validate = getattr(tp, "model_validate", None) or getattr(tp, "parse_obj")
    try:
        return validate(value)
    except Exception as exc:  # pydantic.ValidationError (a ValueError)
        errors = getattr(exc, "errors", None)
        first: Dict[str, Any] = {}
        try:
            listed = errors() if callable(errors) else []
            first = listed[0] if listed else {}
        except Exception:  # pragma: no cover - an exotic error object
            first = {}
        where = path
        for part in first.get("loc", ()):
            where += f"[{part}]" if isinstance(part, int) else f".{part}"
        raise DecodeFailure(where, str(first.get("msg") or exc).splitlines()[0]) from None


def decode(value: Any, tp: Any, path: str = ROOT) -> Any:
    """``value`` (parsed JSON) as the model ``tp``; raises :class:`DecodeFailure`."""
    if tp is Any or tp is object:
        return value
    if tp is None or tp is type(None):
        if value is not None:
            raise _fail(path, "None", value)
        return None
    origin = typing.get_origin(tp)
    if origin is not None:
        return _decode_generic(value, tp, origin, path)
    if isinstance(tp, TypeVar):
        return value
    if not isinstance(tp, type):
        raise TypeError(f"model must be a class or a typing form, not {tp!r}")
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(path, "bool", value)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(path, "int", value)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(path, "float", value)
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(path, "str", value)
        return value
    if issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            choices = ", ".join(repr(m.value) for m in tp)
            raise DecodeFailure(path, f"expected {tp.__name__} (one of {choices}), found "
                                      f"{json_type(value)} {value!r}"[:300]) from None
    if tp in (datetime.datetime, datetime.date, datetime.time):
        if not isinstance(value, str):
            raise _fail(path, f"{tp.__name__} (an ISO 8601 string)", value)
        try:
            if tp is datetime.datetime:
                return datetime.datetime.fromisoformat(_iso(value))
            if tp is datetime.date:
                return datetime.date.fromisoformat(value)
            return datetime.time.fromisoformat(_iso(value))
        except ValueError:
            raise DecodeFailure(path, f"expected {tp.__name__} (an ISO 8601 string), "
                                      f"found {value!r}"[:300]) from None
    if tp is decimal.Decimal:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _fail(path, "Decimal", value)
        try:
            return decimal.Decimal(str(value))
        except decimal.InvalidOperation:
            raise DecodeFailure(path, f"expected Decimal, found {value!r}"[:300]) from None
    if tp is uuid.UUID:
        if not isinstance(value, str):
            raise _fail(path, "UUID", value)
        try:
            return uuid.UUID(value)
        except ValueError:
            raise DecodeFailure(path, f"expected UUID, found {value!r}"[:300]) from None
    if _pydantic_model(tp) is not None:
        return _pydantic(tp, value, path)
    if dataclasses.is_dataclass(tp):
        return _decode_fields(value, tp, path, _dataclass_fields(tp))
    if issubclass(tp, tuple) and hasattr(tp, "_fields"):
        return _decode_namedtuple(value, tp, path)
    if _typeddict(tp):
        return _decode_typeddict(value, tp, path)
    if tp is dict:
        return decode(value, Dict[str, Any], path)
    if tp is list:
        return decode(value, List[Any], path)
    if isinstance(value, tp):  # any other class the JSON value already is
        return value
    raise _fail(path, tp.__name__, value)


def _typeddict(tp: Any) -> bool:
    if _is_typeddict is not None:
        return bool(_is_typeddict(tp))
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")


def _decode_generic(value: Any, tp: Any, origin: Any, path: str) -> Any:
    args = typing.get_args(tp)
    if origin is Union or (_UnionType is not None and origin is _UnionType):
        if value is None and type(None) in args:
            return None
        failures: List[DecodeFailure] = []
        for arm in args:
            if arm is type(None):
                continue
            try:
                return decode(value, arm, path)
            except DecodeFailure as exc:
                failures.append(exc)
        # One arm that went deeper than this value says the most; else name them all.
        deeper = [f for f in failures if f.path != path]
        if len(deeper) == 1:
            raise deeper[0]
        raise _fail(path, model_name(tp), value)
    if origin is typing.Literal:
        if any(a == value and type(a) is type(value) for a in args):  # 1 is not True
            return value
        raise DecodeFailure(path, f"expected one of {', '.join(repr(a) for a in args)}, "
                                  f"found {json_type(value)} {value!r}"[:300])
    if origin is getattr(typing, "Annotated", None) or getattr(tp, "__metadata__", None) is not None:
        return decode(value, args[0], path)
    if origin in (list, AbcSequence, typing.Sequence) or origin is typing.List:
        if not isinstance(value, list):
            raise _fail(path, "list", value)
        item = args[0] if args else Any
        return [decode(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin in (set, frozenset, AbcSet):
        if not isinstance(value, list):
            raise _fail(path, model_name(tp), value)
        item = args[0] if args else Any
        items = [decode(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
        try:
            return frozenset(items) if origin is frozenset else set(items)
        except TypeError:
            raise DecodeFailure(path, f"expected {model_name(tp)}, found items that cannot "
                                      "be in a set") from None
    if origin is tuple:
        if not isinstance(value, list):
            raise _fail(path, "tuple", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
        if args == ((),):  # Tuple[()]
            args = ()
        if len(value) != len(args):
            raise DecodeFailure(path, f"expected {model_name(tp)}, found an array of {len(value)}")
        return tuple(decode(v, a, f"{path}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if origin in (dict, AbcMapping, typing.Mapping) or origin is typing.Dict:
        if not isinstance(value, dict):
            raise _fail(path, "dict", value)
        key_tp, val_tp = (args + (Any, Any))[:2] if args else (Any, Any)
        out: Dict[Any, Any] = {}
        for k, v in value.items():
            key = k if key_tp in (str, Any) else decode(k, key_tp, f"{path}.{k}")
            out[key] = decode(v, val_tp, f"{path}.{k}")
        return out
    if isinstance(origin, type) and dataclasses.is_dataclass(origin):  # a generic dataclass
        return decode(value, origin, path)
    raise TypeError(f"unsupported model type {tp!r}")


_MISSING = object()


def _dataclass_fields(tp: Any) -> List[Tuple[str, Any, bool, bool]]:
    """(name, type, required, init) of each field."""
    hints = _hints(tp)
    out = []
    for f in dataclasses.fields(tp):
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f.name, hints.get(f.name, Any), required, f.init))
    return out


def _decode_fields(value: Any, tp: Any, path: str, fields: List[Tuple[str, Any, bool, bool]]) -> Any:
    if not isinstance(value, dict):
        raise _fail(path, tp.__name__, value)
    kwargs: Dict[str, Any] = {}
    for name, ftype, required, init in fields:
        if not init:
            continue
        raw = value.get(name, _MISSING)
        if raw is _MISSING:
            if required:
                if _accepts_none(ftype):
                    kwargs[name] = None  # Optional[X] without a default: absent is None
                    continue
                raise DecodeFailure(f"{path}.{name}", "key not found")
            continue
        kwargs[name] = decode(raw, ftype, f"{path}.{name}")
    try:
        return tp(**kwargs)
    except (TypeError, ValueError) as exc:  # the class's own checks (__post_init__)
        raise DecodeFailure(path, f"{tp.__name__} refused the values: {exc}") from None


def _accepts_none(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    return (tp is Any or tp is type(None)
            or ((origin is Union or (_UnionType is not None and origin is _UnionType))
                and type(None) in typing.get_args(tp)))


def _decode_namedtuple(value: Any, tp: Any, path: str) -> Any:
    hints = _hints(tp)
    names: Tuple[str, ...] = tp._fields
    defaults: Dict[str, Any] = getattr(tp, "_field_defaults", {})
    if isinstance(value, list):
        if not len(value) <= len(names) or len(value) < len(names) - len(defaults):
            raise DecodeFailure(path, f"expected {tp.__name__} ({len(names)} fields), "
                                      f"found an array of {len(value)}")
        value = dict(zip(names, value))
    fields = [(n, hints.get(n, Any), n not in defaults, True) for n in names]
    return _decode_fields(value, tp, path, fields)


def _decode_typeddict(value: Any, tp: Any, path: str) -> Any:
    if not isinstance(value, dict):
        raise _fail(path, tp.__name__, value)
    hints = _hints(tp)
    required = getattr(tp, "__required_keys__", frozenset(hints) if getattr(tp, "__total__", True)
                       else frozenset())
    out: Dict[str, Any] = {}
    for name, ftype in hints.items():
        if name in value:
            out[name] = decode(value[name], ftype, f"{path}.{name}")
        elif name in required:
            raise DecodeFailure(f"{path}.{name}", "key not found")
    return out


def check_model(tp: Any) -> None:
    """Refuse what is not a model before anything is sent (a TypeError)."""
    if tp is None or tp is Any or typing.get_origin(tp) is not None or isinstance(tp, type):
        return
    raise TypeError(f"model must be a class or a typing form such as list[User], not {tp!r}")
