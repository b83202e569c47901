"""Rust types and callees as ``lang_rust`` writes them, read as text: the links of a callee
chain (``Router::new().route().await`` -> ``Router::new()``, ``route()``, ``await``), a type's
base and arguments (``Result<Foo<A>, E>``), the references, lifetimes and ``dyn`` around a type,
and what the std prelude, its wrappers and derives are."""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(
    r"^(?P<path>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*|\d+)(?P<call>\(\))?(?P<tries>\?*)$"
)  # ``a::b()?``, ``x``, a tuple field ``0``
# names of the std prelude (and its macros' helpers): external when nothing else binds them
PRELUDE = frozenset(
    {
        "Ok", "Err", "Some", "None", "Box", "Vec", "String", "Option", "Result", "drop",
        "Default", "From", "Into", "Iterator", "ToString", "ToOwned", "Clone", "Send",
        "Sync", "Sized", "Fn", "FnMut", "FnOnce", "AsRef", "AsMut", "Drop", "Eq",
        "PartialEq", "Ord", "PartialOrd", "IntoIterator", "Extend", "TryFrom", "TryInto",
        "FromIterator", "DoubleEndedIterator", "ExactSizeIterator", "Unpin", "Copy",
    }
)  # fmt: skip
WRAPPED = frozenset({"Result", "Option"})  # ``?``, ``unwrap()``, ``expect()`` give the value
POINTERS = frozenset({"Box", "Arc", "Rc", "Pin", "Cow", "RefCell", "Mutex", "RwLock"})
SEE_THROUGH = frozenset({"Box", "Arc", "Rc", "Pin"})  # methods auto-deref to the pointee
UNWRAP = frozenset({"unwrap", "expect", "unwrap_or_default", "unwrap_unchecked"})
KEEP_WRAPPED = frozenset({"ok", "map_err", "as_ref", "as_mut", "cloned", "clone", "take"})
FUTURES = frozenset({"IntoFuture", "Future"})
# the methods a ``#[derive(...)]`` gives (a trait impl's method of the same name is ambiguous)
DERIVED = {
    "Debug": ("fmt",),
    "Clone": ("clone", "clone_from"),
    "PartialEq": ("eq", "ne"),
    "PartialOrd": ("partial_cmp", "lt", "le", "gt", "ge"),
    "Ord": ("cmp", "max", "min", "clamp"),
    "Hash": ("hash",),
    "Default": ("default",),
    "Serialize": ("serialize",),
    "Deserialize": ("deserialize",),
}
# std traits a bound may name, with the methods they declare (markers declare none)
STD_BOUNDS = {
    **DERIVED,
    "Display": ("fmt",),
    "Send": (),
    "Sync": (),
    "Sized": (),
    "Unpin": (),
    "Copy": (),
    "Eq": (),
}


@dataclass(frozen=True)
class Token:
    """One link of a callee chain: a path, whether it is called, how many ``?`` follow."""

    path: str
    call: bool
    tries: int


def tokens(callee: str) -> list[Token] | None:
    """``Router::new().route().await`` -> its links; None for what is no chain of paths."""
    out = []
    for part in callee.split("."):
        if part == "await":
            out.append(Token("await", False, 0))
            continue
        if part.startswith("await?"):
            out.append(Token("await", False, len(part) - 5))
            continue
        m = TOKEN.match(part)
        if m is None:
            return None
        out.append(Token(m.group("path"), bool(m.group("call")), len(m.group("tries"))))
    return out


def split_generic(written: str) -> tuple[str, list[str]]:
    """``Result<Foo<A>, E>`` -> ('Result', ['Foo<A>', 'E']); no arguments: (written, [])."""
    start = written.find("<")
    if start < 0 or not written.endswith(">"):
        return written, []
    args, depth, last = [], 0, start + 1
    for i, ch in enumerate(written[start + 1 : -1], start + 1):
        depth += (ch in "<([") - (ch in ">)]")
        if ch == "," and depth == 0:
            args.append(written[last:i].strip())
            last = i + 1
    args.append(written[last:-1].strip())
    return written[:start].strip(), [a for a in args if a]


def derived_methods(attributes: tuple[str, ...]) -> set[str]:
    """The methods ``#[derive(Debug, serde::Serialize)]`` attributes give a type."""
    out: set[str] = set()
    for attribute in attributes:
        if attribute.startswith("derive(") and attribute.endswith(")"):
            for written in attribute[7:-1].split(","):
                out.update(DERIVED.get(written.strip().rsplit("::", 1)[-1], ()))
    return out


def bare_type(written: str) -> str:
    """``&'a mut dyn Foo + Send`` -> ``Foo``: references, lifetimes, ``dyn`` dropped, the
    first bound kept."""
    t = written.strip()
    while True:
        before = t
        t = t.removeprefix("&").strip()
        t = re.sub(r"^'\w+\s*", "", t)
        t = re.sub(r"^(mut|dyn|const)\s+", "", t)
        if t == before:
            break
    depth = 0
    for i, ch in enumerate(t):
        depth += (ch in "<([") - (ch in ">)]")
        if ch == "+" and depth == 0:
            return t[:i].strip()
    return t
