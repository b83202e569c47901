"""Ground truths from each language's own compiler for ``codegraph_accuracy.py --java/--ts``,
against the code graph and codegraph 1.6.1 on the same checkout.

Java: javac's reading of the repository (bench/JavaTruth.java, compiled at run time into a
temporary directory with the JDK's javac, run with com.sun.source / JavacTask: parse, then
attribute). Truth: every class, interface, enum, record, annotation type, method and
constructor with its line span; every call (``m(...)``, ``a.m(...)``, ``new X(...)``) whose
target javac resolves to a declaration in the repository's files (resolvable), or outside them
(external, e.g. the JDK). A call javac cannot resolve (a dependency not on the class path) is in
neither set.

Go: go/types (bench/go_truth.go, built at run time with the toolchain's ``go build``; the
standard library from its export data, the repository's packages from their sources by the
module paths of its go.mod files): functions, methods, types and interface methods; calls
whose callee go/types resolves to one of them (a conversion ``T(x)``: the type), or outside
the repository (the standard library, a builtin). A call of a function value is in no set.

TypeScript: the ``typescript`` package's Program and TypeChecker (bench/ts_truth.js, run with
node; the package is installed beside codegraph: ``cd /work/bench-tools && npm install
typescript@5``): classes, interfaces, enums, type aliases, functions (declared, or a const bound
to a function or arrow), class methods and constructors; calls and ``new`` whose callee the
checker resolves, through imports, to one of those files' declarations, or outside them.

Matching: a definition is found when the graph has a symbol of that name in that file whose
line falls in javac's span; a call site is found when the graph has a call of that name in that
file on the call's line or the line of its name (chains broken over lines), resolved to some
target; it is right when that target's file is javac's and its line falls in javac's span of the
declaration (``new X()``: the class X, so X's constructor counts too).

    PYTHONPATH=. python bench/codegraph_accuracy.py --java [jsoup|PATH] [--no-codegraph] [-v]
    PYTHONPATH=. python bench/codegraph_accuracy.py --ts [ky|PATH] [--no-codegraph] [-v]
    PYTHONPATH=. python bench/codegraph_accuracy.py --go [chi|PATH] [--no-codegraph] [-v]
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import codegraph_repos as repos

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "JavaTruth.java"
TS_SCRIPT = HERE / "ts_truth.js"
GO_SOURCE = HERE / "go_truth.go"
TYPESCRIPT = Path("/work/bench-tools/node_modules/typescript")
CODEGRAPH_BIN = Path("/work/bench-tools/node_modules/.bin/codegraph")


@dataclass(frozen=True)
class Lang:
    """How one language's truth is computed and which facts of each tool it is matched with."""

    name: str
    globs: tuple[str, ...]
    suffixes: tuple[str, ...]  # our files of the language
    cg_languages: tuple[str, ...]
    cg_kinds: tuple[str, ...]
    default_repo: str


JAVA = Lang(
    "java",
    ("*.java",),
    (".java",),
    ("java",),
    ("class", "interface", "enum", "method", "function", "struct", "record", "annotation"),
    "jsoup",
)
GO = Lang(
    "go",
    ("*.go",),
    (".go",),
    ("go",),
    ("function", "method", "struct", "interface", "type_alias"),
    "chi",
)
TS = Lang(
    "typescript",
    ("*.ts", "*.tsx"),
    (".ts", ".tsx"),
    ("typescript", "tsx"),
    ("class", "interface", "enum", "method", "function", "type_alias", "constant", "variable"),
    "ky",
)

Span = tuple[int, int]


@dataclass
class CompilerTruth:
    """What javac reports for one checkout."""

    defs: list[tuple[str, str, Span, str]] = field(default_factory=list)  # path, name, span, kind
    # (path, line, name line, name) -> (target path, target span)
    sites: dict[tuple[str, int, int, str], tuple[str, Span]] = field(default_factory=dict)
    external: set[tuple[str, int, int, str]] = field(default_factory=set)
    errors: int = 0
    files: int = 0
    seconds: float = 0.0


@dataclass
class Graph:
    """One tool's facts, keyed the way the truth is matched."""

    names: dict[tuple[str, str], list[int]]  # (path, name) -> lines of definitions
    calls: dict[tuple[str, int, str], list[tuple[str, list[int]]]]  # -> targets (path, lines)
    seconds: float = 0.0


def lang_files(root: Path, lang: Lang) -> list[str]:
    """The repository's files of ``lang`` (module-info.java and .d.ts left out)."""
    out = subprocess.run(
        ["git", "ls-files", *lang.globs], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    return sorted(p for p in out if not p.endswith(("module-info.java", ".d.ts")))


def truth_command(lang: Lang, work: Path) -> list[str]:
    """The command printing ``lang``'s truth (JavaTruth compiled into ``work`` first)."""
    if lang is TS:
        if not TYPESCRIPT.exists():
            raise SystemExit(
                f"typescript not installed at {TYPESCRIPT}: cd {TYPESCRIPT.parents[1]}"
                " && npm install typescript@5"
            )
        return ["node", str(TS_SCRIPT), str(TYPESCRIPT)]
    if lang is GO:
        binary = work / "gotruth"
        if shutil.which("go") is None:
            raise SystemExit("go not installed: apt-get install -y golang-go")
        if not binary.exists():
            env = {**os.environ, "GOCACHE": str(work / "gocache"), "GOPATH": str(work / "gopath")}
            subprocess.run(["go", "build", "-o", str(binary), str(GO_SOURCE)], check=True, env=env)
        return [str(binary)]
    classes = work / "javatruth"
    if not classes.exists():
        classes.mkdir()
        subprocess.run(["javac", "-d", str(classes), str(SOURCE)], check=True)
    return ["java", "-Xss16m", "-cp", str(classes), "JavaTruth"]


def run_truth(root: Path, work: Path, lang: Lang) -> CompilerTruth:
    """Run ``lang``'s compiler-based truth on ``root``'s files."""
    cmd = truth_command(lang, work)
    files = lang_files(root, lang)
    start = time.perf_counter()
    done = subprocess.run(
        cmd,
        cwd=root,
        input="\n".join(files),
        capture_output=True,
        text=True,
        check=True,
    )
    truth = CompilerTruth(files=len(files), seconds=time.perf_counter() - start)
    for row in done.stdout.splitlines():
        f = row.split("\t")
        if f[0] == "D":
            truth.defs.append((f[1], f[5], (int(f[2]), int(f[3])), f[4]))
        elif f[0] == "C":
            key = (f[1], int(f[2]), int(f[3]), f[4])
            truth.sites[key] = (f[5], (int(f[6]), int(f[7])))
        elif f[0] == "X":
            truth.external.add((f[1], int(f[2]), int(f[3]), f[4]))
        elif f[0] == "E":
            truth.errors = int(f[1])
    return truth


def _like(lang: Lang, column: str) -> str:
    return "(" + " OR ".join(f"{column} LIKE '%{s}'" for s in lang.suffixes) + ")"


def ours(root: Path, lang: Lang) -> Graph:
    """Index ``root`` with the code graph (no history) and read its facts of ``lang``."""
    from clawql_git.codegraph.graph import CodeGraph

    graph = CodeGraph.open(root)
    start = time.perf_counter()
    graph.index(history=False)
    seconds = time.perf_counter() - start
    names: dict[tuple[str, str], list[int]] = defaultdict(list)
    lines: dict[tuple[str, str], list[int]] = defaultdict(list)
    for path, name, qualname, line in graph.store.query(
        "SELECT path, name, qualname, line FROM symbols WHERE " + _like(lang, "path")
    ):
        names[(path, name)].append(line)
        lines[(path, qualname)].append(line)
    calls: dict[tuple[str, int, str], list[tuple[str, list[int]]]] = defaultdict(list)
    for path, line, tail, tpath, tqual in graph.store.query(
        "SELECT path, line, tail, target_path, target_qualname FROM calls WHERE "
        + _like(lang, "path")
    ):
        target = (tpath, lines.get((tpath, tqual), [])) if tpath else ("", [])
        calls[(path, line, tail)].append(target)
    return Graph(dict(names), dict(calls), seconds)


def theirs(root: Path, lang: Lang) -> Graph | str:
    """Index a shared clone of ``root`` with codegraph 1.6.1 and read its facts of ``lang``."""
    if not CODEGRAPH_BIN.exists():
        return f"codegraph not installed at {CODEGRAPH_BIN}"
    work = Path(tempfile.mkdtemp(prefix="cg-java-")) / root.name
    try:
        subprocess.run(["git", "clone", "-q", "--shared", str(root), str(work)], check=True)
        env = {**os.environ, "CODEGRAPH_TELEMETRY": "0"}
        start = time.perf_counter()
        done = subprocess.run(
            [str(CODEGRAPH_BIN), "init", "-y", str(work)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )
        seconds = time.perf_counter() - start
        db_path = work / ".codegraph" / "codegraph.db"
        if done.returncode != 0 or not db_path.exists():
            return f"codegraph init failed: {done.stderr.strip()[-200:]}"
        db = sqlite3.connect(db_path)
        names: dict[tuple[str, str], list[int]] = defaultdict(list)
        langs = ",".join(f"'{x}'" for x in lang.cg_languages)
        kinds = ",".join(f"'{x}'" for x in lang.cg_kinds)
        for path, name, line in db.execute(
            f"SELECT file_path, name, start_line FROM nodes WHERE language IN ({langs}) "
            f"AND kind IN ({kinds})"
        ):
            names[(path, name)].append(line)
        calls: dict[tuple[str, int, str], list[tuple[str, list[int]]]] = defaultdict(list)
        for path, line, name, tpath, tline in db.execute(
            "SELECT s.file_path, e.line, t.name, t.file_path, t.start_line FROM edges e "
            "JOIN nodes s ON s.id = e.source JOIN nodes t ON t.id = e.target "
            f"WHERE e.kind IN ('calls', 'instantiates') AND s.language IN ({langs})"
        ):
            calls[(path, line, name)].append((tpath, [tline]))
        db.close()
        return Graph(dict(names), dict(calls), seconds)
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)


def score(truth: CompilerTruth, graph: Graph) -> dict[str, Any]:
    """Definitions found %, resolvable sites found %, right % of those found, external edges."""

    def inside(lines: list[int], span: Span) -> bool:
        return any(span[0] <= n <= span[1] for n in lines)

    found_defs = sum(
        1 for path, name, span, _ in truth.defs if inside(graph.names.get((path, name), []), span)
    )

    def targets(site: tuple[str, int, int, str]) -> list[tuple[str, list[int]]]:
        path, line, name_line, name = site
        out = list(graph.calls.get((path, line, name), []))
        if name_line != line:
            out += graph.calls.get((path, name_line, name), [])
        return [t for t in out if t[0]]

    found = right = 0
    wrong: list[Any] = []
    missed: list[Any] = []
    for site, (tpath, span) in truth.sites.items():
        ts = targets(site)
        if not ts:
            missed.append(site)
            continue
        found += 1
        if any(p == tpath and inside(lines, span) for p, lines in ts):
            right += 1
        else:
            wrong.append((site, (tpath, span), ts[:2]))
    external = [s for s in truth.external if targets(s)]
    return {
        "definitions_found_pct": 100 * found_defs / max(1, len(truth.defs)),
        "found_pct": 100 * found / max(1, len(truth.sites)),
        "right_pct": 100 * right / max(1, found),
        "right_of_all_pct": 100 * right / max(1, len(truth.sites)),
        "edges_into_external": len(external),
        "index_seconds": graph.seconds,
        "_wrong": wrong[:15],
        "_missed": missed[:15],
        "_external": external[:10],
    }


def resolve_root(arg: str, work: Path) -> Path:
    """A path as given, or a checkout of the named repository of codegraph_repos.json."""
    if Path(arg).is_dir():
        return Path(arg)
    found = repos.load(only=[arg])
    if not found:
        raise SystemExit(f"{arg}: neither a directory nor a repository of {repos.DEFAULT}")
    return repos.checkout(found[0], work)


def main(argv: list[str], lang: Lang = JAVA) -> None:
    """``[REPO|PATH ...] [--no-codegraph] [-v]``: print the table for ``lang``."""
    verbose = "-v" in argv
    compare = "--no-codegraph" not in argv
    names = [a for a in argv if not a.startswith("-")] or [lang.default_repo]
    work = Path(tempfile.mkdtemp(prefix="cg-java-truth-"))
    try:
        for arg in names:
            root = resolve_root(arg, work)
            truth = run_truth(root, work, lang)
            print(
                f"{root.name}: {truth.files} {lang.name} files; compiler: "
                f"{len(truth.defs)} definitions, "
                f"{len(truth.sites)} call sites resolved into the repository, "
                f"{len(truth.external)} resolved outside it, {truth.errors} errors "
                f"(missing dependencies; those calls are left out), {truth.seconds:.1f} s"
            )
            print(
                f"  {'tool':16} {'defs found':>10} {'found':>8} {'right':>8} "
                f"{'right/all':>9} {'external':>8} {'index s':>8}"
            )
            rows: list[tuple[str, dict[str, Any] | str]] = [
                ("clawql", score(truth, ours(root, lang)))
            ]
            if compare:
                other = theirs(root, lang)
                rows.append(
                    ("codegraph 1.6.1", other if isinstance(other, str) else score(truth, other))
                )
            for tool, m in rows:
                if isinstance(m, str):
                    print(f"  {tool:16} {m}")
                    continue
                print(
                    f"  {tool:16} {m['definitions_found_pct']:9.2f}% {m['found_pct']:7.2f}% "
                    f"{m['right_pct']:7.2f}% {m['right_of_all_pct']:8.2f}% "
                    f"{m['edges_into_external']:8d} {m['index_seconds']:8.2f}"
                )
                if verbose:
                    for key in ("_wrong", "_missed", "_external"):
                        print(f"    {key}")
                        for row in m[key]:
                            print("      ", row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        "found: resolvable sites with an edge; right: of those, at the compiler's declaration; "
        "external: edges into the repository at calls the compiler resolves outside it"
    )
