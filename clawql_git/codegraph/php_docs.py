"""The types PHPDoc tags give (phpDocumentor's ``@var``, ``@param``, ``@return``), in the
spelling the PHP resolver reads: a class with dots (``Foo``, ``App.Foo``), ``Foo[]`` for an
array (or list, iterable) of that class, ``self`` / ``static`` for the class itself; '' for
anything that names no single class (scalars, unions of classes, generics of a class).

The forms read: ``Foo``, ``\\App\\Foo``, ``?Foo``, ``Foo|null``, ``Foo[]``, ``array<Foo>``,
``array<int, Foo>``, ``list<Foo>``, ``iterable<Foo>``, ``Foo[]|null``, ``$this``, ``static``,
``self``.
"""

from __future__ import annotations

import re

# a type as PHPDoc writes it: no spaces, except inside one level of ``<...>``
_TYPE = r"((?:[^\s<]|<[^<>]*>)+)"
DOC_VAR = re.compile(r"@var\s+" + _TYPE + r"(?:\s+\$(\w+))?")
DOC_PARAM = re.compile(r"@param\s+" + _TYPE + r"\s+(?:&\s*)?(?:\.\.\.)?\$(\w+)")
DOC_RETURN = re.compile(r"@return\s+" + _TYPE)
DOC_CLASS = re.compile(r"^\\?[A-Za-z_]\w*(\\[A-Za-z_]\w*)*$")
ARRAY_OF = re.compile(r"^(?:array|list|iterable|non-empty-array|non-empty-list)<(.+)>$", re.I)
SCALARS = frozenset(
    {
        "int", "integer", "float", "double", "string", "bool", "boolean", "array", "object",
        "mixed", "callable", "iterable", "void", "null", "false", "true", "resource", "self",
        "static", "never", "scalar", "numeric", "class-string", "list",
    }
)  # fmt: skip
# declared types that say nothing of a class: a docblock may tell more
OPEN_TYPES = frozenset({"", "array", "?array", "iterable", "?iterable", "mixed", "object"})


def doc_type(written: str) -> str:
    """The one class (or array of one class) a PHPDoc type names; see the module doc."""
    parts = [p for p in _top_level(written.lstrip("?")) if p.lower() != "null"]
    if len(parts) != 1:
        return ""
    one = parts[0]
    if one.lower() in ("$this", "static", "self"):
        return "self" if one.lower() == "self" else "static"
    element = ARRAY_OF.match(one)
    if element:
        args = _top_level(element.group(1), ",")
        inner = _class(args[-1].strip())
        return f"{inner}[]" if inner else ""
    if one.endswith("[]"):
        inner = _class(one[:-2])
        return f"{inner}[]" if inner else ""
    return _class(one)


def _class(written: str) -> str:
    if not DOC_CLASS.match(written) or written.lower() in SCALARS:
        return ""
    return written.lstrip("\\").replace("\\", ".")


def _top_level(written: str, sep: str = "|") -> list[str]:
    """``written`` split at ``sep`` outside ``<...>``."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(written):
        depth += (ch == "<") - (ch == ">")
        if ch == sep and depth == 0:
            out.append(written[start:i])
            start = i + 1
    return [*out, written[start:]]


def doc_var(doc: str) -> str:
    """The type of a property's ``/** @var Foo */``; ''."""
    found = DOC_VAR.search(doc)
    return doc_type(found.group(1)) if found else ""


def doc_params(doc: str) -> dict[str, str]:
    """``@param Foo $x`` lines of a function's docblock: parameter name -> type."""
    return {m.group(2): doc_type(m.group(1)) for m in DOC_PARAM.finditer(doc)}


def doc_return(doc: str) -> str:
    """The type of a function's ``@return``; ''."""
    found = DOC_RETURN.search(doc)
    return doc_type(found.group(1)) if found else ""
