"""Spec schemas derived from the model's dataclasses: one definition of every field, its type and its default.

A spec class is made from a model class's fields (``dataclasses.fields`` and their type hints): a ``tuple[X,
...]`` is written as a list in a spec file, a ``Mapping`` as a mapping; the default is the model's own. Only
what the file format adds or reads differently is stated beside the call (a node group's ``count``, a stream's
``from``/``to``, ranges a file may not exceed); a new model field is one edit, in the model. ``model_kwargs``
goes the other way, building a model object from a validated spec with the same field list.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

#: a field of a derived spec: (type, default or pydantic FieldInfo); ``...`` for a required field
FieldDef = tuple[Any, Any]


def spec_type(hint: Any) -> Any:
    """The type a spec file writes for a model field of type ``hint``: tuples become lists, mappings dicts,
    recursively; everything else is kept (Literal choices, optional values, numbers, text)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(spec_type(a) for a in args)]  # noqa: UP007 (built from a tuple of types)
    if origin is tuple:
        inner = args[0] if len(args) == 2 and args[1] is Ellipsis else typing.Union[args]  # noqa: UP007
        return list[spec_type(inner)]  # type: ignore[misc]
    if origin in (Mapping, dict, typing.Mapping, types.MappingProxyType):
        key, value = args if args else (str, Any)
        return dict[key, spec_type(value)]  # type: ignore[valid-type,misc]
    return hint


def _spec_default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return ...
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def spec_fields(model: type, overrides: Mapping[str, FieldDef] | None = None,
                exclude: Sequence[str] = ()) -> list[tuple[str, Any, Any]]:
    """A spec's fields as read from ``model``'s: (name, type, default) for each init field not in ``exclude``, typed
    via :func:`spec_type` with the model's default (``...``: required), or as ``overrides`` gives it. The one walk
    of a model's fields both the pydantic class (:func:`spec_model`) and the plain check (spec/plain.py) use."""
    hints = typing.get_type_hints(model)
    return [(f.name, *((overrides or {}).get(f.name) or (spec_type(hints[f.name]), _spec_default(f))))
            for f in dataclasses.fields(model) if f.name not in exclude and f.init]


def spec_model(model: type, name: str, *, base: type[BaseModel], overrides: Mapping[str, FieldDef] | None = None,
               limits: Mapping[str, Mapping[str, Any]] | None = None, exclude: Sequence[str] = (),
               extra: Mapping[str, FieldDef] | None = None,
               validators: Mapping[str, Callable[..., Any]] | None = None, doc: str | None = None) -> type[BaseModel]:
    """A pydantic spec class with ``model``'s fields (types via :func:`spec_type`, the model's defaults), each of
    ``limits`` with those pydantic constraints (``{"replicas": {"le": 100_000}}``), each of ``overrides`` typed
    as given instead, ``exclude`` left out, ``extra`` added (fields of the file only)."""
    from pydantic import Field, create_model

    fields: dict[str, Any] = {}
    for f_name, typed, default in spec_fields(model, overrides, exclude):
        if f_name in (limits or {}):
            default = Field(default, **(limits or {})[f_name])
        fields[f_name] = (typed, default)
    unknown = (set(overrides or {}) | set(limits or {})) - set(fields)
    if unknown:
        raise TypeError(f"{model.__name__} has no field(s) {sorted(unknown)} to override")
    fields.update(extra or {})
    made: type[BaseModel] = create_model(name, __base__=base, __doc__=doc or model.__doc__,
                                         __validators__=dict(validators or {}), **fields)
    made.__module__ = base.__module__
    return made


def model_kwargs(model: type, spec: BaseModel, exclude: Sequence[str] = (), **given: Any) -> dict[str, Any]:
    """The keyword arguments that build ``model`` from a validated ``spec``: every field of the model that the
    spec has (lists back to tuples where the model holds tuples), ``given`` ones as given, ``exclude`` left to the
    model's default."""
    out: dict[str, Any] = {}
    present = type(spec).model_fields
    for name, tuples in field_plan(model):
        if name in given:
            out[name] = given[name]
        elif name not in exclude and name in present:
            value = getattr(spec, name)
            out[name] = tuple(value) if tuples and isinstance(value, list) else value
    return out


@functools.cache
def field_plan(model: type) -> tuple[tuple[str, bool], ...]:
    """``model``'s fields in order, each with whether it holds a tuple: computed once per class (type hints are
    costly to resolve — once per node of a 100,000-node spec was most of its loading time)."""
    hints = typing.get_type_hints(model)
    return tuple((f.name, _holds_tuple(hints[f.name])) for f in dataclasses.fields(model))


def _holds_tuple(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_holds_tuple(a) for a in typing.get_args(hint))
    return origin is tuple
