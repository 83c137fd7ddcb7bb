"""Reading one YAML or JSON document safely: libyaml's parser, duplicate keys refused, size and alias
expansion bounded (a "billion laughs" file is refused), stdin as ``-``; errors name the file and the fix.

The spec loader, the Flux reader (its includes) and the calibration file read through here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from streamplace.errors import Problem, SpecError

_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser where PyYAML has it


class _UniqueKeys:
    """A YAML loader's mappings that refuse a key given twice — YAML would silently keep the last."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                line = key_node.start_mark.line + 1
                if key_node.value in seen:
                    raise DuplicateKey(key_node.value, line, seen[key_node.value])
                seen[key_node.value] = line
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]


class SpecLoader(_UniqueKeys, _BASE_LOADER):
    """YAML's safe loader (libyaml's C parser when present: a listing of 10,000 nodes one by one reads in about
    3 s instead of about 30 s on 2 cores) that refuses a key given twice in one mapping."""


class PySpecLoader(_UniqueKeys, yaml.SafeLoader):
    """The same in PyYAML's pure-Python parser: what a file that libyaml refuses is read again with, so that the
    error names the same line in the same words whichever parser is installed."""


class DuplicateKey(yaml.YAMLError):
    def __init__(self, key: str, line: int, first: int):
        super().__init__(f"duplicate key {key!r} at line {line} (first at line {first})")
        self.key, self.line, self.first = key, line, first


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (json keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key, 0, 0)
        out[key] = value
    return out


#: the path that means standard input (``streamplace plan - CLUSTER < topology.yaml``)
STDIN = "-"


def read_document(path: str | Path) -> dict[str, Any]:
    """Parse a YAML or JSON file (``-``: standard input, JSON when it starts with ``{``) into a mapping, with a
    clear error for each way it can fail."""
    if str(path) == STDIN:
        text = sys.stdin.read()
        return _parse(text, Path("<stdin>"), text.lstrip().startswith("{"))
    p = Path(path)
    if not p.exists():
        raise SpecError([Problem("", "file not found", "check the path, or use a built-in name "
                                 "(`streamplace bench list`)")], str(p))
    if p.is_dir():
        raise SpecError([Problem("", "is a directory, not a spec file", "give the path of a YAML or JSON file")],
                        str(p))
    size = p.stat().st_size
    limit = MAX_JSON_BYTES if p.suffix.lower() == ".json" else MAX_YAML_BYTES
    if size > limit:
        kind = "JSON" if limit == MAX_JSON_BYTES else "YAML"
        raise SpecError([Problem("", f"the file is {size / 1e6:,.1f} MB; {kind} specs are read up to "
                                     f"{limit / 1e6:,.0f} MB",
                                 "write a large cluster as node groups (count: N) or as JSON (read up to "
                                 f"{MAX_JSON_BYTES / 1e6:,.0f} MB, 20× faster than YAML)")], str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError([Problem(f"byte {exc.start}", "not UTF-8 text (a binary file?)",
                                 "give a YAML or JSON spec saved as UTF-8")], str(p)) from None
    except OSError as exc:
        raise SpecError([Problem("", f"cannot be read: {exc.strerror}", "check the path and its permissions")],
                        str(p)) from None
    return _parse(text, p, p.suffix.lower() == ".json")


#: the largest spec files read: YAML takes ~3 s for 10,000 nodes listed one by one on 2 cores, JSON ~0.1 s
MAX_YAML_BYTES = 16_000_000
MAX_JSON_BYTES = 256_000_000
#: the most values a parsed document may expand to, counting a YAML alias each time it is used: a "billion
#: laughs" document (nested aliases) is a few hundred bytes that expand to 10⁹ values
MAX_VALUES = 5_000_000


def _expanded_size_ok(doc: Any) -> bool:
    """Whether ``doc`` expands to at most MAX_VALUES values, shared (aliased) values counted at every use; the
    walk stops as soon as it passes the bound, so it costs at most MAX_VALUES steps."""
    count, stack = 0, [doc]
    while stack:
        value = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return False
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return True


def _parse(text: str, p: Path, as_json: bool, loader: type = SpecLoader) -> dict[str, Any]:
    """The document in ``text``: JSON, or YAML read by ``loader`` (a YAML error is re-read by the pure-Python
    loader, so it reads the same wherever libyaml is installed or not). O(size of the text)."""
    if len(text) > (MAX_JSON_BYTES if as_json else MAX_YAML_BYTES):
        raise SpecError([Problem("", f"the document is {len(text) / 1e6:,.1f} MB, more than is read",
                                 "write a large cluster as node groups (count: N) or as JSON")], str(p))
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys) if as_json else _load_yaml(text, loader)
    except RecursionError:
        raise SpecError([Problem("", "nested too deeply to read", "a spec needs a few levels of nesting only")],
                        str(p)) from None
    except DuplicateKey as exc:
        where, first = (f"line {exc.line}", f" (first at line {exc.first})") if exc.line else ("", "")
        raise SpecError([Problem(where, f"key {exc.key!r} given twice in one mapping{first}", "keep one of them")],
                        str(p)) from None
    except json.JSONDecodeError as exc:
        raise SpecError([Problem(f"line {exc.lineno}", f"invalid JSON: {exc.msg}", "fix the JSON syntax")],
                        str(p)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError([Problem(where, f"invalid YAML: {problem}", "fix the YAML syntax")], str(p)) from None
    if not isinstance(doc, dict):
        raise SpecError([Problem("", "expected a mapping at the top level", "start the file with `name: ...`")],
                        str(p))
    # a document without YAML aliases holds fewer values than twice its characters (an empty YAML value still
    # has its key): the walk is needed only where an alias may repeat a value (a '*' in YAML) or in a text long
    # enough (a 10,000-node JSON listing: ~0.1 s saved)
    aliases = not as_json and "*" in text
    if (aliases or len(text) > MAX_VALUES // 2) and not _expanded_size_ok(doc):
        raise SpecError([Problem("", f"the document expands to more than {MAX_VALUES:,} values (YAML aliases "
                                     "used over and over?)", "write the values out, or use fewer aliases")], str(p))
    return doc


def _load_yaml(text: str, loader: type) -> Any:
    """``text`` read by ``loader``; where that fails (not on a key given twice, which both loaders find alike),
    PyYAML's pure-Python loader's error in its place — libyaml words its errors differently (``did not find
    expected ',' or ']'`` for ``expected ',' or ']', but got '<stream end>'``), on the same line."""
    try:
        return yaml.load(text, Loader=loader)
    except DuplicateKey:
        raise
    except yaml.YAMLError as exc:
        if loader is PySpecLoader:
            raise
        try:
            yaml.load(text, Loader=PySpecLoader)
        except yaml.YAMLError as same:
            raise same from None
        raise exc from None
