"""How much review and workspaces cost: an agent's ingest to main vs to a proposal branch, and
review list / show / accept on a vault of N entries; one vault's recall vs a workspace of three.

    .venv/bin/python bench/review_speed.py                 # 1,000 entries, 10 proposed
    .venv/bin/python bench/review_speed.py --entries 5000 --proposed 20 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import CORPUS, describe, load_corpus, truncate_words

from clawql_git import Identity, Vault
from clawql_git.model.drafts import draft_from_fields
from clawql_git.review.merge import accept
from clawql_git.review.proposals import list_proposals, set_review_policy
from clawql_git.review.report import show
from clawql_git.workspace.mounts import Workspace

HUMAN = Identity(agent_id="alice", session_id="desk")
TYPES = ("decision", "context", "error", "pattern", "task_result")


def seeded(root: Path, entries: int, offset: int = 0) -> Vault:
    docs = load_corpus(CORPUS)
    vault = Vault.init(root, identity=HUMAN, eager_index=False)
    drafts = []
    for n in range(entries):
        doc = docs[(n + offset) % len(docs)]
        body = truncate_words(doc.body, 150)
        title = f"{doc.title} {n + offset}"
        fields = (TYPES[n % len(TYPES)], title, body, describe(body), ["bench"], {}, HUMAN, None)
        drafts.append(draft_from_fields(vault.settings, *fields))
    for start in range(0, len(drafts), 2000):
        vault.ingest_many(drafts[start : start + 2000], HUMAN, batch=True)
    vault.close()
    vault.update_index()
    return vault


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def ingest_times(vault: Vault, count: int, agent: Identity, tag: str) -> list[float]:
    out = []
    for n in range(count):
        body = f"Proposed finding {n} about caching and retries ({tag})."
        seconds, _ = timed(
            lambda n=n, body=body: vault.ingest(
                type="decision", title=f"{tag} finding {n}", body=body, identity=agent
            )
        )
        out.append(seconds)
    return out


def run(entries: int, proposed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        print(f"seeding {entries} entries", file=sys.stderr)
        vault = seeded(base / "team", entries)
        main_ingest = ingest_times(vault, proposed, Identity("bot-a", "s0"), "main")
        set_review_policy(vault, True, "alice")
        bot = Identity("claude-code", "s1")
        proposal_ingest = ingest_times(vault, proposed, bot, "proposal")
        branch = "proposals/claude-code/s1"
        t_list, _ = timed(lambda: list_proposals(vault.store))
        t_show_fast, _ = timed(lambda: show(vault, branch, recall_impact=False))
        t_show, _ = timed(lambda: show(vault, branch))
        t_accept, outcome = timed(lambda: accept(vault, branch, "alice"))
        assert not vault.catalog_drift()
        print("seeding two more vaults for the workspace", file=sys.stderr)
        others = [seeded(base / name, entries // 2, k * 7) for k, name in enumerate(("me", "org"))]
        os.environ["CLAWQL_WORKSPACE"] = str(base / "ws.toml")
        ws = Workspace.load()
        for name, v, scope in (("team", vault, "team"), ("me", others[0], "personal"),
                               ("org", others[1], "org")):  # fmt: skip
            ws.add(name, str(v.root), scope)
        query = "caching strategy and retries"
        vault.recall(query, use_cache=False)
        ws.recall(query, use_cache=False)  # warm every index
        one = [timed(lambda: vault.recall(query, use_cache=False))[0] for _ in range(5)]
        three = [timed(lambda: ws.recall(query, use_cache=False))[0] for _ in range(5)]
    med = statistics.median
    return {
        "entries": entries,
        "proposed": proposed,
        "ingest_main_ms": round(med(main_ingest) * 1000, 1),
        "ingest_proposal_ms": round(med(proposal_ingest) * 1000, 1),
        "ingest_ratio": round(med(proposal_ingest) / med(main_ingest), 2),
        "review_list_ms": round(t_list * 1000, 1),
        "review_show_no_recall_ms": round(t_show_fast * 1000, 1),
        "review_show_ms": round(t_show * 1000, 1),
        "review_accept_ms": round(t_accept * 1000, 1),
        "accepted_paths": len(outcome.paths),
        "recall_one_vault_ms": round(med(one) * 1000, 1),
        "recall_workspace_3_vaults_ms": round(med(three) * 1000, 1),
        "recall_ratio": round(med(three) / med(one), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--proposed", type=int, default=10)
    parser.add_argument("--embedder", default="hash", help="CLAWQL_EMBEDDING_MODEL (default hash)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ["CLAWQL_EMBEDDING_MODEL"] = args.embedder
    result = run(args.entries, args.proposed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
