"""Per language, side by side with codegraph 1.6.1: ``codegraph_speed.py --repos``.

For each repository of bench/codegraph_repos.json: two fresh checkouts at the pinned commit,
``clawql code index`` on one and ``codegraph init -y`` on the other, one after the other in the
same run (who goes first alternates from repository to repository), each a child process
measured with ``wait4``: wall seconds, CPU seconds (user + system; the steadier figure on a
shared machine), peak RSS (the largest process of the tree), index size on disk. Then both
indexes are read back with sqlite3 and the facts counted per language:

* files: files each indexed in that language;
* defs: definitions, i.e. symbols of the kinds in DEF_KINDS (functions, methods, constructors,
  classes, structs, interfaces, traits, protocols, enums, type aliases, modules, objects, ...;
  not fields, variables, constants, imports, parameters, files or routes);
* cg defs found: how many of codegraph's definitions clawql also has, matched by file and name
  (a multiset intersection, so two overloads count twice only if both tools have both); a
  definition codegraph names ``<anonymous>`` (it names C++ explicit specialisations such as
  ``template <> struct formatter<T>`` so, and C's unnamed structs) is matched by file and start
  line instead, against any definition of clawql's starting on that line; and one whose
  name no definition of clawql's in that file has is matched by file and start line to one
  of clawql's that no name match took, when the two names are the same definition written
  differently (``same_definition``: a C declarator ``(*cb_t)`` / ``cb_t``, a destructor
  ``buffer`` / ``~buffer``, a specialisation ``num_bits<uint128>`` / ``num_bits``, a
  conversion operator ``operator const`` / ``operator const char*``);
* calls: resolved call edges (ours: a call with a target; codegraph: ``calls`` and
  ``instantiates`` edges, which always have a target node).

    PYTHONPATH=. python bench/codegraph_speed.py --repos [FILE] [--only NAME|LANG ...]
        [--mirrors DIR] [--timeout S] [--json] [-v]

A tool still running after ``--timeout`` seconds (900 by default) is killed and reported so.
clawql runs with its modules' bytecode compiled once beforehand, as an installed package has
it (an editable install under ``PYTHONDONTWRITEBYTECODE=1`` would compile them on every run);
codegraph runs as npm installed it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import codegraph_repos as repos
from codegraph_speed import CODEGRAPH, size_of

DEF_KINDS = {
    "function",
    "method",
    "constructor",
    "class",
    "struct",
    "interface",
    "trait",
    "protocol",
    "enum",
    "type_alias",
    "type",
    "namespace",
    "module",
    "component",
    "union",
    "object",
    "extension",
    "record",
    "mixin",
}
TIMEOUT = [900.0]  # seconds a tool may take on one repository (--timeout)
TIMEOUT_NOTE = "the machine is shared: wall seconds stretch with its load, CPU s less so"

Facts = dict[str, dict[str, Any]]  # language -> files, defs, calls, names (Counter), kinds


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int | None]:
    """(wall s, CPU s, peak RSS MB, exit code or None when killed at TIMEOUT) of one child."""
    with tempfile.TemporaryFile() as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, env=env, stdout=sink, stderr=subprocess.DEVNULL, start_new_session=True
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > TIMEOUT[0]:
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return time.perf_counter() - start, 0.0, usage.ru_maxrss / 1024, None
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, proc.returncode


def _failed(tool: str, seconds: float, code: int | None) -> dict[str, Any]:
    if code is None:
        return {"error": f"{tool} killed after {seconds:.0f} s (--timeout {TIMEOUT[0]:.0f})"}
    return {"error": f"{tool} exit {code}"}


def _facts() -> dict[str, Any]:
    return {
        "files": 0,
        "lines": 0,
        "defs": 0,
        "calls": 0,
        "names": Counter(),
        "starts": Counter(),
        "anonymous": defaultdict(Counter),
        "kinds": Counter(),
        "at": defaultdict(list),  # (file, start line) -> the definitions' names
        "def_lines": defaultdict(list),  # (file, name) -> the definitions' start lines
    }


def _with_bytecode() -> dict[str, str]:
    """The child's environment as an installed clawql runs: with its modules' bytecode
    compiled (pip compiles an install's modules; this checkout is an editable install, and a
    sandbox may set PYTHONDONTWRITEBYTECODE, which makes every run compile clawql_git from
    source again: about 0.2 s of a small repository's index). Compiled once, here."""
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    if not BYTECODE[0]:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(root / "clawql_git")],
            env=env,
            capture_output=True,
            check=False,
        )
        BYTECODE[0] = True
    return env


BYTECODE = [False]


def ours(repo: Path) -> dict[str, Any]:
    """Index ``repo`` with ``clawql code index`` in a child process; measure and count."""
    env = _with_bytecode()
    cmd = [sys.executable, "-m", "clawql_git", "code", "index", str(repo), "--json"]
    seconds, cpu, rss, code = run_measured(cmd, env)
    db = repo / ".git" / "clawql" / "codegraph" / "graph.sqlite"
    if code != 0 or not db.exists():
        return _failed("clawql code index", seconds, code)
    facts: Facts = {}
    con = sqlite3.connect(db)
    try:
        for lang, n, lines in con.execute(
            "SELECT language, count(*), sum(lines) FROM files GROUP BY 1"
        ):
            f = facts.setdefault(repos.language(lang), _facts())
            f["files"] += n
            f["lines"] += lines or 0
        indexed = {path for (path,) in con.execute("SELECT path FROM files")}
        for f in facts.values():
            f["indexed"] = indexed
        for lang, kind, path, name, line in con.execute(
            "SELECT f.language, s.kind, s.path, s.name, s.line FROM symbols s "
            "JOIN files f USING (path)"
        ):
            f = facts.setdefault(repos.language(lang), _facts())
            _count_symbol(f, kind, path, name, line)
        for lang, n in con.execute(
            "SELECT f.language, count(*) FROM calls c JOIN files f USING (path) "
            "WHERE c.target_path != '' GROUP BY 1"
        ):
            facts.setdefault(repos.language(lang), _facts())["calls"] += n
    finally:
        con.close()
    size = size_of(db.parent)
    return {"index_s": seconds, "cpu_s": cpu, "rss_mb": rss, "size": size, "facts": facts}


def theirs(repo: Path) -> dict[str, Any]:
    """Index ``repo`` with ``codegraph init -y`` in a child process; measure and count."""
    if not CODEGRAPH.exists():
        return {"error": f"not installed ({CODEGRAPH})"}
    env = {**os.environ, "CODEGRAPH_TELEMETRY": "0"}
    seconds, cpu, rss, code = run_measured([str(CODEGRAPH), "init", "-y", str(repo)], env)
    db = repo / ".codegraph" / "codegraph.db"
    if code != 0 or not db.exists():
        return _failed("codegraph init", seconds, code)
    facts: Facts = {}
    con = sqlite3.connect(db)
    try:
        for lang, kind, path, name, line in con.execute(
            "SELECT language, kind, file_path, name, start_line FROM nodes"
        ):
            f = facts.setdefault(repos.language(lang), _facts())
            if kind == "file":
                f["files"] += 1
            else:
                _count_symbol(f, kind, path, name, line)
                if kind in DEF_KINDS and name == ANONYMOUS:
                    f["anonymous"][path][line] += 1
        for lang, n in con.execute(
            "SELECT s.language, count(*) FROM edges e JOIN nodes s ON s.id = e.source "
            "WHERE e.kind IN ('calls', 'instantiates') GROUP BY 1"
        ):
            facts.setdefault(repos.language(lang), _facts())["calls"] += n
    finally:
        con.close()
    size = size_of(repo / ".codegraph")
    return {"index_s": seconds, "cpu_s": cpu, "rss_mb": rss, "size": size, "facts": facts}


def _count_symbol(f: dict[str, Any], kind: str, path: str, name: str, line: int) -> None:
    """Count one symbol; a definition by (file, name), and by (file, start line) beside."""
    f["kinds"][kind] += 1
    if kind in DEF_KINDS:
        f["defs"] += 1
        f["names"][(path, name)] += 1
        f["starts"][(path, line)] += 1
        f["at"][(path, line)].append(name)
        f["def_lines"][(path, name)].append(line)


ANONYMOUS = "<anonymous>"


def _compact(name: str) -> str:
    return "".join(name.split())


def same_definition(theirs: str, ours: str) -> bool:
    """Whether codegraph's name ``theirs`` and clawql's ``ours``, for definitions starting on
    the same line of the same file, name the same thing written differently: a declarator
    (``(*cb_t)``, ``(Container)`` / ``cb_t``, ``Container``), a destructor (``buffer`` /
    ``~buffer``), a specialisation (``num_bits<uint128>`` / ``num_bits``), an operator
    (``operator <<`` / ``operator<<``) or a conversion operator, which codegraph names by
    its first word or by the type (``operator const``, ``string_view`` / ``operator const
    char*``, ``operator fmt::string_view``), or a constant path as written (Ruby's ``class
    Rack::Builder`` and ``module ::Helper`` define the constants ``Builder`` and ``Helper``;
    an out-of-line C++ ``ns::f``)."""
    if "::" in theirs and not theirs.startswith("operator"):
        return theirs.rsplit("::", 1)[1] == ours
    if theirs.startswith("(") and theirs.endswith(")"):
        return theirs.strip("()*& ") == ours
    if ours == f"~{theirs}" or ("<" in theirs and theirs.split("<", 1)[0] == ours):
        return True
    if not ours.startswith("operator"):
        return False
    if theirs.startswith("operator"):
        return _compact(ours).startswith(_compact(theirs))
    return ours.startswith("operator ") and _compact(theirs) in _compact(ours)


def _by_line(ours: dict[str, Any], theirs: dict[str, Any], missing: Counter[Any]) -> int:
    """Codegraph's definitions not matched by name, matched by file and start line to one of
    clawql's not matched by name either (``same_definition``); those found leave
    ``missing``."""
    spare = ours["names"] - theirs["names"]  # clawql's definitions no name match took
    matched = 0
    for (path, name), m in sorted(missing.items()):
        for line in sorted(set(theirs["def_lines"][(path, name)])):
            for other in ours["at"].get((path, line), []):
                if m and spare[(path, other)] and same_definition(name, other):
                    spare[(path, other)] -= 1
                    missing[(path, name)] -= 1
                    matched, m = matched + 1, m - 1
    return matched


def _found(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[int, list[Any]]:
    """How many of codegraph's definitions clawql has (see the module docstring), and the
    first 8 it lacks."""
    named = Counter({k: n for k, n in theirs["names"].items() if k[1] != ANONYMOUS})
    found = ours["names"] & named
    unmatched = named - found
    matched = sum(found.values()) + _by_line(ours, theirs, unmatched)
    missing = list((+unmatched).elements())
    for path, lines in theirs["anonymous"].items():
        for line, m in lines.items():
            have = min(m, ours["starts"][(path, line)])
            matched += have
            missing += [(path, f"{ANONYMOUS}@{line}")] * (m - have)
    return matched, sorted(missing)[:8]


def measure(repo: repos.BenchRepo, index: int, mirrors: Path) -> dict[str, Any]:
    """Both tools on fresh checkouts of ``repo``; the first tool alternates with ``index``."""
    work = Path(tempfile.mkdtemp(prefix=f"cg-poly-{repo.name}-"))
    try:
        runs: dict[str, dict[str, Any]] = {}
        order = [("clawql", ours), ("codegraph", theirs)]
        for tool, fn in order if index % 2 == 0 else order[::-1]:
            print(f"  {repo.repo}: {tool} ...", file=sys.stderr, flush=True)
            runs[tool] = fn(repos.checkout(repo, work, tool, mirrors))
        return {"repo": repo.repo, "commit": repo.commit, "first": next(iter(runs)), **runs}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def per_language(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per language either tool indexed a file of."""
    a: Facts = record["clawql"].get("facts", {})
    b: Facts = record["codegraph"].get("facts", {})
    rows = []
    for lang in sorted(set(a) | set(b)):
        fa, fb = a.get(lang, _facts()), b.get(lang, _facts())
        if not (fa["files"] or fb["files"]):
            continue
        matched, missing = _found(fa, fb)
        rows.append(
            {
                "repo": record["repo"],
                "language": lang,
                "files": (fa["files"], fb["files"]),
                "lines": fa["lines"],
                "defs": (fa["defs"], fb["defs"]),
                "cg_defs_found": matched,
                "cg_defs_found_pct": 100 * matched / fb["defs"] if fb["defs"] else None,
                "cg_defs_found_indexed_pct": _in_indexed(fa, fb, matched),
                "calls": (fa["calls"], fb["calls"]),
                "kinds": (dict(fa["kinds"]), dict(fb["kinds"])),
                "cg_only": missing,
            }
        )
    return rows


def _in_indexed(ours: dict[str, Any], theirs: dict[str, Any], matched: int) -> float | None:
    """The share found among codegraph's definitions in files clawql indexed (it leaves out
    files ``.gitattributes`` marks linguist-generated or -vendored, bundles, minified code)."""
    indexed = ours.get("indexed")
    if indexed is None:
        return None
    total = sum(n for (path, _), n in theirs["names"].items() if path in indexed)
    return 100 * matched / total if total else None


def _pair(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def _ratio(a: dict[str, Any], b: dict[str, Any], key: str) -> str:
    if key in a and key in b and b[key]:
        return f"{a[key] / b[key]:.2f}"
    return "-"


def print_record(record: dict[str, Any], verbose: bool) -> None:
    """The two tools' costs, their ratio, then the facts per language."""
    ours_r, cg = record["clawql"], record["codegraph"]
    print(f"\n{record['repo']} @ {record['commit'][:12]} (first: {record['first']})")
    print(f"  {'tool':10} {'index s':>8} {'CPU s':>7} {'RSS MB':>7} {'index MB':>9}")
    for tool, r in (("clawql", ours_r), ("codegraph", cg)):
        if "error" in r:
            print(f"  {tool:10} {r['error']}")
            continue
        print(
            f"  {tool:10} {r['index_s']:8.2f} {r['cpu_s']:7.2f} {r['rss_mb']:7.0f} "
            f"{r['size'] / 1e6:9.2f}"
        )
    print(
        f"  {'ratio':10} {_ratio(ours_r, cg, 'index_s'):>8} {_ratio(ours_r, cg, 'cpu_s'):>7} "
        f"{_ratio(ours_r, cg, 'rss_mb'):>7} {_ratio(ours_r, cg, 'size'):>9}   (clawql/codegraph)"
    )
    print(
        f"  {'language':11} {'files ours/cg':>14} {'defs ours/cg':>14} {'cg defs found':>14} "
        f"{'calls ours/cg':>15}"
    )
    for row in per_language(record):
        pct = row["cg_defs_found_pct"]
        found = f"{pct:.1f}%" if pct is not None else "-"
        print(
            f"  {row['language']:11} {_pair(row['files']):>14} {_pair(row['defs']):>14} "
            f"{found:>14} {_pair(row['calls']):>15}"
        )
        if verbose:
            inside = row["cg_defs_found_indexed_pct"]
            if inside is not None and inside != pct:
                print(f"      cg defs found in the files clawql indexes: {inside:.1f}%")
            print(f"      kinds ours {row['kinds'][0]}\n      kinds cg   {row['kinds'][1]}")
            print(f"      cg definitions clawql lacks (first 8): {row['cg_only']}")


def summary(records: list[dict[str, Any]]) -> None:
    """One line per repository: the main language's coverage and the cost ratios."""
    print(
        f"\n{'language':11} {'repo':26} {'defs ours/cg':>13} {'cg found':>9} "
        f"{'calls ours/cg':>14} {'CPU':>6} {'RSS':>6} {'size':>6}  (ratios clawql/codegraph)"
    )
    for record in records:
        main_langs = record.get("languages") or ()
        for row in per_language(record):
            if main_langs and row["language"] not in main_langs:
                continue
            pct = row["cg_defs_found_pct"]
            print(
                f"{row['language']:11} {record['repo']:26} {_pair(row['defs']):>13} "
                f"{(f'{pct:.1f}%' if pct is not None else '-'):>9} "
                f"{_pair(row['calls']):>14} "
                f"{_ratio(record['clawql'], record['codegraph'], 'cpu_s'):>6} "
                f"{_ratio(record['clawql'], record['codegraph'], 'rss_mb'):>6} "
                f"{_ratio(record['clawql'], record['codegraph'], 'size'):>6}"
            )


def _jsonable(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in record.items() if k not in ("clawql", "codegraph")}
    for tool in ("clawql", "codegraph"):
        out[tool] = {k: v for k, v in record[tool].items() if k != "facts"}
    out["languages_rows"] = [
        {k: v for k, v in r.items() if k != "kinds"} for r in per_language(record)
    ]
    return out


def main(argv: list[str]) -> None:
    """``--repos [FILE] [--only NAME|LANG ...] [--mirrors DIR] [--timeout S] [--json] [-v]``."""
    path, only, mirrors = repos.DEFAULT, [], repos.MIRRORS
    as_json, verbose = "--json" in argv, "-v" in argv
    args = [a for a in argv if a not in ("--json", "-v")]
    i = 0
    while i < len(args):
        if args[i] == "--only":
            only.append(args[i + 1])
            i += 2
        elif args[i] == "--timeout":
            TIMEOUT[0] = float(args[i + 1])
            i += 2
        elif args[i] == "--mirrors":
            mirrors = Path(args[i + 1])
            i += 2
        else:
            path = Path(args[i])
            i += 1
    records = []
    for n, repo in enumerate(repos.load(path, only)):
        record = measure(repo, n, mirrors)
        record["languages"] = list(repo.languages)
        records.append(record)
        if not as_json:
            print_record(record, verbose)
    load = os.getloadavg()[0]
    if as_json:
        print(json.dumps({"load": load, "records": [_jsonable(r) for r in records]}, indent=1))
        return
    summary(records)
    print(f"\nload average at the end: {load:.1f} on {os.cpu_count()} cores ({TIMEOUT_NOTE})")
    print("goal: cg defs found 100% on every language; CPU, RSS and size ratios < 1")
