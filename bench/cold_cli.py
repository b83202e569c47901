"""A cold `clawql memory recall` process, this checkout against a baseline checkout, side by
side in one run, with the parts of its start-up measured in the same way for each arm.

Run: ``.venv/bin/python bench/cold_cli.py --vault DIR --baseline OLD_CHECKOUT [--rounds 7]
[--json]``

``--vault`` is a vault with an index (for the packaged model: ``recall_quality.py --keep DIR``
or any vault after one ``clawql memory recall``). ``--baseline`` is a checkout of the code to
compare with (``git worktree add /tmp/base REV``). Every round runs, for each arm in
alternating order, a fresh ``python -m clawql_git memory --vault DIR recall QUERY --no-cache``
(a different query each round, so neither the recall cache nor an answer is reused; the
file cache is warm, as for a user) and then, in fresh processes, the pieces: ``import
lancedb`` the way the arm imports it, and the embedder's first query (model load included).
Nothing in the vault changes: a recall writes its audit event (and, on an index state
seen for the first time, the saved graph and tree beside the index, which the later
rounds then read: the untimed first round writes it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, medians, ratio_table

QUERIES = [
    "why did we pick this database",
    "how are secrets stored",
    "which message queue do we use",
    "what did we decide about authentication tokens",
    "how do we version the public API",
    "why not a monorepo",
    "how are errors reported to users",
    "what testing strategy was chosen",
    "where do logs go",
    "how do we deploy",
]
IMPORT_LANCEDB = (
    "import time; t = time.perf_counter()\n"
    "try:\n    from clawql_git.index.lance import import_lancedb\n"
    "except ImportError:\n    import lancedb\nelse:\n    import_lancedb()\n"
    "print(time.perf_counter() - t)"
)
FIRST_EMBED = (
    "import time; from clawql_git.index.embedders import resolve_embedder\n"
    "import os; e = resolve_embedder(None, os.environ)\n"
    "t = time.perf_counter(); e is not None and e.embed_query('warm the model')\n"
    "print(time.perf_counter() - t)"
)


def progress(message: str) -> None:
    print(f"[cold_cli] {message}", file=sys.stderr, flush=True)


def env_for(code: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["PYTHONPATH"] = str(code)
    return env


def wall(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    # `-m` and `-c` put the working directory first on sys.path: run in the arm's checkout
    cwd = env["PYTHONPATH"]
    start = time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return seconds, out.stdout


def one_round(code: Path, vault: str, query: str) -> dict[str, float]:
    env = env_for(code)
    recall = [sys.executable, "-m", "clawql_git", "memory", "--vault", vault, "recall"]
    seconds, _ = wall([*recall, query, "--no-cache", "--limit", "5"], env)
    _, imported = wall([sys.executable, "-c", IMPORT_LANCEDB], env)
    _, embedded = wall([sys.executable, "-c", FIRST_EMBED], env)
    return {
        "recall_s": seconds,
        "import_lancedb_s": float(imported.strip()),
        "first_embed_s": float(embedded.strip()),
    }


LABELS = {
    "recall_s": "clawql memory recall --no-cache (wall)",
    "import_lancedb_s": "  import lancedb (alone)",
    "first_embed_s": "  embedder's first query (model load)",
}


def run(args: argparse.Namespace) -> dict[str, Any]:
    arms = arms_of(args.baseline)
    for code in arms.values():  # untimed: compile the arm's bytecode, warm the file cache
        one_round(code, args.vault, "warm-up question")

    def measure(name: str, r: int) -> dict[str, Any]:
        return one_round(arms[name], args.vault, QUERIES[r % len(QUERIES)])

    return alternate(arms, args.rounds, measure, progress)


def render(report: dict[str, Any]) -> str:
    rounds = len(report["rounds"]["this"])
    head = f"cold CLI A/B: {rounds} rounds per arm; 1-min load {load_range(report)}"
    recall = medians(report, ["recall_s"])["this"]["recall_s"]
    return "\n".join(
        [
            head,
            *ratio_table(report, LABELS, "median (s)", 44, 2),
            f"goal: recall under 2 s: {'PASS' if recall < 2 else 'MISS'}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", required=True, help="a vault with an index")
    parser.add_argument("--baseline", required=True, help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args(argv)
    report = run(args)
    report["summary"] = medians(report, LABELS)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
