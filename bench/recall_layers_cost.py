"""What the one-list recall adds to a recall, measured inside the same recalls: the main
thread's CPU time in ``weigh_standing`` (archive/verdict/confidence), ``index_summary`` (the
catalog survey at a glance) and ``with_layers`` (the external merge; no layer configured) as a
share of the whole recall. A share, not a timing: on a shared machine both sides of it see
the same noise.

Run: ``.venv/bin/python bench/recall_layers_cost.py --vault DIR [--queries 100]`` with a vault
built by ``mcp_speed.py --keep DIR`` (it is copied; the copy takes the recalls)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def timed(spent: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - start

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", required=True, help="a vault built by mcp_speed.py --keep")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    from corpus import CORPUS, load_corpus
    from mcp_speed import make_queries

    import clawql_git.recall.pipeline as pipeline
    import clawql_git.recall.service as service
    from clawql_git import Identity, Vault
    from clawql_git.index.embedders import HashEmbedder

    spent = {"weigh_standing": 0.0, "index_summary": 0.0, "with_layers": 0.0}
    for module, name in ((pipeline, "weigh_standing"), (pipeline, "index_summary")):
        setattr(module, name, timed(spent, name, getattr(module, name)))
    service.with_layers = timed(spent, "with_layers", service.with_layers)  # type: ignore[assignment]
    copy = Path(tempfile.mkdtemp()) / "vault"
    shutil.copytree(args.vault, copy, symlinks=True)
    vault = Vault.open(copy, embedder=HashEmbedder())
    vault.update_index()
    queries = make_queries(load_corpus(CORPUS), args.queries + 5)
    who = Identity("bench", "layers-cost")
    for q in queries[:5]:
        vault.recall(q, identity=who, use_cache=False)
    spent.update(dict.fromkeys(spent, 0.0))
    start = time.thread_time()
    for q in queries[5:]:
        vault.recall(q, identity=who, use_cache=False)
    total = time.thread_time() - start
    n = len(queries) - 5
    size = len(vault.recall_service().index.loaded().entries)
    print(f"{n} recalls, {size} entries: {total * 1000 / n:.2f} ms main-thread CPU a recall")
    for name, seconds in spent.items():
        print(f"  {name:<16} {seconds * 1000 / n:7.3f} ms  {100 * seconds / total:5.2f}%")
    shutil.rmtree(copy.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
