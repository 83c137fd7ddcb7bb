"""One door for every document streamplace reads: a pydantic schema applied to a parsed document, its errors
turned into problems named by the document's own field paths, with the fix (pydantic's class names and union
tags never shown; a misspelt key lists the fields of its place).

Used by the spec loader (topologies, clusters, profiles, plans), the Flux reader and the calibration file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from streamplace.errors import Problem, SpecError

if TYPE_CHECKING:  # pydantic and the schema load on the first spec file read (0.06 s that built-in names skip)
    from pydantic import BaseModel


Source = str | Path | Mapping[str, Any]


_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser where PyYAML has it


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_FIXES = {
    "missing": "add this field",
    "extra_forbidden": "remove it or check its spelling",
    "float_parsing": "give a number",
    "float_type": "give a number",
    "int_parsing": "give a whole number",
    "int_type": "give a whole number",
    "int_from_float": "give a whole number",
    "string_type": "give a text value",
    "list_type": "give a list",
    "dict_type": "give a mapping",
    "literal_error": "use one of the listed values",
    "model_type": "give a mapping with the documented fields",
    "less_than_equal": "give a value within the bound (docs/specs.md: the specs' bounds)",
    "greater_than_equal": "give a value within the bound",
    "greater_than": "give a value above the bound",
    "finite_number": "give a finite number (not NaN or infinity)",
    "bool_type": "give true or false",
    "too_short": "give a non-empty value",
    "string_too_short": "give a non-empty value",
}


def _model_at(schema: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that validates the value at ``loc`` inside ``schema`` (through lists, mappings and
    optionals), or None where no model does: to list the fields it knows."""
    import typing

    from pydantic import BaseModel

    def inner(t: Any) -> type[BaseModel] | None:  # the model in X, list[X], dict[str, X] or X | None
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
        return next((m for a in reversed(typing.get_args(t)) if (m := inner(a)) is not None), None)

    node: type[BaseModel] | None = schema
    for part in loc:
        if node is None:
            return None
        by_name = {(f.alias or name): f for name, f in node.model_fields.items()}
        if isinstance(part, str) and part in by_name:
            node = inner(by_name[part].annotation)
        # else a list index or a mapping key: the same model validates the item
    return node


def validate_document(schema: type[BaseModel], doc: Any, source: str,
                      fallback_fix: str = "see the spec reference in docs/specs.md") -> Any:
    """``doc`` validated by ``schema`` (pydantic), or a SpecError naming ``source`` and every wrong field by its
    path in the document (``operators[2].cost_ms``) with a fix — pydantic's own report is never shown. The one
    entry point of every file format: specs, profiles, plans, calibration and Flux files."""
    from pydantic import ValidationError

    if not isinstance(doc, Mapping):
        raise SpecError([Problem("(document)", f"expected a mapping at the top, got {type(doc).__name__}",
                                 fallback_fix)], source)
    try:
        return schema.model_validate(dict(doc))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            fix = _FIXES.get(err["type"], fallback_fix)
            if err["type"] == "extra_forbidden":
                parent = _model_at(schema, err["loc"][:-1])
                known = ", ".join(f.alias or name for name, f in parent.model_fields.items()) if parent else ""
                if known:
                    fix = f"remove it or check its spelling (known fields: {known})"
            message = err["msg"]
            if err["type"] == "model_type":  # pydantic names its own class here: say what the file needs
                message = f"expected a mapping, got {type(err.get('input')).__name__}"
            problems.append(Problem(_loc(err["loc"]), message, fix))
        raise SpecError(problems, source) from None
