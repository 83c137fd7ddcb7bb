"""spec/plain.py — the check a topology or cluster file passes before pydantic is imported (issue 56: a plan's
start) — against spec/schema.py's pydantic classes: the same fields (types, defaults, bounds, aliases,
validators), and on every document it accepts, the same values pydantic gives; what it declines goes to pydantic
unchanged, so every message stays pydantic's."""

from __future__ import annotations

import copy
import json
import math
import random
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined

from streamplace.bench.clusters import BUILTIN_CLUSTERS, racks
from streamplace.bench.topologies import BUILTIN_TOPOLOGIES, storm_large
from streamplace.errors import SpecError
from streamplace.spec import loader, plain, schema
from streamplace.spec.documents import read_document
from streamplace.spec.loader import cluster_to_doc, load_cluster, load_topology, topology_to_doc

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def canon(value: Any) -> Any:
    """A validated value as plain data, with each object's class name and each leaf's type: what must be equal."""
    if isinstance(value, BaseModel | plain.Checked):  # fields, then an open record's other keys and its dump
        opened = value.model_extra is not None
        return type(value).__name__, {k: canon(getattr(value, k)) for k in type(value).model_fields}, \
            canon(value.model_extra) if opened else None, canon(value.model_dump()) if opened else None
    if isinstance(value, list):
        return "list", [canon(v) for v in value]
    if isinstance(value, dict):
        return "dict", {k: canon(v) for k, v in value.items()}
    return type(value).__name__, repr(value)


def _hint(hint: Any) -> Any:
    """A field's type in comparable terms: records and pydantic classes by name, unions as sets, ``Optional[X]``
    and ``X | None`` alike."""
    if isinstance(hint, plain.Record):
        return hint.name
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return hint.__name__
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return "union", frozenset(_hint(a) for a in args)
    if origin is typing.Literal:
        return "literal", args
    if origin is not None:
        return origin, tuple(_hint(a) for a in args)
    return hint


def _bounds(metadata: list[Any]) -> dict[str, float]:
    found = {}
    for item in metadata:
        names = [n for n in ("ge", "le", "gt", "lt") if hasattr(item, n)]
        assert names, f"a constraint plain.py does not check: {item!r}"
        found.update({n: getattr(item, n) for n in names})
    return found


@pytest.mark.parametrize("name", ["TopologySpec", "OperatorSpec", "LogicSpec", "StreamSpec", "ClusterSpec", "NodeSpec",
                                  "LinksSpec"])
def test_each_record_is_its_pydantic_class_field_by_field(name: str) -> None:
    """The field tables plain.py writes again without pydantic are spec/schema.py's: a change to one must be made to
    the other (this fails naming the field)."""
    record, model = plain.records()[name], getattr(schema, name)
    config = model.model_config
    assert (config.get("extra"), config.get("strict"), config.get("allow_inf_nan")) == \
        ("allow" if record.open else "forbid", True, False)
    assert not model.__pydantic_decorators__.model_validators
    assert list(record.fields) == list(model.model_fields)
    validators = {f: (d.info.mode, getattr(d.func, "__func__", d.func))  # pydantic binds it to the class
                  for d in model.__pydantic_decorators__.field_validators.values() for f in d.info.fields}
    for field, info in model.model_fields.items():
        mine = record.fields[field]
        assert mine.alias == info.alias, field
        assert _hint(mine.hint) == _hint(info.annotation), field
        assert dict(mine.bounds) == _bounds(info.metadata), field
        if info.is_required():
            assert mine.default is ... and info.default is PydanticUndefined, field
        else:
            given = mine.default.check({}) if isinstance(mine.default, plain.Record) else mine.default
            assert canon(given) == canon(info.default), field
        assert ((("before", plain.one_node),) if mine.before else ()) == \
            ((validators[field],) if field in validators else ()), field


def _documents() -> list[tuple[str, dict[str, Any]]]:
    """Every built-in topology and cluster as a spec document, the examples' specs, and issue 56's shapes (a
    cluster listed node by node and in node groups), each as a file gives it."""
    docs = [("topology", topology_to_doc(make())) for make, _ in BUILTIN_TOPOLOGIES.values()]
    docs += [("cluster", cluster_to_doc(make())) for make, _ in BUILTIN_CLUSTERS.values()]
    for path in sorted(EXAMPLES.glob("*.yaml")):
        doc = read_document(path)
        if "nodes" in doc:
            docs.append(("cluster", doc))
        elif "operators" in doc:
            docs.append(("topology", doc))
    docs.append(("topology", topology_to_doc(storm_large(2, 3, 4, 5))))
    listed = cluster_to_doc(racks(3, 4))
    docs.append(("cluster", listed))
    node = listed["nodes"][0]
    docs.append(("cluster", {"name": "groups", "links": listed["links"], "nodes": [
        {**{k: v for k, v in node.items() if k != "id"}, "id": f"r{r}", "rack": f"rack{r}", "count": 4}
        for r in range(3)]}))
    return [(kind, json.loads(json.dumps(doc))) for kind, doc in docs]  # as read from a file (numpy floats: floats)


def _pydantic(kind: str, doc: Any) -> Any:
    return (schema.TopologySpec if kind == "topology" else schema.ClusterSpec).model_validate(doc)


def test_every_built_in_and_example_passes_plainly_as_pydantic_reads_it() -> None:
    for kind, doc in _documents():
        text = repr(doc)[:80]
        got = getattr(plain, kind)(copy.deepcopy(doc))
        assert got is not None, f"declined: {text}"  # the plan's files never need pydantic
        assert canon(got) == canon(_pydantic(kind, doc)), text


#: values a field may be given: every type plain.py tells apart, and the edges of numbers
ODD_VALUES: list[Any] = [None, True, False, 0, 1, -1, 2, 100001, 2 ** 53, 2 ** 53 + 1, 10 ** 400, 0.0, -0.5, 1.5,
                         math.nan, math.inf, -math.inf, "", "x", "source", "n1", ["n1"], ("n1",), [1, 2.5], [],
                         {}, {"a": 1}, {"a": {"b": 1}}, {1: 2}, {"name": "f"}, b"x"]


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key and index path in a document."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*at, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            found += _paths(v, (*at, k))
    return found


def _mutated(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``doc`` with one to three changes: a value replaced by one of ODD_VALUES, a key removed, an unknown key or
    ``from_`` added."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(_paths(doc)[1:])
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        roll = rng.random()
        if roll < 0.75:
            parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif roll < 0.85 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[rng.choice(["from_", "cpu_ms", "count", "pinned", "logic", "engine"])] = \
                copy.deepcopy(rng.choice(ODD_VALUES))
    return doc


def test_what_plain_accepts_of_broken_documents_pydantic_accepts_alike() -> None:
    """Thousands of documents with wrong, odd or edge values: whenever plain.py accepts one, pydantic accepts it
    with the same values (it may decline what pydantic accepts, never the other way)."""
    rng = random.Random(56)
    bases = [d for d in _documents() if len(repr(d[1])) < 4000]
    accepted = declined = refused_by_both = 0
    for _ in range(2000):
        kind, base = rng.choice(bases)
        doc = _mutated(base, rng)
        got = getattr(plain, kind)(copy.deepcopy(doc))
        try:
            theirs = _pydantic(kind, doc)
        except ValidationError:
            assert got is None, f"plain.py accepts what pydantic refuses: {doc!r}"
            refused_by_both += 1
            continue
        if got is None:
            declined += 1
        else:
            accepted += 1
            assert canon(got) == canon(theirs), doc
    assert accepted > 100 and declined > 3 and refused_by_both > 1000, (accepted, declined, refused_by_both)


def test_the_loader_builds_the_same_objects_and_says_the_same_with_or_without_the_plain_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    docs = _documents()
    cases = docs + [(kind, _mutated(doc, rng)) for kind, doc in docs for _ in range(4)]

    def load(kind: str, doc: dict[str, Any]) -> Any:
        try:
            return (load_topology if kind == "topology" else load_cluster)(copy.deepcopy(doc))
        except SpecError as exc:
            return "error", str(exc)

    plainly = [load(kind, doc) for kind, doc in cases]
    monkeypatch.setattr(loader.plain, "topology", lambda doc: None)
    monkeypatch.setattr(loader.plain, "cluster", lambda doc: None)
    assert plainly == [load(kind, doc) for kind, doc in cases]
    assert sum(isinstance(x, tuple) for x in plainly) > 10  # some of them are errors, the same ones
