"""C and C++ in the code graph (issue #18): definitions with signatures and doc comments,
``#include`` resolved to files of the repository (relative to the includer, then include
roots), calls resolved with a confidence (same file and included headers exact, a header's
declaration followed to its one defining source inferred), C++ namespaces, out-of-line
methods and base classes, and which language a ``.h`` file is. Every expectation is exact."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.lang_c import EXTRACTOR as C
from clawql_git.codegraph.lang_cpp import EXTRACTOR as CPP
from clawql_git.codegraph.model import FileFacts

C_REPO = {
    "include/lib/util.h": (
        "/* util: small helpers. */\n"
        "#ifndef UTIL_H\n"
        "#define UTIL_H\n"
        "#include <stddef.h>\n"
        "\n"
        "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
        "#define VERSION 3\n"
        "\n"
        "/** Adds two numbers. */\n"
        "int util_add(int a, int b);\n"
        "\n"
        "// A point.\n"
        "// Two coordinates.\n"
        "typedef struct {\n"
        "    int x;\n"
        "    int y;\n"
        "} point;\n"
        "\n"
        "struct node {\n"
        "    struct node *next;\n"
        "    int value;\n"
        "};\n"
        "\n"
        "typedef struct node node_t;\n"
        "\n"
        "enum color { RED, GREEN };\n"
        "\n"
        "union value { int i; double d; };\n"
        "\n"
        "extern int util_count;\n"
        "#endif\n"
    ),
    "src/local.h": ('#include "lib/util.h"\nvoid local_run(struct node *n);\n'),
    "src/main.c": (
        "#include <stdio.h>\n"
        '#include "lib/util.h"\n'
        '#include "local.h"\n'
        "\n"
        "static int helper(void);\n"
        "\n"
        "int main(void) {\n"
        "    struct node *n = 0;\n"
        "    int r = util_add(1, MAX(2, 3));\n"
        '    printf("%d\\n", r);\n'
        "    local_run(n);\n"
        "    return helper();\n"
        "}\n"
        "\n"
        "static int helper(void) { return 0; }\n"
    ),
    "src/util.c": (
        '#include "lib/util.h"\n'
        "\n"
        "int util_count = 0;\n"
        "\n"
        "static int twice(int v) { return v * 2; }\n"
        "\n"
        "int util_add(int a, int b) {\n"
        "    util_count++;\n"
        "    return twice(a) + b;\n"
        "}\n"
    ),
}
CPP_REPO = {
    "include/geo/shape.hpp": (
        "#pragma once\n"
        "#include <string>\n"
        "\n"
        "namespace geo {\n"
        "\n"
        "/** Anything with an area. */\n"
        "class Shape {\n"
        "public:\n"
        "    virtual ~Shape();\n"
        "    virtual double area() const = 0;\n"
        "    static Shape* make(int sides);\n"
        "protected:\n"
        "    int sides_;\n"
        "};\n"
        "\n"
        "class Square : public Shape, private Named<int> {\n"
        "public:\n"
        "    explicit Square(double side);\n"
        "    double area() const override;\n"
        "private:\n"
        "    double side_;\n"
        "};\n"
        "\n"
        "}  // namespace geo\n"
    ),
    "src/main.cc": (
        "#include <iostream>\n"
        '#include "geo/shape.hpp"\n'
        "\n"
        "struct Report : geo::Square {\n"
        "    void print() { std::cout << area(); }\n"
        "};\n"
        "\n"
        "int main() {\n"
        "    geo::Shape* s = geo::Shape::make(4);\n"
        "    geo::Square sq(2.0);\n"
        "    sq.area();\n"
        "    s->area();\n"
        "    return 0;\n"
        "}\n"
    ),
    "src/shape.cpp": (
        '#include "geo/shape.hpp"\n'
        '#include "util.h"\n'
        "\n"
        "namespace geo {\n"
        "\n"
        "Shape::~Shape() {}\n"
        "\n"
        "Shape* Shape::make(int sides) {\n"
        "    return new Square(sides);\n"
        "}\n"
        "\n"
        "Square::Square(double side) : side_(side) {}\n"
        "\n"
        "// The side squared.\n"
        "double Square::area() const {\n"
        "    log_area(side_);\n"
        "    return square(side_);\n"
        "}\n"
        "\n"
        "}  // namespace geo\n"
    ),
    "src/util.h": (
        "// Helpers shared by the shapes.\n"
        "namespace geo {\n"
        "double square(double v);\n"
        "}\n"
        "void log_area(double a);\n"
    ),
}


class Files:
    """A RepoView over a fixture dict."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = frozenset(files)
        self._files = files

    def read(self, path: str) -> bytes:
        return self._files[path].encode()


def build(root: Path, files: dict[str, str]) -> CodeGraph:
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body)
    graph = CodeGraph.open(root)
    graph.index(history=False)
    return graph


def facts(files: dict[str, str], path: str) -> FileFacts:
    ex = CPP if path.endswith((".cpp", ".cc", ".hpp")) else C
    return ex.extract(path, files[path].encode(), ex.suffixes[Path(path).suffix])


def symbols(f: FileFacts) -> list[tuple[object, ...]]:
    return [
        (s.qualname, s.kind, s.line, s.end_line, s.exported, s.signature, s.docstring)
        for s in f.symbols
    ]


def calls(graph: CodeGraph) -> set[tuple[object, ...]]:
    rows = graph.store.query("SELECT * FROM calls")
    return {
        (
            f"{r['path']}:{r['line']}",
            r["caller"],
            r["callee"],
            f"{r['target_path']}:{r['target_qualname']}" if r["target_path"] else "",
            r["confidence"],
            r["resolution"],
        )
        for r in rows
    }


def deps(graph: CodeGraph) -> set[tuple[object, ...]]:
    rows = graph.store.query("SELECT path, module, target, line FROM deps")
    return {(r["path"], r["module"], r["target"], r["line"]) for r in rows}


def test_c_definitions_have_signatures_and_doc_comments() -> None:
    header = facts(C_REPO, "include/lib/util.h")
    assert header.language == "c" and header.errors == 0
    assert header.module_doc == "util: small helpers."
    assert symbols(header) == [
        ("MAX", "function", 6, 6, True, "#define MAX(a, b)", ""),
        ("VERSION", "constant", 7, 7, True, "#define VERSION", ""),
        ("util_add", "function", 10, 10, True, "int util_add(int a, int b)", "Adds two numbers."),
        ("point", "struct", 14, 17, True, "struct point", "A point.\nTwo coordinates."),
        ("node", "struct", 19, 22, True, "struct node", ""),
        ("node_t", "type", 24, 24, True, "typedef struct node node_t", ""),
        ("color", "enum", 26, 26, True, "enum color", ""),
        ("value", "struct", 28, 28, True, "union value", ""),
    ]
    assert [(i.module, i.name, i.line) for i in header.imports] == [("<stddef.h>", "*", 4)]
    source = facts(C_REPO, "src/util.c")
    assert symbols(source) == [
        ("util_count", "variable", 3, 3, True, "int util_count = 0", ""),
        ("twice", "function", 5, 5, False, "static int twice(int v)", ""),
        ("util_add", "function", 7, 10, True, "int util_add(int a, int b)", ""),
    ]
    main = facts(C_REPO, "src/main.c")  # the forward declaration of helper is no definition
    assert [(s.qualname, s.line) for s in main.symbols] == [("main", 7), ("helper", 15)]
    assert [(c.callee, c.caller, c.line) for c in main.calls] == [
        ("util_add", "main", 9),
        ("MAX", "main", 9),
        ("printf", "main", 10),
        ("local_run", "main", 11),
        ("helper", "main", 12),
    ]
    assert [(a.target, a.value, a.scope, a.annotation) for a in main.assignments] == [
        ("n", "node", "main", True),
        ("r", "util_add", "main", False),
    ]


def test_c_includes_resolve_to_repository_files(tmp_path: Path) -> None:
    graph = build(tmp_path, C_REPO)
    assert deps(graph) == {
        ("src/main.c", "lib/util.h", "include/lib/util.h", 2),  # through the include root
        ("src/main.c", "local.h", "src/local.h", 3),  # beside the including file
        ("src/local.h", "lib/util.h", "include/lib/util.h", 1),
        ("src/util.c", "lib/util.h", "include/lib/util.h", 1),
    }
    repo = Files(C_REPO)
    assert C.resolve_module("src/main.c", "<stdio.h>", repo) == []  # angle brackets: external
    assert C.resolve_module("src/main.c", "missing.h", repo) == []
    assert C.resolve_module("src/main.c", "util.h", repo) == ["include/lib/util.h"]  # by name
    assert C.resolve_module("src/main.c", "../include/lib/util.h", repo) == ["include/lib/util.h"]


def test_c_calls_resolve_with_a_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, C_REPO)
    assert calls(graph) == {
        ("src/util.c:9", "util_add", "twice", "src/util.c:twice", 1.0, "exact"),
        # declared in the included header, defined in the one source including it too
        ("src/main.c:9", "main", "util_add", "src/util.c:util_add", 0.8, "inferred"),
        ("src/main.c:9", "main", "MAX", "include/lib/util.h:MAX", 1.0, "exact"),
        ("src/main.c:10", "main", "printf", "", 0.0, "unresolved"),
        ("src/main.c:11", "main", "local_run", "src/local.h:local_run", 1.0, "exact"),
        ("src/main.c:12", "main", "helper", "src/main.c:helper", 1.0, "exact"),
    }


def test_cpp_namespaces_classes_and_out_of_line_methods() -> None:
    header = facts(CPP_REPO, "include/geo/shape.hpp")
    assert header.language == "cpp" and header.errors == 0
    assert [(s.qualname, s.kind, s.line, s.exported, s.bases) for s in header.symbols] == [
        ("geo.Shape", "class", 7, True, ()),
        ("geo.Shape.~Shape", "method", 9, True, ()),
        ("geo.Shape.area", "method", 10, True, ()),
        ("geo.Shape.make", "method", 11, True, ()),
        ("geo.Square", "class", 16, True, ("Shape", "Named")),
        ("geo.Square.Square", "method", 18, True, ()),
        ("geo.Square.area", "method", 19, True, ()),
    ]
    assert header.symbols[0].docstring == "Anything with an area."
    assert header.symbols[4].signature == "class Square : public Shape, private Named<int>"
    source = facts(CPP_REPO, "src/shape.cpp")
    assert symbols(source) == [
        ("geo.Shape.~Shape", "method", 6, 6, True, "Shape::~Shape()", ""),
        ("geo.Shape.make", "method", 8, 10, True, "Shape* Shape::make(int sides)", ""),
        ("geo.Square.Square", "method", 12, 12, True, "Square::Square(double side)", ""),
        (
            "geo.Square.area",
            "method",
            15,
            18,
            True,
            "double Square::area() const",
            "The side squared.",
        ),
    ]
    private = facts({"a.cpp": "class A {\n  int f();\npublic:\n  int g();\n};\n"}, "a.cpp")
    assert [(s.qualname, s.exported) for s in private.symbols] == [
        ("A", True),
        ("A.f", False),
        ("A.g", True),
    ]


def test_cpp_calls_and_bases_resolve(tmp_path: Path) -> None:
    graph = build(tmp_path, CPP_REPO)
    assert calls(graph) == {
        (
            "src/shape.cpp:9",
            "geo.Shape.make",
            "Square",
            "include/geo/shape.hpp:geo.Square",
            1.0,
            "exact",
        ),
        ("src/shape.cpp:16", "geo.Square.area", "log_area", "src/util.h:log_area", 1.0, "exact"),
        # a bare name in a namespace: the enclosing namespace first
        ("src/shape.cpp:17", "geo.Square.area", "square", "src/util.h:geo.square", 1.0, "exact"),
        # a member of a base class, then its out-of-line definition
        ("src/main.cc:5", "Report.print", "area", "src/shape.cpp:geo.Square.area", 0.8, "inferred"),
        (
            "src/main.cc:9",
            "main",
            "geo::Shape::make",
            "src/shape.cpp:geo.Shape.make",
            0.8,
            "inferred",
        ),
        ("src/main.cc:11", "main", "sq.area", "src/shape.cpp:geo.Square.area", 0.8, "inferred"),
        # pure virtual: only declared
        (
            "src/main.cc:12",
            "main",
            "s.area",
            "include/geo/shape.hpp:geo.Shape.area",
            0.8,
            "inferred",
        ),
    }
    rows = graph.store.query("SELECT * FROM supertypes")
    assert {
        (
            r["path"],
            r["child_qualname"],
            r["base"],
            r["line"],
            r["target_path"],
            r["target_qualname"],
            r["resolution"],
        )
        for r in rows
    } == {
        ("src/main.cc", "Report", "geo::Square", 4, "include/geo/shape.hpp", "geo.Square", "exact"),
        (
            "include/geo/shape.hpp",
            "geo.Square",
            "Shape",
            16,
            "include/geo/shape.hpp",
            "geo.Shape",
            "exact",
        ),
        ("include/geo/shape.hpp", "geo.Square", "Named", 16, "", "", "unresolved"),
    }
    up = graph.hierarchy("Report", "up", depth=2).items
    assert [(e["depth"], e["child"], e["base"]) for e in up] == [
        (1, "src/main.cc:Report", "geo::Square"),
        (2, "include/geo/shape.hpp:geo.Square", "Named"),
        (2, "include/geo/shape.hpp:geo.Square", "Shape"),
    ]


MIXED = {
    "lib.h": '/* plain C */\n#ifdef __cplusplus\nextern "C" {\n#endif\nint lib_f(void);\n',
    "widget.h": '#include "lib.h"\nclass Widget {\npublic:\n  void draw();\n};\n',
    "lib.c": '#include "lib.h"\nint lib_f(void) { return 1; }\n',
    "widget.cpp": '#include "widget.h"\nvoid Widget::draw() { lib_f(); }\n',
}


def test_a_header_is_cpp_only_when_its_text_is(tmp_path: Path) -> None:
    graph = build(tmp_path, MIXED)
    rows = graph.store.query("SELECT path, language FROM files ORDER BY path")
    assert [(r["path"], r["language"]) for r in rows] == [
        ("lib.c", "c"),
        ("lib.h", "c"),  # `extern "C"` under __cplusplus is still C
        ("widget.cpp", "cpp"),
        ("widget.h", "cpp"),
    ]
    assert calls(graph) == {  # a C++ file calls C through two headers
        ("widget.cpp:2", "Widget.draw", "lib_f", "lib.c:lib_f", 0.8, "inferred")
    }
    done = CliRunner().invoke(cli, ["code", "status", "-C", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["languages"] == {"c": 2, "cpp": 2}
    text = CliRunner().invoke(cli, ["code", "status", "-C", str(tmp_path)])
    assert "languages: c 2, cpp 2" in text.output


def test_an_edited_source_relinks_its_callers_through_the_header(tmp_path: Path) -> None:
    graph = build(tmp_path, C_REPO)
    (tmp_path / "src" / "util.c").write_text(
        C_REPO["src/util.c"].replace("int util_add(int a, int b) {", "int util_sum(int a, int b) {")
    )
    graph.update(["src/util.c"])
    found = {c for c in calls(graph) if c[2] == "util_add"}
    assert found == {
        ("src/main.c:9", "main", "util_add", "include/lib/util.h:util_add", 1.0, "exact")
    }


def test_export_macros_and_casts() -> None:
    source = {
        "api.hpp": (
            "namespace db {\n"
            "class DB_EXPORT Status {\n"
            " public:\n"
            "  static Status OK() { return Status(); }\n"
            "};\n"
            "class DB_EXPORT Env final : public Base {};\n"
            "int f(long x) { return static_cast<int>(x); }\n"
            "}\n"
        )
    }
    found = facts(source, "api.hpp")
    assert found.errors == 0
    assert [(s.qualname, s.kind, s.line, s.bases) for s in found.symbols] == [
        ("db.Status", "class", 2, ()),
        ("db.Status.OK", "method", 4, ()),
        ("db.Env", "class", 6, ("Base",)),
        ("db.f", "function", 7, ()),
    ]
    assert [(c.callee, c.caller) for c in found.calls] == [("Status", "db.Status.OK")]


def test_declaration_macros_and_conversion_operators() -> None:
    """fmt's macros (a lone ``FMT_BEGIN_NAMESPACE`` line, ``FMT_CONSTEXPR`` before a
    constructor, ``FMT_EXPORT template``, ``if FMT_CONSTEXPR20 (``, a pragma call alone on a
    line, ``class GTEST_API_ RE``) made the grammar lose the definitions after them; a
    conversion operator (``operator bool``) had no name."""
    source = {
        "fmt.h": (
            "FMT_BEGIN_NAMESPACE\n"
            "FMT_PRAGMA_CLANG(diagnostic push)\n"
            "namespace detail {\n"
            "class arg_list {\n"
            "  template <typename T> struct typed_node {\n"
            "    template <typename Arg>\n"
            "    FMT_CONSTEXPR typed_node(const Arg& arg) : value(arg) {}\n"
            "    T value;\n"
            "  };\n"
            "\n"
            " public:\n"
            "  /** True when set. */\n"
            "  inline explicit operator bool() const noexcept { return true; }\n"
            "  operator int() const;\n"
            "  FMT_CONSTEXPR20 void push(int x) {\n"
            "    if FMT_CONSTEXPR20 (x > 0) grow(x);\n"
            "  }\n"
            "};\n"
            "arg_list::operator int() const { return 0; }\n"
            "}  // namespace detail\n"
            "\n"
            "FMT_EXPORT\n"
            "enum class color : unsigned { red = 1 };\n"
            "FMT_EXPORT template <typename T> class store {};\n"
            "class GTEST_API_ RE {};\n"
            "FMT_END_NAMESPACE\n"
        )
    }
    found = facts(source, "fmt.h")
    assert found.language == "cpp"
    assert found.errors == 0
    assert [(s.qualname, s.kind, s.line, s.end_line) for s in found.symbols] == [
        ("detail.arg_list", "class", 4, 18),
        ("detail.arg_list.typed_node", "struct", 5, 9),
        ("detail.arg_list.typed_node.typed_node", "method", 7, 7),
        ("detail.arg_list.operator bool", "method", 13, 13),
        ("detail.arg_list.operator int", "method", 14, 14),
        ("detail.arg_list.push", "method", 15, 17),
        ("detail.arg_list.operator int", "method", 19, 19),
        ("color", "enum", 23, 23),
        ("store", "class", 24, 24),
        ("RE", "class", 25, 25),
    ]
    cast = found.symbols[3]
    assert (cast.signature, cast.docstring) == (
        "inline explicit operator bool() const noexcept",
        "True when set.",
    )
    assert [(c.callee, c.caller) for c in found.calls] == [("grow", "detail.arg_list.push")]


def test_include_cycles_escapes_and_broken_bytes(tmp_path: Path) -> None:
    graph = build(
        tmp_path,
        {
            "a.h": '#include "b.h"\nint a_f(void);\n',
            "b.h": (
                '#include "a.h"\n#include "../../etc/passwd"\n#include "/etc/hosts"\n'
                "int b_f(void);\n"
            ),
            "main.c": '#include "a.h"\nint main(void) { return a_f() + b_f() + c_f(); }\n',
        },
    )
    (tmp_path / "bad.c").write_bytes(
        b'#include "a.h"\nint \xff\xfe(;\nint ok(void) { return b_f(); }\n'
    )
    graph.index(history=False)
    assert deps(graph) == {
        ("a.h", "b.h", "b.h", 1),
        ("b.h", "a.h", "a.h", 1),
        ("main.c", "a.h", "a.h", 1),
        ("bad.c", "a.h", "a.h", 1),
    }
    assert calls(graph) == {
        ("main.c:2", "main", "a_f", "a.h:a_f", 1.0, "exact"),
        ("main.c:2", "main", "b_f", "b.h:b_f", 1.0, "exact"),  # through the cycle
        ("main.c:2", "main", "c_f", "", 0.0, "unresolved"),
        ("bad.c:3", "ok", "b_f", "b.h:b_f", 1.0, "exact"),
    }


def test_an_export_star_cycle_does_not_crash_the_index(tmp_path: Path) -> None:
    """The depth guard the include cycles needed also covers TypeScript ``export *`` cycles,
    which crashed ``clawql code index`` with a RecursionError before."""
    graph = build(
        tmp_path,
        {
            "a.ts": "export * from './b';\n",
            "b.ts": "export * from './a';\n",
            "main.ts": "import { x } from './a';\nx();\n",
        },
    )
    assert calls(graph) == {("main.ts:2", "", "x", "", 0.0, "unresolved")}


def test_both_modules_expose_an_extractor_and_load() -> None:
    from clawql_git.codegraph.files import load_extractors, suffix_map

    assert set(C.suffixes) == {".c", ".h"}
    assert set(CPP.suffixes) == {".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"}
    for ex, language in ((C, "c"), (CPP, "cpp")):
        empty = ex.extract("empty", b"", language)
        assert (empty.language, empty.errors, empty.symbols) == (language, 0, [])
    loaded = load_extractors()
    assert loaded["c"] is C and loaded["cpp"] is CPP
    suffixes = suffix_map(loaded)
    assert (suffixes[".h"], suffixes[".c"], suffixes[".hpp"], suffixes[".cc"]) == (
        "c",
        "c",
        "cpp",
        "cpp",
    )


def test_using_lines_are_followed(tmp_path: Path) -> None:
    graph = build(
        tmp_path,
        {
            "ns.hpp": ("namespace lib {\nnamespace detail { int helper(); }\nclass Base {};\n}\n"),
            "main.cpp": (
                '#include "ns.hpp"\n'
                "#include <utility>\n"
                "using namespace lib::detail;\n"
                "using lib::Base;\n"
                "using std::swap;\n"
                "class D : public Base {};\n"
                "int main() { int a = 1, b = 2; swap(a, b); return helper(); }\n"
            ),
        },
    )
    assert calls(graph) == {
        ("main.cpp:7", "main", "swap", "", 0.0, "external"),  # `using` of a name from outside
        ("main.cpp:7", "main", "helper", "ns.hpp:lib.detail.helper", 1.0, "exact"),
    }
    rows = graph.store.query("SELECT child_qualname, base, target_qualname FROM supertypes")
    assert [tuple(r) for r in rows] == [("D", "Base", "lib.Base")]
    assert deps(graph) == {("main.cpp", "ns.hpp", "ns.hpp", 1)}


UNNAMED = {
    "lib.cpp": (
        "namespace {\n"  # an anonymous namespace: its names stay in the enclosing scope
        "int hidden() { return 1; }\n"
        "}  // namespace\n"
        "namespace detail {\n"
        "enum { buffer_size = 256 };\n"
        "template <typename T> struct is_unit {};\n"
        "template <> struct is_unit<char> {};\n"  # a full specialisation keeps its name
        "}  // namespace detail\n"
        "class value {\n"
        " public:\n"
        "  union {\n"  # an anonymous union member: i and d are members of value
        "    int i;\n"
        "    double d;\n"
        "  };\n"
        "  struct {\n"  # an unnamed struct typing a field: reset is reached through spec
        "    int width;\n"
        "    void reset() { width = 0; }\n"
        "  } spec;\n"
        "  void clear() { reset(); }\n"
        "};\n"
        "int use(value* v) { v->clear(); return hidden(); }\n"
    )
}


def test_unnamed_records_are_anonymous_symbols(tmp_path: Path) -> None:
    """An unnamed struct, union or enum is a symbol named ``<anonymous>`` (as codegraph names
    it) and the container of the members it keeps; an anonymous namespace or an anonymous
    union member adds no scope, and ``reset()`` in ``value.clear`` is not the unnamed
    struct's method (it resolved to a ``value.reset`` before)."""
    found = facts(UNNAMED, "lib.cpp")
    assert found.errors == 0
    assert [(s.qualname, s.name, s.kind, s.line, s.end_line) for s in found.symbols] == [
        ("hidden", "hidden", "function", 2, 2),
        ("detail.<anonymous>", "<anonymous>", "enum", 5, 5),
        ("detail.is_unit", "is_unit", "struct", 6, 6),
        ("detail.is_unit", "is_unit", "struct", 7, 7),
        ("value", "value", "class", 9, 20),
        ("value.<anonymous>", "<anonymous>", "struct", 11, 14),
        ("value.<anonymous>", "<anonymous>", "struct", 15, 18),
        ("value.<anonymous>.reset", "reset", "method", 17, 17),
        ("value.clear", "clear", "method", 19, 19),
        ("use", "use", "function", 21, 21),
    ]
    assert found.symbols[3].signature == "template <> struct is_unit<char>"
    assert calls(build(tmp_path, UNNAMED)) == {
        ("lib.cpp:19", "value.clear", "reset", "", 0.0, "unresolved"),
        ("lib.cpp:21", "use", "v.clear", "lib.cpp:value.clear", 0.8, "inferred"),
        ("lib.cpp:21", "use", "hidden", "lib.cpp:hidden", 1.0, "exact"),
    }


def test_functions_returning_references_and_reference_parameters(tmp_path: Path) -> None:
    """``T& f()`` and ``const T& x``: the grammar keeps the declarator of a
    ``reference_declarator`` in no field, so googletest's ``TypedExpectation& Times(...)``
    was no definition and a ``const spec& s`` parameter gave no type to ``s.width()``."""
    files = {
        "spec.cpp": (
            "struct spec {\n"
            "  int width() const { return 0; }\n"
            "  spec& times(int n) { return *this; }\n"
            "};\n"
            "const spec& current();\n"
            "int measure(const spec& s) { return s.width(); }\n"
        )
    }
    found = facts(files, "spec.cpp")
    assert [(s.qualname, s.kind, s.line, s.signature) for s in found.symbols] == [
        ("spec", "struct", 1, "struct spec"),
        ("spec.width", "method", 2, "int width() const"),
        ("spec.times", "method", 3, "spec& times(int n)"),
        ("measure", "function", 6, "int measure(const spec& s)"),
    ]
    assert calls(build(tmp_path, files)) == {
        ("spec.cpp:6", "measure", "s.width", "spec.cpp:spec.width", 0.8, "inferred")
    }


def test_a_specialisation_is_found_by_its_written_name(tmp_path: Path) -> None:
    """``template <> auto digits10<uint128_t>()`` is named ``digits10`` like its template
    (calls name that); asking for ``digits10<uint128_t>`` finds that one definition."""
    graph = build(
        tmp_path,
        {
            "digits.hpp": (
                "namespace detail {\n"
                "template <typename T> constexpr auto digits10() -> int { return 1; }\n"
                "template <> constexpr auto digits10<uint128_t>() -> int { return 38; }\n"
                "template <typename T> struct is_unit {};\n"
                "template <> struct is_unit<char> {};\n"
                "}\n"
            )
        },
    )
    found = {
        name: (answer.extra["match"], [(s["qualname"], s["line"]) for s in answer.items])
        for name in ("digits10", "digits10<uint128_t>", "detail.is_unit<char>", "is_unit<int>")
        for answer in [graph.find_symbol(name)]
    }
    assert found["digits10"] == ("exact", [("detail.digits10", 2), ("detail.digits10", 3)])
    assert found["digits10<uint128_t>"] == ("exact", [("detail.digits10", 3)])
    assert found["detail.is_unit<char>"] == ("exact", [("detail.is_unit", 5)])
    assert found["is_unit<int>"][0] == "fuzzy"  # no such specialisation


def test_macro_statements_at_namespace_level() -> None:
    """googletest's ``GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(unsigned char, 0);`` (a
    macro expanding to a specialisation, a type as argument): the grammar lost the class
    after two of them. They are blanked and still calls of the macro; one in a body stays."""
    source = {
        "values.h": (
            "#define DEFAULT_(type, value) template <> struct BuiltIn<type> {}\n"
            "namespace testing {\n"
            "namespace internal {\n"
            "DEFAULT_(unsigned char, 0);\n"
            "DEFAULT_(signed char, 0);  // NOLINT\n"
            "}  // namespace internal\n"
            "template <typename T>\n"
            "class DefaultValue {\n"
            " public:\n"
            "  static void Set(T x) { DEFAULT_(x, 1); }\n"
            "};\n"
            "}  // namespace testing\n"
        )
    }
    found = facts(source, "values.h")
    assert found.language == "cpp"
    assert [(s.qualname, s.kind, s.line) for s in found.symbols] == [
        ("DEFAULT_", "function", 1),
        ("testing.DefaultValue", "class", 8),
        ("testing.DefaultValue.Set", "method", 10),
    ]
    assert sorted((c.callee, c.caller, c.line, c.column) for c in found.calls) == [
        ("DEFAULT_", "testing.DefaultValue.Set", 10, 25),
        ("DEFAULT_", "testing.internal", 4, 0),
        ("DEFAULT_", "testing.internal", 5, 0),
    ]


def test_unnamed_c_records_are_anonymous_symbols() -> None:
    """C, as the C++ extractor: an unnamed enum, struct or union with a body is a symbol named
    ``<anonymous>``; a typedef naming an unnamed struct is that struct (no second symbol)."""
    found = facts(
        {
            "flags.h": (
                "enum { FLAG_A = 1, FLAG_B = 2 };\n"
                "struct { int width; int height; } screen;\n"
                "typedef struct { int x; int y; } point;\n"
                "struct shape {\n"
                "  union { int radius; int side; } size;\n"
                "};\n"
            )
        },
        "flags.h",
    )
    assert found.errors == 0
    assert [(s.name, s.kind, s.line) for s in found.symbols if s.kind != "variable"] == [
        ("<anonymous>", "enum", 1),
        ("<anonymous>", "struct", 2),
        ("point", "struct", 3),
        ("shape", "struct", 4),
        ("<anonymous>", "struct", 5),
    ]


def test_parenthesised_declarators_name_what_they_declare() -> None:
    """C's declarator forms (C11 6.7.6): ``typedef void (*handler)(int)`` is the type
    ``handler`` (a pointer to a function), as are a pointer to an array and a parenthesised
    function type; ``int (*cmp)(...)`` at file level is the variable ``cmp``; ``int (max)(int,
    int)`` declares the function ``max`` (parentheses that keep a macro from expanding)."""
    found = facts(
        {
            "decl.h": (
                "typedef void (*signal_handler)(int);\n"
                "typedef int (*compare_fn)(const void *, const void *);\n"
                "typedef int (*row_ptr)[4];\n"
                "typedef double (math_fn)(double);\n"
                "extern void (*on_exit_hook)(void);\n"
                "int (*current_cmp)(const void *, const void *);\n"
                "int (max)(int a, int b);\n"
            )
        },
        "decl.h",
    )
    assert found.errors == 0
    assert [(s.name, s.kind, s.line, s.signature) for s in found.symbols] == [
        ("signal_handler", "type", 1, "typedef void (*signal_handler)(int)"),
        ("compare_fn", "type", 2, "typedef int (*compare_fn)(const void *, const void *)"),
        ("row_ptr", "type", 3, "typedef int (*row_ptr)[4]"),
        ("math_fn", "type", 4, "typedef double (math_fn)(double)"),
        ("current_cmp", "variable", 6, "int (*current_cmp)(const void *, const void *)"),
        ("max", "function", 7, "int (max)(int a, int b)"),
    ]


def test_a_function_whose_ifdef_branches_unbalance_its_braces() -> None:
    """``#ifdef A if (x) { #else if (y) { #endif``: each branch opens a brace that one ``}``
    closes, the grammar cannot pair them and leaves the function's head and body loose in an
    ERROR node; the function is still read, with its span, its calls and its locals (no
    file-level variable ``limit``), and the next function keeps its own."""
    found = facts(
        {
            "scale.c": (
                '#include "num.h"\n'
                "\n"
                "static int scale(int x)\n"
                "{\n"
                "\tint limit = 2;\n"
                "#ifdef WIDE\n"
                "\tif (x > 100) {\n"
                "#else\n"
                "\tif (x > 10) {\n"
                "#endif\n"
                "\t\tx /= limit;\n"
                "\t}\n"
                "\treturn twice(x);\n"
                "}\n"
                "\n"
                "int twice(int y)\n"
                "{\n"
                "\treturn y * 2;\n"
                "}\n"
            )
        },
        "scale.c",
    )
    assert found.errors == 1
    assert [
        (s.qualname, s.kind, s.line, s.end_line, s.exported, s.signature) for s in found.symbols
    ] == [
        ("scale", "function", 3, 14, False, "static int scale(int x)"),
        ("twice", "function", 16, 19, True, "int twice(int y)"),
    ]
    assert [(c.callee, c.caller, c.line) for c in found.calls] == [("twice", "scale", 13)]


def test_conversion_operators_are_named_by_their_whole_type() -> None:
    """A conversion function (``operator T()``) is named ``operator`` and its type as written,
    spaces collapsed: a function type inside a template argument (``Action<int(char)>``), a
    pointer type, and with a specifier macro before it (which the grammar reads as a return
    type); a destructor keeps its ``~``; ``int (ns::count)(int)`` defines the function
    ``ns::count`` (a function: ``ns`` is a namespace of the file)."""
    found = facts(
        {
            "wrap.cpp": (
                "template <typename R> struct Action {};\n"
                "struct Wrapper {\n"
                "  operator Action<int(char)>() const { return {}; }\n"
                "  API_DEPRECATED operator Action<long>() const { return {}; }\n"
                "  API_CONSTEXPR operator char*() const { return nullptr; }\n"
                "  operator const char*() const;\n"
                "  ~Wrapper();\n"
                "};\n"
                "namespace ns { int count(int n); }\n"
                "int (ns::count)(int n) { return n; }\n"
            )
        },
        "wrap.cpp",
    )
    assert [(s.qualname, s.kind, s.line, s.signature) for s in found.symbols] == [
        ("Action", "struct", 1, "template <typename R> struct Action"),
        ("Wrapper", "struct", 2, "struct Wrapper"),
        ("Wrapper.operator Action<int(char)>", "method", 3, "operator Action<int(char)>() const"),
        (
            "Wrapper.operator Action<long>",
            "method",
            4,
            "API_DEPRECATED operator Action<long>() const",
        ),
        ("Wrapper.operator char*", "method", 5, "API_CONSTEXPR operator char*() const"),
        ("Wrapper.operator const char*", "method", 6, "operator const char*() const"),
        ("Wrapper.~Wrapper", "method", 7, "~Wrapper()"),
        ("ns.count", "function", 10, "int (ns::count)(int n)"),
    ]


def test_an_alias_whose_value_an_if_branch_chooses() -> None:
    """``template <class T> using name = #if ... value-a; #else value-b; #endif``: the
    grammar cannot read an alias-declaration cut by a directive and leaves ``using name =``
    loose in an ERROR node; it is still the alias ``name``, spanning the ``#if``, and the
    declaration after it is read as before."""
    found = facts(
        {
            "traits.cpp": (
                "// Whether T copies trivially.\n"
                "template <typename T>\n"
                "using trivially_copyable =\n"
                "#if defined(OLD_LIBRARY)\n"
                "    std::has_trivial_copy_constructor<T>;\n"
                "#else\n"
                "    std::is_trivially_copy_constructible<T>;\n"
                "#endif\n"
                "int after(int x) { return x; }\n"
            )
        },
        "traits.cpp",
    )
    assert [
        (s.qualname, s.kind, s.line, s.end_line, s.signature, s.docstring) for s in found.symbols
    ] == [
        (
            "trivially_copyable",
            "type",
            2,
            8,
            "template <typename T> using trivially_copyable =",
            "Whether T copies trivially.",
        ),
        ("after", "function", 9, 9, "int after(int x)", ""),
    ]


MACRO_NAMESPACES = {
    "include/lib/base.h": (
        "#ifndef LIB_BEGIN_NAMESPACE\n"
        "#  define LIB_BEGIN_NAMESPACE \\\n"
        "     namespace lib {        \\\n"
        "     inline namespace v1 {\n"
        "#  define LIB_END_NAMESPACE }}\n"
        "#endif\n"
        "namespace lib { namespace detail {\n"
        "#define LIB_CHECK(x) (x)\n"
        "} }\n"
    ),
    "include/lib/format.h": (
        '#include "base.h"\n'
        "LIB_BEGIN_NAMESPACE\n"
        "int format(int x);\n"
        "class buffer {\n"
        " public:\n"
        "  void push(int c);\n"
        "};\n"
        "LIB_END_NAMESPACE\n"
        "int after(int x);\n"
    ),
    "test/use.cc": (
        '#include "lib/format.h"\n'
        "struct holder {\n"
        "  lib::buffer lib;\n"
        "  void run() { lib.push(3); }\n"
        "};\n"
        "int main() {\n"
        "  lib::buffer b;\n"
        "  b.push(LIB_CHECK(1));\n"
        "  lib::v1::format(2);\n"
        "  lib::after(4);\n"
        "  return lib::format(after(5));\n"
        "}\n"
    ),
}


def test_namespaces_a_macro_opens_and_macros_of_no_scope(tmp_path: Path) -> None:
    """A macro is a preprocessor name: it belongs to no namespace, so ``LIB_CHECK`` defined
    inside ``namespace lib::detail`` is called as ``LIB_CHECK``. ``LIB_BEGIN_NAMESPACE``
    alone on a line expands (its definition in the included ``base.h``) to ``namespace lib {
    inline namespace v1 {``, so ``format`` is ``lib::v1::format`` and, the namespace being
    inline, ``lib::format`` (cppreference, Namespaces: inline namespaces; qualified name
    lookup); ``after`` follows ``LIB_END_NAMESPACE`` (``}}``) and is global, so
    ``lib::after`` names nothing. ``lib.push`` is member access on the field ``lib`` (class
    member access), not the namespace."""
    graph = build(tmp_path, MACRO_NAMESPACES)
    lib = "include/lib/format.h"
    assert calls(graph) == {
        ("test/use.cc:4", "holder.run", "lib.push", f"{lib}:buffer.push", 0.8, "inferred"),
        ("test/use.cc:8", "main", "b.push", f"{lib}:buffer.push", 0.8, "inferred"),
        ("test/use.cc:8", "main", "LIB_CHECK", "include/lib/base.h:LIB_CHECK", 1.0, "exact"),
        ("test/use.cc:9", "main", "lib::v1::format", f"{lib}:format", 1.0, "exact"),
        ("test/use.cc:10", "main", "lib::after", "", 0.0, "unresolved"),
        ("test/use.cc:11", "main", "lib::format", f"{lib}:format", 1.0, "exact"),
        ("test/use.cc:11", "main", "after", f"{lib}:after", 1.0, "exact"),
    }
    symbols = {(s["qualname"], s["line"]) for s in graph.store.query("SELECT * FROM symbols")}
    assert ("LIB_CHECK", 8) in symbols and ("format", 3) in symbols


MEMBER_CALLS = {
    "include/geo/shapes.hpp": (
        "namespace geo {\n"
        "class Named {\n"
        " public:\n"
        "  const char* name() const;\n"
        "  void rename(const char* n);\n"
        "};\n"
        "int area(int side);\n"
        "class Shape : public Named {\n"
        " public:\n"
        "  int area() const;\n"
        "  void describe() const;\n"
        "  static Shape make(int sides);\n"
        "  void grow(int by);\n"
        "  void grow(int by, int times);\n"
        "};\n"
        "using ShapeRef = Shape;\n"
        "template <typename T> class Box : public T, public Named {\n"
        " public:\n"
        '  void open() { rename("box"); }\n'
        "};\n"
        "}  // namespace geo\n"
    ),
    "src/shapes.cpp": (
        '#include "geo/shapes.hpp"\n'
        "namespace geo {\n"
        "int Shape::area() const { return geo::area(2); }\n"
        "void Shape::describe() const {\n"
        "  area();\n"
        "  name();\n"
        "  this->grow(1);\n"
        "}\n"
        "Shape Shape::make(int sides) {\n"
        "  Shape made;\n"
        "  made.grow(sides, 2);\n"
        "  return made;\n"
        "}\n"
        "}  // namespace geo\n"
    ),
    "test/use.cc": (
        '#include "geo/shapes.hpp"\n'
        "geo::Shape shared;\n"
        "void check(int) {\n"
        "  geo::Shape value;\n"
        "  geo::Named shared;\n"
        "  value.describe();\n"
        "}\n"
        "void check(double) {\n"
        "  geo::Named value;\n"
        "  value.name();\n"
        "  shared.area();\n"
        "}\n"
        "void use(const geo::ShapeRef& ref) {\n"
        "  auto built = geo::Shape();\n"
        "  geo::Shape braced{};\n"
        "  ref.area();\n"
        '  built.rename("b");\n'
        "  braced.describe();\n"
        "  geo::Shape::make(3);\n"
        "}\n"
    ),
}


def test_cpp_member_calls_by_declared_types(tmp_path: Path) -> None:
    """cppreference, unqualified name lookup: in a member function (defined in the class or
    out of line, ``int Shape::area() const``) a name is looked up in the block, then in the
    class and its bases, then in the enclosing namespaces, so ``area()`` in ``describe`` is
    ``Shape::area`` although ``geo::area`` exists; ``name()`` is the base ``Named``'s. In a
    class template a name is not looked up in a base that depends on the template's
    parameters (dependent names): ``rename`` in ``Box::open`` stays unresolved. Member
    access (``value.describe()``, ``ref.area()``, ``this->grow(1)``) looks the member up in
    the class of the object's declared type: a local of the very function definition (the
    two ``check`` overloads each declare their own ``value``), a parameter of a type alias
    (``using ShapeRef = Shape;``), ``auto x = T()``, ``T x{}``. Qualified lookup: a static
    member ``geo::Shape::make``, a namespace member ``geo::area``. Overloads of ``grow`` are
    one qualname, one target."""
    graph = build(tmp_path, MEMBER_CALLS)
    src, hpp = "src/shapes.cpp", "include/geo/shapes.hpp"
    assert calls(graph) == {
        (f"{hpp}:19", "geo.Box.open", "rename", "", 0.0, "unresolved"),
        (f"{src}:3", "geo.Shape.area", "geo::area", f"{hpp}:geo.area", 1.0, "exact"),
        (f"{src}:5", "geo.Shape.describe", "area", f"{src}:geo.Shape.area", 1.0, "exact"),
        (f"{src}:6", "geo.Shape.describe", "name", f"{hpp}:geo.Named.name", 1.0, "exact"),
        (f"{src}:7", "geo.Shape.describe", "this.grow", f"{hpp}:geo.Shape.grow", 0.8, "inferred"),
        (f"{src}:11", "geo.Shape.make", "made.grow", f"{hpp}:geo.Shape.grow", 0.8, "inferred"),
        ("test/use.cc:6", "check", "value.describe", f"{src}:geo.Shape.describe", 0.8, "inferred"),
        ("test/use.cc:10", "check", "value.name", f"{hpp}:geo.Named.name", 0.8, "inferred"),
        # the file's ``shared``: the other ``check`` declares a ``shared`` of its own
        ("test/use.cc:11", "check", "shared.area", f"{src}:geo.Shape.area", 0.8, "inferred"),
        ("test/use.cc:14", "use", "geo::Shape", f"{hpp}:geo.Shape", 1.0, "exact"),
        ("test/use.cc:16", "use", "ref.area", f"{src}:geo.Shape.area", 0.8, "inferred"),
        ("test/use.cc:17", "use", "built.rename", f"{hpp}:geo.Named.rename", 0.8, "inferred"),
        ("test/use.cc:18", "use", "braced.describe", f"{src}:geo.Shape.describe", 0.8, "inferred"),
        ("test/use.cc:19", "use", "geo::Shape::make", f"{src}:geo.Shape.make", 0.8, "inferred"),
    }


OVERLOADS = {
    "include/ink/plain.hpp": (
        "namespace ink {\n"
        "inline int scale(int x) { return x; }\n"
        "inline int draw(const char* s) { return 0; }\n"
        "int fill(int x, int y = 0);\n"
        "}\n"
    ),
    "include/ink/wide.hpp": (
        "namespace ink {\n"
        "inline int scale(int x, int factor) { return x * factor; }\n"
        "inline int draw(const wchar_t* s) { return 1; }\n"
        "}\n"
    ),
    "src/use.cpp": (
        '#include "ink/plain.hpp"\n'
        '#include "ink/wide.hpp"\n'
        "template <typename... T> int all(T... args) { return ink::scale(args...); }\n"
        "int main() {\n"
        "  ink::scale(1);\n"
        "  ink::scale(1, 2);\n"
        '  ink::draw("a");\n'
        "  ink::fill(1);\n"
        "  return ink::fill(1, 2);\n"
        "}\n"
    ),
}


def test_overloads_in_two_headers_are_told_apart_by_argument_count(tmp_path: Path) -> None:
    """cppreference, overload resolution: the candidate functions are every declaration the
    name lookup finds, and a function is viable only when it can take that many arguments
    (parameters with a default may be left out). ``ink::scale`` is defined in two headers:
    one argument picks ``plain.hpp``'s, two ``wide.hpp``'s; ``ink::draw`` takes one argument
    in both, which the argument count cannot tell apart (the types would): unresolved, as is
    a pack expansion (``scale(args...)``). ``ink::fill`` takes one or two."""
    graph = build(tmp_path, OVERLOADS)
    plain, wide = "include/ink/plain.hpp", "include/ink/wide.hpp"
    assert calls(graph) == {
        ("src/use.cpp:3", "all", "ink::scale", "", 0.0, "unresolved"),
        ("src/use.cpp:5", "main", "ink::scale", f"{plain}:ink.scale", 1.0, "exact"),
        ("src/use.cpp:6", "main", "ink::scale", f"{wide}:ink.scale", 1.0, "exact"),
        ("src/use.cpp:7", "main", "ink::draw", "", 0.0, "unresolved"),
        ("src/use.cpp:8", "main", "ink::fill", f"{plain}:ink.fill", 1.0, "exact"),
        ("src/use.cpp:9", "main", "ink::fill", f"{plain}:ink.fill", 1.0, "exact"),
    }


def test_include_tests_template_macros_and_a_loose_namespace() -> None:
    """Three more things the grammar could not read, each of which sent the parse of fmt's
    ``format.h`` into error recovery: ``<string_view>`` in ``#if FMT_HAS_INCLUDE(...)``, a
    macro standing for a template parameter (``FMT_ENABLE_IF(...)``) and an export macro
    with arguments (``FMT_SO_VISIBILITY("default")``); and a ``namespace detail {`` whose
    closing brace an unbalanced ``#if`` elsewhere left loose in an ERROR node still scopes
    the definitions after it (``detail.first``, as C++ names it)."""
    source = {
        "x.hpp": (
            "#if FMT_HAS_INCLUDE(<string_view>) && FMT_CPLUSPLUS > 201703L\n"
            "#  include <string_view>\n"
            "#endif\n"
            "namespace lib {\n"
            "template <typename T, FMT_ENABLE_IF(sizeof(T) > 1)>\n"
            "auto wide(T x) -> T { return x; }\n"
            'class FMT_SO_VISIBILITY("default") failure {};\n'
            "}  // namespace lib\n"
            "namespace detail {\n"
            "inline int first() { return 1; }\n"
            "#if FMT_MSC_VERSION\n"
            "inline int second() { if (first()) {\n"
            "#else\n"
            "inline int second() { {\n"
            "#endif\n"
            "    return 2;\n"
            "  }\n"
            "}\n"
            "}  // namespace detail\n"
        )
    }
    found = facts(source, "x.hpp")
    assert [(s.qualname, s.kind, s.line, s.params) for s in found.symbols[:4]] == [
        ("lib.wide", "function", 6, 1),
        ("lib.failure", "class", 7, -1),
        ("detail.first", "function", 10, 0),
        ("detail.second", "function", 12, -1),  # recovered from the ERROR: arity unknown
    ]
    assert found.errors == 1
    assert [(c.callee, c.caller, c.args) for c in found.calls] == [("first", "detail.second", (0,))]


PROTOTYPES = {
    "src/alloc.h": (
        "#include <stddef.h>\n"
        "void *mem_alloc(size_t n);\n"
        "void mem_free(void *p);\n"
        "int mem_twice(int v);\n"
        "static inline int mem_zero(void) { return 0; }\n"
        "#define MEM_ID(a) (a)\n"
    ),
    "src/core.h": "int core_init(void);\n",
    "src/alloc.c": (  # defines the allocator without including its header (as jq's jv_alloc.c)
        '#include "core.h"\n'
        "#include <stdlib.h>\n"
        "void *mem_alloc(size_t n) { return malloc(n); }\n"
        "void mem_free(void *p) { free(p); }\n"
    ),
    "src/other.c": "static void mem_free(void *p) { (void)p; }\n",
    "src/a.c": "int mem_twice(int v) { return v; }\n",
    "src/b.c": "int mem_twice(int v) { return 2 * v; }\n",
    "src/use.c": (
        '#include "alloc.h"\n'
        "int main(void) {\n"
        "    void *p = mem_alloc(8);\n"
        "    mem_free(p);\n"
        "    return mem_twice(mem_zero()) + MEM_ID(1);\n"
        "}\n"
    ),
}

DECLARED_API = {
    "include/fmt/format.h": (
        "#define FMT_API\n"
        "namespace fmt {\n"
        "inline int vformat(int loc, const char *s, int args) { return loc; }\n"
        "FMT_API int vformat(const char *s, int args);\n"
        "FMT_API int vprint(const char *s, int args);\n"
        "}\n"
    ),
    "include/fmt/format-inl.h": (
        '#include "format.h"\n'
        "namespace fmt {\n"
        "int vformat(const char *s, int args) { return args; }\n"
        "}\n"
    ),
    "include/fmt/xchar.h": (
        "namespace fmt {\ntemplate <typename C> int vformat(const C *s, int a) { return 2; }\n}\n"
    ),
    "include/fmt/os.h": "namespace fmt {\nint vprint(const char *s, int a) { return 0; }\n}\n",
    "include/fmt/color.h": "namespace fmt {\nint vprint(const char *s, int a) { return 1; }\n}\n",
    "test/use.cc": (
        '#include "fmt/format.h"\n'
        "int main() {\n"
        '    fmt::vformat("x", 1);\n'
        '    fmt::vformat(0, "x", 1);\n'
        '    return fmt::vprint("x", 1);\n'
        "}\n"
    ),
}


def test_a_prototype_is_followed_to_the_one_definition(tmp_path: Path) -> None:
    """C11 6.9p5: an identifier with external linkage has exactly one external definition
    in the program; a prototype only declares it, and a ``static`` function (internal
    linkage, 6.2.2p3) is not that definition. A call of a header's prototype goes to the one
    repository file defining the function, even when it does not include the header;
    defined in two files it stays the prototype. A ``static inline`` function and a macro
    defined in the header are their own targets."""
    graph = build(tmp_path, PROTOTYPES)
    header = "src/alloc.h"
    assert {c for c in calls(graph) if c[0].startswith("src/use.c")} == {
        ("src/use.c:3", "main", "mem_alloc", "src/alloc.c:mem_alloc", 0.8, "inferred"),
        ("src/use.c:4", "main", "mem_free", "src/alloc.c:mem_free", 0.8, "inferred"),
        ("src/use.c:5", "main", "mem_twice", f"{header}:mem_twice", 1.0, "exact"),
        ("src/use.c:5", "main", "mem_zero", f"{header}:mem_zero", 1.0, "exact"),
        ("src/use.c:5", "main", "MEM_ID", f"{header}:MEM_ID", 1.0, "exact"),
    }


def test_a_cpp_declaration_is_followed_to_its_out_of_line_definition(tmp_path: Path) -> None:
    """cppreference, definitions and ODR: a non-inline function is defined once; fmt declares
    ``FMT_API vformat(string_view, format_args)`` in ``format.h`` and defines it in
    ``format-inl.h``. The two-argument call goes to that definition (the three-argument
    overload is defined in ``format.h`` itself; a function template's definition, as
    ``xchar.h``'s, defines no plain function); ``vprint``, defined in two headers, stays the
    declaration."""
    graph = build(tmp_path, DECLARED_API)
    header = "include/fmt/format.h"
    assert {c for c in calls(graph) if c[0].startswith("test/")} == {
        (
            "test/use.cc:3",
            "main",
            "fmt::vformat",
            "include/fmt/format-inl.h:fmt.vformat",
            0.8,
            "inferred",
        ),
        ("test/use.cc:4", "main", "fmt::vformat", f"{header}:fmt.vformat", 1.0, "exact"),
        ("test/use.cc:5", "main", "fmt::vprint", f"{header}:fmt.vprint", 1.0, "exact"),
    }
