"""The two spec files a plan reads — a topology and a cluster — checked without pydantic when they are plainly
valid (issue 56: pydantic's import, its plugins' look-up through the installed packages' metadata and its
schemas were 0.1–0.15 s of a 1,000-node plan's 0.5 s end to end).

:func:`topology` and :func:`cluster` return the document as spec/schema.py's TopologySpec or ClusterSpec would
validate it — the same fields in the same order, the same values (a whole number where a number is meant becomes
that float, ``pinned: n1`` becomes ``[n1]``, defaults filled in) — or None as soon as any value is not plainly
valid; the loader then validates the document with pydantic, which accepts it or names every problem as it always
did. So this check may decline what pydantic accepts (a tuple where a list is meant, a whole number beyond 2⁵³ for
a float, ``from_`` for ``from``) but never accepts what pydantic refuses, nor reads a value
otherwise. Its field tables are spec/schema.py's, written again without pydantic from the same model classes
(:func:`record`: the model's fields and type hints as spec/derive.py reads them, with the same overrides, bounds
and exclusions); tests/test_spec_plain.py holds each table to its pydantic class, field by field, and the results
to pydantic's on valid and broken documents.

The checks assume what spec/schema.py's ``Strict`` sets: unknown keys refused, numbers strict and finite.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.spec.derive import spec_fields

#: bounds on what one spec may ask for (a node group of 10⁸ nodes or a billion replicas ran past 20 s with no
#: message); ten times the 10,000-node cluster benchmarks/scale.py plans in about 2 s, and 100,000 replicas of
#: one operator. spec/schema.py's bounds are these
MAX_NODES = 100_000
MAX_REPLICAS = 100_000
#: the largest whole number read as a number here; pydantic reads larger ones too (as ``float`` does), and gets them
EXACT_INT = 2 ** 53

Check = Callable[[Any], Any]


class Declined(Exception):
    """A value this check does not vouch for: pydantic decides."""


def one_node(cls: Any, v: Any) -> Any:
    """``pinned: n1`` is ``pinned: [n1]`` (OperatorSpec's validator before its type; ``cls``: pydantic's)."""
    return [v] if isinstance(v, str) else v


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a record: its type (as spec/derive.py's ``spec_type`` writes it, or the override), its default
    (``...``: required; a Record: that record's defaults), its bounds (``ge``/``le``) and a function applied to the
    value before its type is checked (pydantic's ``mode="before"`` validator)."""

    hint: Any
    default: Any
    bounds: Mapping[str, float] = dataclasses.field(default_factory=dict)
    before: Callable[[Any, Any], Any] | None = None
    alias: str | None = None


class Checked:
    """A plainly valid record: its fields as attributes, as a pydantic spec object has them (what the loader and
    ``derive.model_kwargs`` read: ``model_fields`` names the fields), and an open record's other keys
    (``model_extra``, as pydantic's ``extra="allow"`` keeps them)."""

    model_fields: Mapping[str, Field] = {}

    def __init__(self, values: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
        self.__dict__.update(values)
        self.model_extra = extra

    def model_dump(self) -> dict[str, Any]:
        """The fields, then the other keys (an open record's), as pydantic's ``model_dump`` gives them."""
        return {name: getattr(self, name) for name in self.model_fields} | _fresh(self.model_extra or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


class Record:
    """A spec class's fields without pydantic, and the check of a mapping against them; an ``open`` one keeps
    other keys as they are (pydantic's ``extra="allow"``), a closed one declines them."""

    def __init__(self, name: str, fields: dict[str, Field], open: bool = False) -> None:
        self.name, self.fields, self.open = name, fields, open
        self.made = type(name, (Checked,), {"model_fields": fields, "__module__": __name__})
        self._by_key: dict[str, tuple[str, Check]] | None = None

    def _checks(self) -> dict[str, tuple[str, Check]]:
        if self._by_key is None:  # compiled on first use: a nested record may be made after this one
            self._by_key = {f.alias or name: (name, _field_check(f)) for name, f in self.fields.items()}
        return self._by_key

    def __or__(self, other: None) -> Any:
        """``record | None``: an optional record, as a type hint (typing takes a record for a type: it is
        callable)."""
        return typing.Optional[self]  # noqa: UP045 (a record is not a type: ``|`` is this method)

    def __call__(self, value: Any) -> Checked:
        return self.check(value)

    def check(self, value: Any) -> Checked:
        """``value`` as this record's object, or Declined."""
        if type(value) is not dict:
            raise Declined
        by_key = self._checks()
        given: dict[str, Any] = {}
        extra: dict[str, Any] | None = {} if self.open else None
        for key, item in value.items():
            found = by_key.get(key)
            if found is not None:
                given[found[0]] = found[1](item)
            elif extra is not None and type(key) is str and not key.startswith(("_", "model_")):
                extra[key] = item
            else:  # unknown, or a field by its name where it has an alias: pydantic's to say
                raise Declined
        values = {}
        for name, f in self.fields.items():
            if name in given:
                values[name] = given[name]
            elif f.default is ...:
                raise Declined
            else:
                values[name] = f.default.check({}) if isinstance(f.default, Record) else _fresh(f.default)
        return self.made(values, extra)


def _fresh(value: Any) -> Any:
    """A default as a new object (pydantic copies a list or mapping default for each object)."""
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    return value


def _text(v: Any) -> str:
    if type(v) is not str:
        raise Declined
    return v


def _number(v: Any) -> float:
    if type(v) is float:
        if v - v != 0.0:  # NaN or infinity
            raise Declined
        return v
    if type(v) is int and -EXACT_INT <= v <= EXACT_INT:
        return float(v)
    raise Declined


def _whole(v: Any) -> int:
    if type(v) is not int:
        raise Declined
    return v


def _scalar(v: Any) -> Any:
    """``float | int | str | None``: a whole number stays one, a finite float, text or None as it is."""
    if v is None or type(v) in (int, str):
        return v
    if type(v) is float and math.isfinite(v):
        return v
    raise Declined


def _type_check(hint: Any) -> Check:
    """The check of a value of type ``hint``: text, numbers, choices, optional values, lists, mappings keyed by
    text and records; TypeError for a type it does not know (a schema change this module must follow)."""
    simple = {str: _text, float: _number, int: _whole}
    if isinstance(hint, Record):
        return hint.check
    if isinstance(hint, type) and hint in simple:
        return simple[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return _choice(args)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        if len(rest) == 1:
            return _optional(_type_check(rest[0]))
        if set(rest) == {float, int, str}:
            return _scalar
    if origin is list and len(args) == 1:
        return _list(_type_check(args[0]))
    if origin is dict and args and args[0] is str:
        return _mapping(_type_check(args[1]))
    raise TypeError(f"spec/plain.py has no check for {hint!r}")


def _choice(choices: tuple[Any, ...]) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not str or v not in choices:
            raise Declined
        return v
    return check


def _optional(inner: Check) -> Check:
    return lambda v: None if v is None else inner(v)


def _list(inner: Check) -> Check:
    def check(v: Any) -> list[Any]:
        if type(v) is not list:
            raise Declined
        return [inner(item) for item in v]
    return check


def _mapping(inner: Check) -> Check:
    def check(v: Any) -> dict[str, Any]:
        if type(v) is not dict:
            raise Declined
        out = {}
        for key, item in v.items():
            if type(key) is not str:
                raise Declined
            out[key] = inner(item)
        return out
    return check


def _field_check(f: Field) -> Check:
    typed = _type_check(f.hint)
    if f.bounds:
        typed = _bounded(typed, f.bounds.get("ge", -math.inf), f.bounds.get("le", math.inf))
    if f.before is not None:
        before = f.before
        return lambda v: typed(before(None, v))
    return typed


def _bounded(inner: Check, low: float, high: float) -> Check:
    def check(v: Any) -> Any:
        got = inner(v)
        if got is not None and not low <= got <= high:
            raise Declined
        return got
    return check


def record(model: type, name: str, *, overrides: Mapping[str, tuple[Any, Any]] | None = None,
           limits: Mapping[str, Mapping[str, float]] | None = None, exclude: Sequence[str] = (),
           extra: Mapping[str, Field] | None = None,
           before: Mapping[str, Callable[[Any, Any], Any]] | None = None) -> Record:
    """``model``'s fields as spec/derive.py's ``spec_model`` makes them (types via ``spec_type``, the model's
    defaults), with the same ``overrides``, ``limits`` and ``exclude``; ``extra`` fields of the file only."""
    fields = {name: Field(hint, default, (limits or {}).get(name, {}), (before or {}).get(name))
              for name, hint, default in spec_fields(model, overrides, exclude)}
    fields.update(extra or {})
    return Record(name, fields)


@functools.cache
def records() -> dict[str, Record]:
    """The records of a topology and a cluster file, by spec/schema.py's class names (made on first use)."""
    logic = Record("LogicSpec", {"name": Field(str, ...)}, open=True)
    operator = record(Operator, "OperatorSpec", overrides={"kind": (Kind | None, None), "logic": (logic | None, None)},
                      limits={"replicas": {"le": MAX_REPLICAS}, "max_replicas": {"le": MAX_REPLICAS}},
                      before={"pinned": one_node})
    stream = record(Stream, "StreamSpec", exclude=("source", "target", "key"), overrides={"grouping": (str, "shuffle")},
                    extra={"from_": Field(str, ..., alias="from"), "to": Field(str, ...)})
    topology = record(Topology, "TopologySpec", overrides={"operators": (list[operator], ...),  # type: ignore[valid-type]
                                                          "streams": (list[stream], [])})  # type: ignore[valid-type]
    node = record(Node, "NodeSpec", extra={"count": Field(int | None, None, {"ge": 1, "le": MAX_NODES})})
    links = record(Links, "LinksSpec")
    cluster = record(Cluster, "ClusterSpec", exclude=("engine_params",),
                     overrides={"nodes": (list[node], ...), "links": (links, links)},  # type: ignore[valid-type]
                     extra={"engine": Field(dict[str, dict[str, float | int | str | None]], {})})
    return {r.name: r for r in (logic, operator, stream, topology, node, links, cluster)}


def _checked(name: str, doc: Any) -> Any:
    try:
        return records()[name].check(doc)
    except Declined:
        return None


def topology(doc: Any) -> Any:
    """A topology document as TopologySpec validates it, or None: not plainly valid (pydantic decides)."""
    return _checked("TopologySpec", doc)


def cluster(doc: Any) -> Any:
    """A cluster document as ClusterSpec validates it, or None: not plainly valid (pydantic decides)."""
    return _checked("ClusterSpec", doc)
