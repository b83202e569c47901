"""What the one write path and the one read path cost, against an older checkout, side by side:
in-process ``Vault.ingest`` and ``Vault.get`` latency (median of each round) on a vault of
``--size`` entries, on the path users get (the packaged defaults, audit on). The baseline's
``get`` records nothing; this checkout's records a MEMORY_READ on the audit chain.

Run: ``.venv/bin/python bench/write_read_ab.py --baseline ../old-checkout [--rounds 4]``
(make the baseline with ``git worktree add ../old-checkout <commit>``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, ratio_table

ROUND = r"""
import json, statistics, sys, tempfile, time
from pathlib import Path
from clawql_git import Identity, Vault

size, samples = int(sys.argv[1]), int(sys.argv[2])
who = Identity(agent_id="bench", session_id="ab")
root = Path(tempfile.mkdtemp()) / "v"
vault = Vault.init(root, identity=who, embedding_model="none")
paths = []
for n in range(size):
    paths.append(vault.ingest(type="decision", title=f"Seed {n}", body=f"Seed {n}.",
                              identity=who).path)
ingest, get = [], []
for n in range(samples):
    t = time.perf_counter()
    vault.ingest(type="context", title=f"Sample {n}", body=f"Sample body {n}.", identity=who)
    ingest.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    vault.get(paths[n % len(paths)])
    get.append((time.perf_counter() - t) * 1000)
print(json.dumps({"ingest_ms": statistics.median(ingest), "get_ms": statistics.median(get)}))
"""


def measure(arms: dict[str, Path], size: int, samples: int) -> Any:
    def one(name: str, _round: int) -> dict[str, Any]:
        env = {**os.environ, "PYTHONPATH": str(arms[name]), "CLAWQL_EMBEDDING_MODEL": "none"}
        with tempfile.TemporaryDirectory() as home:
            env["HOME"] = home
            out = subprocess.run(
                [sys.executable, "-c", ROUND, str(size), str(samples)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        return dict(json.loads(out.splitlines()[-1]))

    return one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="an older checkout (its root folder)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--size", type=int, default=200, help="entries in the vault")
    parser.add_argument("--samples", type=int, default=60, help="ingests and gets per round")
    args = parser.parse_args()
    arms = arms_of(args.baseline)
    report = alternate(
        arms,
        args.rounds,
        measure(arms, args.size, args.samples),
        lambda line: print(line, file=sys.stderr),
    )
    labels = {"ingest_ms": "ingest ms", "get_ms": "get ms"}
    for line in ratio_table(report, labels, "median of rounds", 18, 2):
        print(line)
    print(f"load (1 min): {load_range(report)}")


if __name__ == "__main__":
    main()
