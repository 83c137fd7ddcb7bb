"""The command line's typer groups: typer's own, but for the coercion of text (issue 56: the command line's start).

typer 0.29 coerces every parameter's value through a pydantic ``TypeAdapter`` it builds for that parameter when
the command is parsed — for ``plan --json``, importing pydantic and building an adapter for each of the command's
parameters, about a fifth of the whole start, to return text that was text already. :class:`QuickGroup`, the
class of every group of ``streamplace`` (``app``, ``bench``, ``cluster``), gives its own parameters and those of
the command it resolves a coercion that returns a value of a ``str`` or ``list[str]`` parameter as typer's
adapter does — the same text, the list as a list — and hands every other value to typer's own coercion, built
on first need: numbers, paths, choices, a parser's parameter and anything that may be an error are typer's,
with typer's messages. ``tests/test_cli_start.py`` holds the two to the same results on every parameter of every
command. Where typer's internals are not the ones this was written for (another typer), nothing is changed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from typer.core import TyperGroup

try:  # typer 0.29's coercion (typer/_coercion.py, typer/core.py)
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    from typer.core import _TyperParameter
except ImportError:  # another typer: its own coercion throughout
    QUICK = False
else:
    QUICK = True

#: what typer gives a ``list[str]`` parameter's annotation
_TEXTS = list[str]


def is_text(descriptor: Any) -> bool:
    """Whether a parameter's value is text typer's adapter returns as it came: annotation ``str`` or ``list[str]``,
    no parser, no choices, no file."""
    if descriptor.parameter_info.parser is not None or descriptor.is_file or descriptor.is_choice:
        return False
    return descriptor.annotation is str or descriptor.annotation == _TEXTS


if QUICK:
    @dataclasses.dataclass(frozen=True)
    class Deferred(RuntimeParam):
        """A parameter's coercion, typer's own built only for a value that needs it: no value (None, which
        typer's ``coerce`` returns before coercing) needs none, nor text for a text parameter (returned as it
        is; a list of text as a new list, as typer's adapter returns it). Typer's own, once built, replaces this
        on the parameter."""

        descriptor: TypeDescriptor
        text: bool

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.text and self.annotation is str and type(value) is str:
                return value
            if self.text and self.annotation == _TEXTS and isinstance(value, list | tuple) \
                    and all(type(v) is str for v in value):
                return list(value)
            typer_own = build_runtime_param(self.descriptor)
            param._runtime_param = typer_own
            return typer_own._coerce_value(value, param=param, ctx=ctx)


def quicken(params: list[Any]) -> None:
    """Give each of ``params`` whose coercion typer has not built yet a :class:`Deferred` one."""
    if not QUICK:
        return
    for param in params:
        if isinstance(param, _TyperParameter) and param._runtime_param is None:
            desc = param.type_descriptor
            param._runtime_param = Deferred(desc.parameter_info, desc.annotation, desc, is_text(desc))


class QuickGroup(TyperGroup):
    """typer's group, whose own parameters and whose resolved command's build no coercion they do not use."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        quicken(self.get_params(ctx))
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """typer's, and the command's parameters quickened — with its --help, which the command makes (once) with
        the names its context inherits from this one's, unless its own settings name others."""
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            own_help = "help_option_names" in (command.context_settings or {})
            quicken(command.params if own_help else command.get_params(ctx))
        return name, command, rest
