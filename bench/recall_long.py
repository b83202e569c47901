"""Warm in-process recall on a vault of long entries (decision records, several chunks each,
so every answer meets the token budget), on the default path with the packaged MiniLM: this
checkout against a baseline checkout, side by side in one run.

Run: ``.venv/bin/python bench/recall_long.py --vault DIR --baseline OLD_CHECKOUT [--rounds 2]
[--json]``

``--vault`` is a vault with a MiniLM index, e.g. the ADR vault ``recall_heldout.py --keep DIR``
leaves in ``DIR/adr`` (494 records of ``../shared/corpora/adr``). ``--baseline`` is a checkout
of the code to compare with (``git worktree add --detach /tmp/base REV``). Each round and arm
(the order flips every round) copies the vault, then a fresh process of that arm's code opens
the copy with its defaults (answer cache on, every recall recorded on the audit chain, every
hit checked against its commit, a 2,000-token budget), makes three untimed recalls and then
asks every question of ``bench/questions/adr_heldout.jsonl`` once (all different, so each is a
cache miss), timing each; the answers' paths are compared between the arms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, medians, percentile, ratio_table

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions" / "adr_heldout.jsonl"
CHILD = """
import json, sys, time
from clawql_git import Vault
vault = Vault.open(sys.argv[1])
for warm in ("warm one", "warm two", "warm three"):
    vault.recall(warm)
times, answers = [], []
for line in open(sys.argv[2]):
    question = json.loads(line)["question"]
    start = time.perf_counter()
    result = vault.recall(question)
    times.append((time.perf_counter() - start) * 1000)
    answers.append([h.path for h in result.hits])
    tokens = result.total_tokens
print(json.dumps({"times": times, "answers": answers, "tokens": tokens}))
"""
LABELS = {
    "p50_ms": "fresh question p50 (ms)",
    "p90_ms": "fresh question p90 (ms)",
}


def progress(message: str) -> None:
    print(f"[recall_long] {message}", file=sys.stderr, flush=True)


def one_round(code: Path, vault: Path) -> dict[str, Any]:
    """One arm's pass over the questions on a fresh copy of ``vault``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["PYTHONPATH"] = str(code)
    with tempfile.TemporaryDirectory(prefix="recall-long-") as tmp:
        copy = Path(tmp) / "vault"
        shutil.copytree(vault, copy, symlinks=True)
        argv = [sys.executable, "-c", CHILD, str(copy), str(QUESTIONS)]
        out = subprocess.run(argv, env=env, cwd=code, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{code}: the recalls failed ({out.returncode}):\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "p50_ms": percentile(got["times"], 50),
        "p90_ms": percentile(got["times"], 90),
        "questions": len(got["times"]),
        "last_tokens": got["tokens"],
        "answers": got["answers"],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    arms = arms_of(args.baseline)
    vault = Path(args.vault)
    if not (vault / ".git").exists():
        raise SystemExit(f"{vault} is not a vault (no .git)")

    answers: dict[str, list[list[str]]] = {}

    def measure(name: str, r: int) -> dict[str, Any]:
        row = one_round(arms[name], vault)
        answers.setdefault(name, row.pop("answers"))  # the first round's
        return row

    report = alternate(arms, args.rounds, measure, progress)
    pairs = list(zip(answers["baseline"], answers["this"], strict=True))
    report["same_answers"] = {"same": sum(a == b for a, b in pairs), "total": len(pairs)}
    return report


def render(report: dict[str, Any]) -> str:
    rounds = len(report["rounds"]["this"])
    n = report["rounds"]["this"][0]["questions"]
    same = report["same_answers"]
    return "\n".join(
        [
            f"recall on long entries A/B: {rounds} rounds per arm, {n} questions each; "
            f"1-min load {load_range(report)}",
            *ratio_table(report, LABELS, "median of round values", 44, 1),
            f"answers identical in both arms: {same['same']}/{same['total']}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", required=True, help="a vault with a MiniLM index")
    parser.add_argument("--baseline", required=True, help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args(argv)
    report = run(args)
    report["summary"] = medians(report, LABELS)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
