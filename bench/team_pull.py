"""How long does a pull with 1,000 incoming entries take, index update included?

One clone ingests N entries (one commit each, ADR bodies) and pushes; then two other clones
pull them, side by side in one run: one with a local entry of its own (a real merge: catalogs
merged by the driver, then regenerated) and one without (a fast-forward). Each pull is timed as
fetch + merge, catalog regeneration, and index catch-up.

    .venv/bin/python bench/team_pull.py [--entries 1000] [--embedder hash] [--http] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import CORPUS, load_corpus, truncate_words  # noqa: E402
from clawql_git import Identity, Vault  # noqa: E402
from clawql_git.team.sharing import clone, pull, push  # noqa: E402

WRITER = Identity(agent_id="bench-writer", session_id="s1")


def _remote(tmp: Path) -> Path:
    origin = Vault.init(tmp / "origin", identity=WRITER)
    origin.ingest(type="decision", title="Seed", body="The first entry.", identity=WRITER)
    origin.close()
    bare = tmp / "remotes" / "team.git"
    bare.parent.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(origin.root), str(bare)], check=True)
    return bare


def _write(writer: Vault, count: int) -> float:
    docs = load_corpus(CORPUS)
    types = ("decision", "context", "pattern", "error")
    start = time.perf_counter()
    for n in range(count):
        doc = docs[n % len(docs)]
        writer.ingest(
            type=types[n % len(types)],
            title=f"{doc.title} ({n})",
            body=truncate_words(doc.body, 200),
            identity=WRITER,
        )
    return time.perf_counter() - start


def _timed_pull(vault: Vault) -> dict[str, Any]:
    start = time.perf_counter()
    result = pull(vault)
    total = time.perf_counter() - start
    index = float(result.indexed.get("seconds", 0.0))
    return {
        "mode": result.mode,
        "incoming_commits": result.incoming,
        "total_s": round(total, 2),
        "index_s": round(index, 2),
        "git_and_catalogs_s": round(total - index, 2),
        "catalog_fix": bool(result.catalog_fix),
        "index_changed": result.indexed.get("changed"),
    }


def measure(entries: int, embedder: str, url_of: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="clawql-team-pull-") as tmp_name:
        tmp = Path(tmp_name)
        bare = _remote(tmp)
        url = url_of(bare)
        flags = {"embedding_model": embedder}
        writer = clone(url, tmp / "writer", eager_index=False, **flags)
        merging = clone(url, tmp / "merging", **flags)
        ff = clone(url, tmp / "ff", **flags)
        merging.ingest(type="context", title="A local note", body="Mine.", identity=WRITER)
        write_s = _write(writer, entries)
        start = time.perf_counter()
        push(writer)
        push_s = time.perf_counter() - start
        figures = {"merge": _timed_pull(merging), "fast_forward": _timed_pull(ff)}
        assert merging.catalog_drift() == [] and ff.catalog_drift() == []
    return {
        "entries": entries,
        "embedder": embedder,
        "transport": "http" if url.startswith("http") else "path",
        "ingest_s": round(write_s, 2),
        "push_s": round(push_s, 2),
        **figures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="pull with N incoming entries")
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--embedder", default="hash", help="hash (default), minilm, none")
    parser.add_argument("--http", action="store_true", help="over git http-backend on 127.0.0.1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    os.environ.setdefault("CLAWQL_EMBEDDING_MODEL", args.embedder)
    if args.http:
        from tests.gitserver import GitHttpServer

        with tempfile.TemporaryDirectory(prefix="clawql-team-http-") as served:
            # the remote is made under the served folder's sibling; serve its parent
            def url_of(bare: Path) -> str:
                link = Path(served) / bare.name
                link.symlink_to(bare)
                return server.url(bare.name)

            with GitHttpServer(Path(served)) as server:
                report = measure(args.entries, args.embedder, url_of)
    else:
        report = measure(args.entries, args.embedder, str)
    report["load_average"] = [round(load_start, 2), round(os.getloadavg()[0], 2)]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"pull of {report['entries']} incoming entries ({report['transport']}, embedder "
        f"{report['embedder']}); writer ingest {report['ingest_s']} s, push {report['push_s']} s; "
        f"load average {report['load_average'][0]} -> {report['load_average'][1]}"
    )
    for name in ("merge", "fast_forward"):
        f = report[name]
        print(
            f"  {name:<13} total {f['total_s']:>6.2f} s = git + catalogs "
            f"{f['git_and_catalogs_s']:>6.2f} s + index {f['index_s']:>6.2f} s "
            f"({f['incoming_commits']} commits, {f['index_changed']} index rows changed)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
