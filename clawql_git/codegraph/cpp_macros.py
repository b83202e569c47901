"""C++ source cleaning before parsing: the macros tree-sitter's grammar cannot read (fmt's
``FMT_BEGIN_NAMESPACE`` alone on a line, ``FMT_CONSTEXPR20 void f()``, ``class FMT_API X``,
``template <typename T, FMT_ENABLE_IF(...)>``, ``#if FMT_HAS_INCLUDE(<x>)``) are blanked or
rewritten so that every line and column stays where it was; and the macro definitions and
lone macro lines the code graph reads the namespaces of (``cpp_namespaces``)."""

from __future__ import annotations

import re

EXPORT_MACRO = re.compile(
    rb"\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*[A-Z0-9_](?:\([^()\n]*\))?)[ \t]+"
    rb"(?=[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:[:{]|\n))"
)


def blank_export_macros(source: bytes) -> bytes:
    """``class LEVELDB_EXPORT Status {`` -> ``class                Status {``: an all-caps
    export macro (``FMT_SO_VISIBILITY("default")`` with its arguments too) between the
    keyword and the name would make the grammar read a variable declaration. Blanked with
    spaces, so every line and column stays where it was."""
    return _blank_group(source, EXPORT_MACRO, 1)


_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"  # all caps with an underscore: FMT_CONSTEXPR20
_LONE_MACRO = re.compile(
    rb"(?m)^[ \t]*" + _MACRO + rb"(?:\((?:[^()\n]|\([^()\n]*\))*\))?[ \t]*(?://[^\n]*)?$"
)
_SPECIFIERS = (
    rb"(?:template[ \t]*<[^;{}\n]*>|inline|static|constexpr|friend|extern|virtual|explicit)"
)
_DECLARATION_START = (
    rb"(?:template|class|struct|union|enum|auto|void|bool|char|int|long|short|unsigned|signed"
    rb"|float|double|const|constexpr|inline|static|virtual|explicit|friend|typename|using)\b"
    rb"|~?[A-Za-z_][\w:]*[ \t]*\("  # a constructor (or a function with no return type)
    rb"|[A-Za-z_][\w:<>, ]*[ \t*&]+[A-Za-z_]\w*[ \t]*\("  # Ret name(
)
_PREFIX_MACRO = re.compile(
    rb"(?m)^([ \t]*(?:"
    + _SPECIFIERS
    + rb"[ \t]+)*)("
    + _MACRO
    + rb")(?=[ \t]+(?:"
    + _DECLARATION_START
    + rb"))"
)
_MACRO_STATEMENT = re.compile(  # at column 0: a use at namespace level, not in a body
    rb"(?m)^(" + _MACRO + rb")\((?:[^()\n]|\([^()\n]*\))*\);[ \t]*(?://[^\n]*)?$"
)
_IF_MACRO = re.compile(rb"\bif[ \t]+(" + _MACRO + rb")(?=[ \t]*\()")  # if FMT_CONSTEXPR20 (


def _blank_group(source: bytes, pattern: re.Pattern[bytes], group: int) -> bytes:
    out = bytearray(source)
    for match in pattern.finditer(source):
        start, end = match.span(group)
        out[start:end] = b" " * (end - start)
    return bytes(out)


def blank_lone_macros(source: bytes) -> bytes:
    """``FMT_BEGIN_NAMESPACE`` alone on a line (a macro that opens a namespace or marks the
    next declaration exported), or a call ``FMT_PRAGMA_CLANG(...)`` alone on a line with no
    ``;``: the grammar would read it and the next declaration as one function and lose
    everything up to the matching brace. Blanked when it stands where a declaration may
    start (after ``;``, a brace, a comment, a preprocessor line or another such macro); an
    all-caps name continuing an expression or ending an enum is left as it is."""
    out = bytearray(source)
    for match in _LONE_MACRO.finditer(source):
        end = match.start()
        while end and out[end - 1] in b" \t\r\n":  # back over blank (or blanked) space
            end -= 1
        previous = bytes(out[out.rfind(b"\n", 0, end) + 1 : end])
        if _ends_statement(previous):
            start, end = match.span()
            out[start:end] = b" " * (end - start)
    return bytes(out)


def _ends_statement(line: bytes) -> bool:
    """The line before ends a declaration: ``;``, a brace, a comment, a directive, nothing."""
    stripped = line.strip()
    if not stripped or stripped.startswith((b"#", b"//", b"*")) or stripped.endswith(b"*/"):
        return True
    code = stripped.split(b"//", 1)[0].rstrip()
    return code.endswith((b";", b"{", b"}"))


def blank_macro_statements(source: bytes) -> tuple[bytes, list[re.Match[bytes]]]:
    """``GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(unsigned char, 0);`` at column 0, after a
    declaration ends: a macro that expands to declarations, with arguments that are no expressions
    (types, an empty one); the grammar cannot read it and error recovery swallowed the
    classes after it. Blanked with spaces; the matches are returned so that each still
    counts as a call of the macro."""
    out = bytearray(source)
    blanked = []
    for match in _MACRO_STATEMENT.finditer(source):
        end = match.start()
        while end and out[end - 1] in b" \t\r\n":
            end -= 1
        if _ends_statement(bytes(out[out.rfind(b"\n", 0, end) + 1 : end])):
            start, end = match.span()
            out[start:end] = b" " * (end - start)
            blanked.append(match)
    return bytes(out), blanked


_NESTED = rb"\((?:[^()]|\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))*\)"  # (a(b(c(d))))
_TEMPLATE_MACRO = re.compile(  # template <typename T, FMT_ENABLE_IF(std::is_integral<T>::value)>
    rb"(?<=[<,])([ \t\n]*)(" + _MACRO + _NESTED + rb")(?=[ \t\n]*[,>])"
)


def blank_template_macros(source: bytes) -> bytes:
    """``template <typename T, FMT_ENABLE_IF(is_integral<T>::value)>``: a macro call standing
    for a template parameter (``enable_if_t<..., int> = 0``), which the grammar cannot read
    (the error recovery then loses the namespaces around it), is rewritten as the unnamed
    parameter ``int`` followed by spaces; its newlines are kept, so every line and column
    stays where it was. Only in a ``template <`` head, only after ``<`` or ``,``."""
    out = bytearray(source)
    for head in re.finditer(rb"\btemplate[ \t\n]*<", source):
        stop = _closing_angle(source, head.end())
        for match in _TEMPLATE_MACRO.finditer(source, head.end(), stop):
            start, end = match.span(2)
            if any(out[start:end]) and out[start : start + 3] != b"int":
                blanked = bytes(c if c == 0x0A else 0x20 for c in source[start:end])
                out[start:end] = b"int" + blanked[3:]
    return bytes(out)


_HAS_INCLUDE = re.compile(rb"(?m)^[ \t]*#[ \t]*(?:el)?if\b.*?\(([ \t]*<)[^<>()\n]*(>[ \t]*)\)")


def blank_include_tests(source: bytes) -> bytes:
    """``#if FMT_HAS_INCLUDE(<string_view>)``: the grammar reads ``<`` in an ``#if`` as a
    comparison and fails on the rest, and the error recovery swallows the file from the
    include guard on; the angle brackets are blanked (``( string_view )``, lines and columns
    unchanged). ``__has_include(<x>)`` likewise."""
    out = bytearray(source)
    for _ in range(3):  # several tests on one line
        changed = False
        for match in _HAS_INCLUDE.finditer(bytes(out)):
            for group in (1, 2):
                start, end = match.span(group)
                out[start:end] = bytes(out[start:end]).replace(b"<", b" ").replace(b">", b" ")
                changed = True
        if not changed:
            break
    return bytes(out)


def _closing_angle(source: bytes, start: int) -> int:
    """Where the ``<`` before ``start`` closes (``<`` and ``>`` inside parentheses, as in
    ``sizeof(A) > sizeof(B)``, do not count); the next ``{`` or ``;`` when it does not."""
    depth, parens = 1, 0
    for at in range(start, len(source)):
        char = source[at : at + 1]
        if char in b"{;":
            return at
        if char == b"(":
            parens += 1
        elif char == b")":
            parens -= 1
        elif not parens and char in b"<>":
            depth += 1 if char == b"<" else -1
            if not depth:
                return at + 1
    return len(source)


def blank_declaration_macros(source: bytes) -> bytes:
    """Blank the specifier macros the grammar does not know, with spaces (lines and columns
    unchanged): an export macro after ``class`` (``blank_export_macros``), a lone macro line
    (``blank_lone_macros``), a macro opening a declaration
    (``FMT_CONSTEXPR20 void f()``, ``FMT_EXPORT template <...>``, ``template <class T>
    FMT_INLINE auto g()``, ``FMT_CONSTEXPR Foo(int)``) and ``if FMT_CONSTEXPR20 (...)``.
    Each of them otherwise drops the parse into error recovery and loses the definitions
    around it. Only all-caps names with an underscore, in those places, are touched."""
    cleaned = blank_lone_macros(blank_export_macros(blank_include_tests(source)))
    cleaned = blank_template_macros(cleaned)
    for _ in range(2):  # two macros in a row: FMT_EXPORT FMT_CONSTEXPR auto f()
        cleaned = _blank_group(cleaned, _PREFIX_MACRO, 2)
    return _blank_group(cleaned, _IF_MACRO, 1)


_NAMESPACE_OPENER = re.compile(r"^(?:(?:inline )?namespace [A-Za-z_][\w:]* ?\{ ?)+$")
_NAMESPACE_CLOSER = re.compile(r"^(?:\} ?)+$")
_BARE_MACRO = re.compile(rb"[ \t]*(" + _MACRO + rb")[ \t]*(?://[^\n]*)?")


def namespace_expansion(value: str) -> str:
    """The value of ``#define FMT_BEGIN_NAMESPACE namespace fmt { inline namespace v11 {``
    (continuation lines joined, spaces collapsed) when it opens or closes namespaces and does
    nothing else, else ''."""
    written = " ".join(value.replace("\\\n", " ").split())
    if _NAMESPACE_OPENER.match(written) or _NAMESPACE_CLOSER.match(written):
        return written
    return ""


def lone_macro_uses(source: bytes, cleaned: bytes) -> list[tuple[str, int]]:
    """(name, offset) of each macro standing alone on a line, with no arguments, that the
    cleaning blanked (``FMT_BEGIN_NAMESPACE``): where its expansion, when a header defines it
    as namespaces opened or closed, takes effect."""
    out = []
    for match in _LONE_MACRO.finditer(source):
        bare = _BARE_MACRO.fullmatch(match.group())
        start, end = match.span()
        if bare is not None and not cleaned[start:end].strip():
            out.append((bare.group(1).decode(), start + bare.start(1)))
    return out
