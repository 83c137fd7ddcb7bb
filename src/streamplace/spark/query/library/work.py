"""Operators that do real work, whose CPU per tuple no spec sets: parse (JSON), hash (SHA-256), regex.

``busy`` burns exactly the spec's ``cost_ms / speedup`` on the thread's CPU clock, so a check of a CPU model
against it mostly checks itself. These operators cost whatever their work costs on this machine: ``parse``
decodes a generated JSON record per tuple and sums its readings, ``hash`` iterates SHA-256 over a generated
payload, ``regex`` counts a compiled pattern's matches in a generated text. Their inputs are pure functions of
the tuple id (``value``), so a replayed batch gives the same output. None of them burns ``cost_ms``: the spec's
cost is ignored (a profile measures theirs).

Emulated node speed (``reference``): on one machine a node's speed-up cannot make real work faster, so — like
``busy``, which burns ``cost_ms / speedup`` — a node of speed-up ``s`` does ``reference / s`` passes of the logic
over each batch: the first gives the output, the others are the same work again on the same rows (whole
passes, then the first rows of one more pass, the fraction carried from batch to batch so that the mean is
exact). ``reference`` is the speed-up at which the logic runs once: give the cluster's fastest speed-up.
Without it the work runs once on every node (this machine's speed everywhere, as the DEBS operators' parsing
does). :func:`at_speed` does the same for any stateless built-in (``at-speed``, e.g. ``of: debs-parse``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from streamplace.model.topology import Operator
from streamplace.spark.query.hashing import salt_of, unit_hash
from streamplace.spark.query.logic import REGISTRY, Logic, register

BatchFn = Callable[[pa.RecordBatch], pa.RecordBatch]


class Passes:
    """How many passes of the logic a batch of ``n`` rows gets on a node of speed-up ``speedup``: ``reference /
    speedup`` in the mean — whole passes over every row, plus the first rows of one more, the remainder carried to
    the next batch (so over many batches the extra rows are exact to one row)."""

    def __init__(self, reference: float | None, speedup: float) -> None:
        if reference is not None and not reference > 0:
            raise ValueError(f"reference must be a speed-up > 0, got {reference}")
        self.factor = 1.0 if reference is None else float(reference) / speedup
        if self.factor < 1.0 - 1e-9:
            raise ValueError(f"the node's speed-up {speedup:g} is above reference {reference:g}: real work cannot run "
                             "faster than once; give the cluster's fastest speed-up as reference")
        self.carry = 0.0

    def extra(self, n: int) -> tuple[int, int]:
        """(whole extra passes, rows of one more partial pass) for a batch of ``n`` rows."""
        if n <= 0:
            return 0, 0
        rows = (self.factor - 1.0) * n + self.carry
        whole = int(rows // n)
        partial = int(rows - whole * n)
        self.carry = rows - whole * n - partial
        return whole, partial


def repeated(fn: BatchFn, passes: Passes) -> BatchFn:
    """``fn``, its work repeated per :class:`Passes` (the output is the first pass's)."""
    if passes.factor == 1.0:
        return fn

    def run(batch: pa.RecordBatch) -> pa.RecordBatch:
        out = fn(batch)
        whole, partial = passes.extra(batch.num_rows)
        for _ in range(whole):
            fn(batch)
        if partial:
            fn(batch.slice(0, partial))
        return out

    return run


def _reference(params: dict[str, Any]) -> float | None:
    ref = params.get("reference")
    return None if ref is None else float(ref)


def _values(batch: pa.RecordBatch) -> np.ndarray:
    return batch.column("value").to_numpy(zero_copy_only=False).astype(np.int64)


def _set(batch: pa.RecordBatch, name: str, column: pa.Array) -> pa.RecordBatch:
    names = batch.schema.names
    return batch.set_column(names.index(name), name, column) if name in names else batch.append_column(name, column)


# ----------------------------------------------------------------------------------------------- parse
def records(values: np.ndarray, readings: int) -> list[str]:
    """One JSON record per tuple id: its id, a sensor name, ``readings`` numbers and a few tags (a pure function of
    the id; the numbers are decimal text, as a real feed sends them)."""
    u = [unit_hash(values, salt_of(f"parse-{k}")) for k in range(min(readings, 8))]
    out = []
    for i, v in enumerate(values.tolist()):
        nums = ", ".join(f"{100 * u[k % len(u)][i] + k:.4f}" for k in range(readings))
        out.append(f'{{"id": {v}, "sensor": "s-{v % 97}", "readings": [{nums}], '
                   f'"tags": {{"site": "plant-{v % 7}", "ok": {"true" if v % 3 else "false"}}}}}')
    return out


@register("parse", "real work: json.loads of a generated record per tuple (readings numbers; default 20), adds "
                   "total = the sum of its readings; params: readings, reference (emulated speed, see work.py)")
def parse(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    readings = int(params.get("readings", 20))
    if readings < 1:
        raise ValueError(f"readings must be ≥ 1, got {readings}")

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        totals = [float(sum(json.loads(r)["readings"])) for r in records(_values(batch), readings)]
        return _set(batch, "total", pa.array(totals, pa.float64()))

    return Logic(repeated(fn, Passes(_reference(params), speedup)), adds=(("total", "double"),))


# ----------------------------------------------------------------------------------------------- hash
def digest(value: int, rounds: int, size: int) -> str:
    """SHA-256 over a ``size``-byte payload made from the tuple id, iterated ``rounds`` times (each round hashes the
    previous digest and the payload again, as key stretching does); the hex digest."""
    seed = int(value).to_bytes(8, "little", signed=True)
    payload = (seed * (size // 8 + 1))[:size]
    h = hashlib.sha256(payload).digest()
    for _ in range(rounds - 1):
        h = hashlib.sha256(h + payload).digest()
    return h.hex()


@register("hash", "real work: SHA-256 over a generated payload (payload_bytes, default 1024) iterated rounds times "
                  "(default 20), adds digest (hex); params: rounds, payload_bytes, reference (emulated speed)")
def sha_rounds(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    rounds, size = int(params.get("rounds", 20)), int(params.get("payload_bytes", 1024))
    if rounds < 1 or size < 8:
        raise ValueError(f"rounds must be ≥ 1 and payload_bytes ≥ 8, got {rounds} and {size}")

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        return _set(batch, "digest", pa.array([digest(v, rounds, size) for v in _values(batch).tolist()], pa.string()))

    return Logic(repeated(fn, Passes(_reference(params), speedup)), adds=(("digest", "string"),))


# ----------------------------------------------------------------------------------------------- regex
WORDS = ("stream", "streaming", "placed", "placing", "node", "operator", "tuple", "scheduled", "scheduling", "core",
         "measured", "measuring", "batch", "rate", "joined", "joining", "window", "state", "spark", "storm")
DEFAULT_PATTERN = r"\b\w+(?:ing|ed)\b"


def texts(words: int, variants: int = 64, seed: int = 53) -> np.ndarray:
    """``variants`` generated texts of ``words`` words each (a fixed vocabulary, a seeded draw): the corpus a
    tuple's text is taken from by its id."""
    rng = np.random.default_rng(seed)
    return np.array([" ".join(rng.choice(WORDS, size=words)) for _ in range(variants)], dtype=object)


@register("regex", "real work: counts a compiled pattern's matches (pattern, default words ending in ing/ed) in a "
                   "generated text of words words (default 200) per tuple, adds matches; params: pattern, words, "
                   "reference (emulated speed)")
def regex(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    pattern = re.compile(str(params.get("pattern", DEFAULT_PATTERN)))
    corpus = texts(int(params.get("words", 200)))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        chosen = corpus[_values(batch) % len(corpus)]
        return _set(batch, "matches", pa.array([len(pattern.findall(t)) for t in chosen], pa.int64()))

    return Logic(repeated(fn, Passes(_reference(params), speedup)), adds=(("matches", "long"),))


# ----------------------------------------------------------------------------------------------- any built-in
@register("at-speed", "another stateless built-in's real work at the node's emulated speed, its cost_ms burn off; "
                      "params: of (the logic's name, e.g. debs-parse), reference, and of's own")
def at_speed(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    params = dict(params)
    name = str(params.pop("of", ""))
    passes = Passes(_reference(params), speedup)
    params.pop("reference", None)
    if name not in REGISTRY or name == "at-speed":
        raise ValueError(f"of must name a built-in logic, got {name!r}")
    inner = REGISTRY[name][0](op, params | {"cost_ms": 0.0}, 1.0)  # its real work only: no emulated burn
    if inner.stateful or inner.source is not None:
        raise ValueError(f"{name!r} is {'stateful' if inner.stateful else 'a source'}: its work cannot be repeated")
    return Logic(repeated(inner.fn, passes), adds=inner.adds, selective=inner.selective, dead_letter=inner.dead_letter)
