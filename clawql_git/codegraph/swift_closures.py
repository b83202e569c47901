"""Swift closures as the resolver reads them: which parameter of a function a call's argument
fills (argument labels, defaults, variadics, trailing closures) and the type of a closure
type's parameter."""

from __future__ import annotations

import re
from collections.abc import Callable

# ``{ARG:I}CALLEE``: parameter I of the closure given as argument ARG of a call (lang_swift)
CLOSURE_PARAMETER = re.compile(r"^\{(\d+):(\d+)\}(.+)$")
_TYPE = re.compile(r"^[A-Za-z_][\w.]*$")
_MARKS = frozenset({"inout", "sending", "borrowing", "consuming", "any", "some", "__owned"})


def bind(
    params: tuple[str, ...], given: list[str], takes_closure: Callable[[str], bool]
) -> list[int] | None:
    """The parameter each argument of a call with labels ``given`` fills, for a function
    whose parameters are ``params`` (as ``Symbol.labels`` writes them): the labels in order,
    a parameter with a default value left out, a variadic one taking several, a trailing
    closure (``{``) the next parameter left whose type ``takes_closure``; None when they do
    not fit."""
    args = [k for k, label in enumerate(given) if label != "{"]
    closures = [k for k, label in enumerate(given) if label == "{"]
    out = [-1] * len(given)
    i = c = 0
    for p, param in enumerate(params):
        label, _, written = param.partition(":")
        default = written.endswith("=")
        written = written.removesuffix("=")
        variadic = written.endswith("...")
        if i < len(args) and given[args[i]] == label:
            out[args[i]], i = p, i + 1
            while variadic and i < len(args) and given[args[i]] == "_":
                out[args[i]], i = p, i + 1
        elif i == len(args) and c < len(closures) and takes_closure(written.removesuffix("...")):
            out[closures[c]], c = p, c + 1
        elif not default:
            return None
    return out if i == len(args) and c == len(closures) else None


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}" and not (ch == ">" and text[i - 1 : i] == "-"):
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return [*out, text[start:]]


def group(text: str) -> tuple[str, str] | None:
    """The text inside the first ``(...)`` of ``text`` and what follows it."""
    start = text.find("(")
    depth = 0
    for i in range(start, len(text)) if start >= 0 else ():
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i], text[i + 1 :]
    return None


def closure_parameter(written: str, index: int) -> str:
    """The type named by parameter ``index`` of the closure type ``written`` (``@escaping
    (any EventMonitor) -> Void`` -> ``EventMonitor``; ``((Data) -> Void)?`` -> ``Data``); ''
    when it names none (a generic, a tuple, a function type, or no closure type at all)."""
    words = [w for w in written.split(" ") if w and not w.startswith("@") and w not in _MARKS]
    bare = " ".join(words).removesuffix("?").removesuffix("!")
    while bare.startswith("((") and bare.endswith(")"):  # ``((T) -> Void)`` of an optional
        bare = bare[1:-1]
    found = group(bare)
    if found is None or not found[1].strip().startswith(("->", "throws", "async")):
        return ""
    params = split_top(found[0], ",")
    if index >= len(params) or not found[0].strip():
        return ""
    _, colon, named = params[index].rpartition(":")
    kept = [w for w in (named if colon else params[index]).split() if w not in _MARKS]
    name = " ".join(w for w in kept if not w.startswith("@")).rstrip("?!").split("<")[0]
    return name if _TYPE.match(name) else ""
