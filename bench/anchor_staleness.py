"""Code-anchored memory on a real repository's history: replay its first-parent commits one
by one, record each commit that changes Python definitions as a ``code_change`` entry (as the
post-commit hook does), check every anchor after each commit, and judge each flag raised
against Python's own ``ast`` (an independent parser): a ``changed`` flag is right when the
definition's source lines (decorators included) differ between the anchor's commit and the
commit that flagged it, ``moved``/``vanished`` when the definition is no longer in its file.
The semantic column also asks ``ast.dump`` (comments and layout do not count).

    PYTHONPATH=. python bench/anchor_staleness.py [--source GIT_DIR] [--commits N] [--json]

The default source is the mirror the ``fetch`` tool made of pallets/itsdangerous; the code is
read with git from a bare clone in a temporary directory, never checked out or committed.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawql_git import Identity, Vault
from clawql_git.codegraph.anchors import AnchorCheck, CodeCache
from clawql_git.codegraph.changes import diff_symbols
from clawql_git.vault.anchoring import check_code
from clawql_git.vault.code_changes import record_change

DEFAULT_SOURCE = Path("/work/.mirror/pallets+itsdangerous/repo")
WHO = Identity(agent_id="bench-replay", session_id="replay")


def cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children (git): steadier than wall time
    on a shared machine."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def source_at(root: Path, sha: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "show", f"{sha}:{path}"], cwd=root, capture_output=True, text=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def ast_definition(source: str | None, qualname: str) -> tuple[str, str] | None:
    """(source lines with decorators, ast.dump) of ``qualname`` in ``source``, per ``ast``."""
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:  # Python 2 code early in a history: ast cannot judge it
        raise Unparsable from exc
    node: Any = tree
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        found = [n for n in ast.iter_child_nodes(node) if _named(n, part, i < len(parts) - 1)]
        if not found:
            return None
        node = found[-1]  # the binding Python keeps (an @overload stub comes before it)
    lines = source.split("\n")
    start = min([node.lineno, *[d.lineno for d in getattr(node, "decorator_list", [])]])
    return "\n".join(lines[start - 1 : node.end_lineno]), ast.dump(node)


class Unparsable(Exception):
    """A version of a file Python's ast cannot read."""


def _named(node: ast.AST, name: str, scope: bool) -> bool:
    """Whether ``node`` defines ``name`` (only a class or function when it must hold more)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == name
    if scope:
        return False
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


@dataclass
class Tally:
    """What the replay saw."""

    commits: int = 0
    recorded: int = 0
    record_s: list[float] = field(default_factory=list)
    check_s: list[float] = field(default_factory=list)
    check_cpu_s: list[float] = field(default_factory=list)  # this process and its git children
    anchors_at_check: list[int] = field(default_factory=list)
    flags: dict[str, int] = field(default_factory=dict)  # state -> flags raised
    right: int = 0
    right_semantic: int = 0
    unjudged: int = 0  # not Python ast can read (syntax of a newer Python)
    wrong: list[dict[str, Any]] = field(default_factory=list)
    missed: int = 0
    missed_examples: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)


def judge(root: Path, c: AnchorCheck) -> tuple[bool | None, bool | None]:
    """(right by source lines, right by ast.dump) for one flag; None when ast cannot tell."""
    a = c.anchor
    try:
        before = ast_definition(source_at(root, a.commit, a.file), a.qualname)
        after = ast_definition(source_at(root, c.checked_at, a.file), a.qualname)
    except Unparsable:
        return None, None
    if before is None:
        return None, None
    if c.state in ("moved", "vanished"):
        return after is None, after is None
    if after is None:
        return False, False
    return after[0] != before[0], after[1] != before[1]


def replay(root: Path, vault: Vault, commits: list[str], tally: Tally) -> None:
    previous: dict[tuple[str, str, str], str] = {}
    cache = CodeCache()  # what the replay read stays read, as in a long-running watcher
    for old, new in itertools.pairwise(commits):
        tally.commits += 1
        if not diff_symbols(root, old, new).symbols:
            continue  # nothing for the hook to anchor: docs, tests data, config
        start = time.perf_counter()
        record_change(vault, root, old, new, WHO)
        tally.record_s.append(time.perf_counter() - start)
        tally.recorded += 1
        start, cpu = time.perf_counter(), cpu_seconds()
        found = check_code(vault, root, lambda name: [], new, cache)
        tally.check_s.append(time.perf_counter() - start)
        tally.check_cpu_s.append(cpu_seconds() - cpu)
        tally.anchors_at_check.append(found.anchors)
        _judge_new_flags(root, found.stale, previous, tally)
        print(
            f"{tally.commits}/{len(commits) - 1} {new[:10]} anchors {found.anchors}",
            file=sys.stderr,
        )


def _judge_new_flags(
    root: Path, stale: Any, previous: dict[tuple[str, str, str], str], tally: Tally
) -> None:
    now: dict[tuple[str, str, str], str] = {}
    for entry in stale:
        for c in entry.checks:
            key = (c.anchor.key, c.anchor.file, c.anchor.qualname)
            now[key] = c.state
            if previous.get(key) == c.state:
                continue  # still the flag it was
            tally.flags[c.state] = tally.flags.get(c.state, 0) + 1
            text, semantic = judge(root, c)
            if text is None:
                tally.unjudged += 1
                continue
            tally.right += int(text)
            tally.right_semantic += int(bool(semantic))
            if not text:
                tally.wrong.append(c.to_record())
    previous.clear()
    previous.update(now)


def missed_at_end(root: Path, vault: Vault, head: str, tally: Tally) -> None:
    """Anchors left fresh at the end whose definition ast says did change (flags missed)."""
    from clawql_git.codegraph.anchor_store import AnchorStore
    from clawql_git.vault.anchoring import store_path

    store = AnchorStore(store_path(vault))
    checks = store.checks(str(root))
    store.close()
    fresh = [c for c in checks if not c.stale]
    for c in fresh:
        try:
            before = ast_definition(
                source_at(root, c.anchor.commit, c.anchor.file), c.anchor.qualname
            )
            after = ast_definition(source_at(root, head, c.anchor.file), c.anchor.qualname)
        except Unparsable:
            continue
        if before is not None and (after is None or after[0] != before[0]):
            tally.missed += 1
            tally.missed_examples.append(c.to_record())
    tally.final = {
        "anchors": len(checks),
        "stale_anchors": len(checks) - len(fresh),
        "anchored_entries": len({c.anchor.key for c in checks}),
        "stale_entries": len({c.anchor.key for c in checks if c.stale}),
    }


def report(tally: Tally, source: str) -> dict[str, Any]:
    judged = tally.right + len(tally.wrong)
    quarter = max(1, len(tally.check_s) // 4)
    early = statistics.median(tally.check_s[:quarter]) if tally.check_s else 0.0
    late = statistics.median(tally.check_s[-quarter:]) if tally.check_s else 0.0
    return {
        "source": source,
        "commits_replayed": tally.commits,
        "code_change_entries": tally.recorded,
        "flags_raised": tally.flags,
        "flags_judged": judged,
        "flags_unjudged": tally.unjudged,
        "precision_source": round(tally.right / judged, 4) if judged else None,
        "precision_semantic": round(tally.right_semantic / judged, 4) if judged else None,
        "missed_at_end": tally.missed,
        "final": tally.final,
        "record_ms_median": round(1000 * statistics.median(tally.record_s), 1)
        if tally.record_s
        else None,
        "check_ms_median": round(1000 * statistics.median(tally.check_s), 1)
        if tally.check_s
        else None,
        "check_cpu_ms_median": _ms(tally.check_cpu_s),
        "check_cpu_ms_first_quarter": _ms(tally.check_cpu_s[:quarter]),
        "check_cpu_ms_last_quarter": _ms(tally.check_cpu_s[-quarter:]),
        "check_ms_first_quarter": round(1000 * early, 1),
        "check_ms_last_quarter": round(1000 * late, 1),
        "anchors_first_quarter": tally.anchors_at_check[quarter - 1]
        if tally.anchors_at_check
        else 0,
        "anchors_last": tally.anchors_at_check[-1] if tally.anchors_at_check else 0,
        "check_over_record": round(
            statistics.median(tally.check_s) / statistics.median(tally.record_s), 3
        )
        if tally.record_s
        else None,
        "wrong_examples": tally.wrong[:5],
        "missed_examples": tally.missed_examples[:5],
    }


def _ms(values: list[float]) -> float | None:
    return round(1000 * statistics.median(values), 1) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="A git repository.")
    parser.add_argument("--commits", type=int, default=0, help="The last N commits (0: all).")
    parser.add_argument("--json", action="store_true", help="Print JSON.")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="anchor-bench-"))
    try:
        root = tmp / "code.git"
        git(tmp, "clone", "-q", "--bare", str(args.source), str(root))
        commits = git(root, "rev-list", "--first-parent", "--reverse", "HEAD").split()
        if args.commits:
            commits = commits[-(args.commits + 1) :]
        vault = Vault.init(tmp / "vault", identity=WHO)
        tally = Tally()
        replay(root, vault, commits, tally)
        missed_at_end(root, vault, commits[-1], tally)
        vault.close()
        out = report(tally, str(args.source))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, value in out.items():
        if not key.endswith("_examples"):
            print(f"{key:28} {value}")
    for kind in ("wrong", "missed"):
        for example in out[f"{kind}_examples"]:
            print(f"{kind}:", json.dumps(example))


if __name__ == "__main__":
    main()
