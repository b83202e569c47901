"""Concurrent writers on one vault, as real OS processes: the writer lock serialises them into a
linear history, slug collisions are resolved under the lock, and catalogs stay consistent."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from clawql_git import Vault

from .conftest import AGENT, blobs_at, fsck_ok, git

WORKERS = 4
PER_WORKER = 50
CLI_PER_WORKER = 10
TYPES = ("context", "decision", "error")
ENTRY_FILE = re.compile(r"^(context|decisions|errors)/\d{4}-\d{2}/[^/]+\.md$")
CLAWQL = Path(sys.executable).with_name("clawql")

# Every worker opens the vault, reports "ready", waits for the start file, then ingests. Even
# seqs use a title shared by all workers at the same moment, so slugs collide under contention.
WORKER = r"""
import json, sys, time
from pathlib import Path
from clawql_git import Identity, Vault

vault_path, worker, count, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
types = ("context", "decision", "error")
vault = Vault.open(vault_path)
ident = Identity(agent_id=f"worker-{worker}", session_id=f"session-{worker}")
print("ready", flush=True)
while not Path(start).exists():
    time.sleep(0.001)
done = []
for seq in range(count):
    title = f"Shared topic {seq:02d}" if seq % 2 == 0 else f"Worker {worker} item {seq:02d}"
    body = f"marker worker={worker} seq={seq}\n"
    result = vault.ingest(type=types[seq % 3], title=title, body=body, identity=ident)
    done.append({"worker": worker, "seq": seq, "title": title, "path": result.path,
                 "sha": result.sha, "worm_ref": result.worm_ref})
print(json.dumps(done), flush=True)
"""


def head_sha(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


def assert_linear_history(root: Path, base: str, new_commits: int) -> list[str]:
    """Exactly ``new_commits`` commits on top of ``base``, no merges, one parent at most each."""
    assert git(root, "merge-base", "--is-ancestor", base, "HEAD", check=False).returncode == 0
    assert int(git(root, "rev-list", "--count", f"{base}..HEAD").stdout) == new_commits
    assert int(git(root, "rev-list", "--count", "--first-parent", f"{base}..HEAD").stdout) == (
        new_commits
    )
    assert git(root, "rev-list", "--merges", "HEAD").stdout == ""
    for line in git(root, "rev-list", "--parents", "HEAD").stdout.splitlines():
        assert len(line.split()) <= 2, f"commit with more than one parent: {line}"
    return git(root, "rev-list", f"{base}..HEAD").stdout.split()


def entry_files(root: Path, rev: str = "HEAD") -> set[str]:
    names = git(root, "ls-tree", "-r", "--name-only", rev).stdout.splitlines()
    return {n for n in names if ENTRY_FILE.match(n) and not n.endswith("/index.md")}


def entry_path_trailer(root: Path, sha: str) -> list[str]:
    msg = git(root, "log", "-1", "--format=%(trailers:key=Entry-Path,valueonly)", sha).stdout
    return [line for line in msg.splitlines() if line]


def assert_consistent_vault(root: Path) -> None:
    """Catalogs match a fresh regeneration (library and CLI), and git finds nothing wrong."""
    vault = Vault.open(root)
    assert vault.catalog_drift() == []
    check = subprocess.run(
        [str(CLAWQL), "memory", "--vault", str(root), "catalog", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    fsck_ok(root)
    vault.close()
    assert git(root, "status", "--porcelain").stdout == ""


def start_workers(root: Path, start: Path) -> list[subprocess.Popen[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(w), str(PER_WORKER), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    for proc in procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == "ready\n", line + (proc.stderr.read() if proc.stderr else "")
    return procs


def collect(procs: list[subprocess.Popen[str]]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        results += json.loads(out)
    return results


def test_four_processes_ingest_at_once(tmp_path: Path) -> None:
    root = Vault.init(tmp_path / "vault", identity=AGENT).root
    base = head_sha(root)
    start = tmp_path / "start"
    procs = start_workers(root, start)
    try:
        began = time.monotonic()
        start.touch()
        results = collect(procs)
        elapsed = time.monotonic() - began
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()

    total = WORKERS * PER_WORKER
    assert len(results) == total
    history = assert_linear_history(root, base, total)

    # Every ingest got its own commit and its own path: no write was lost or overwritten.
    shas = [r["sha"] for r in results]
    paths = [r["path"] for r in results]
    assert sorted(shas) == sorted(history)
    assert len(set(paths)) == total
    assert entry_files(root) == set(paths)
    assert all(r["worm_ref"] == f"git:{r['sha']}" for r in results)
    assert all(blobs_at(root, [(r["sha"], r["path"]) for r in results]))
    for r in results:
        assert entry_path_trailer(root, r["sha"]) == [r["path"]], r

    # Each shared title was written by every worker: one base slug and suffixes -2.. -N.
    for seq in range(0, PER_WORKER, 2):
        stems = sorted(Path(r["path"]).stem for r in results if r["seq"] == seq)
        base_slug = f"shared-topic-{seq:02d}"
        assert stems == sorted([base_slug] + [f"{base_slug}-{n}" for n in range(2, WORKERS + 1)])

    # The file at each returned path holds what that worker wrote there.
    reader = Vault.open(root)
    for r in results:
        entry = reader.get(r["path"]).entry
        assert entry.title == r["title"], r["path"]
        assert entry.body.strip() == f"marker worker={r['worker']} seq={r['seq']}", r["path"]

    # The workers really overlapped: the history interleaves them (not one block per worker).
    authors = git(root, "log", "--format=%an", f"{base}..HEAD").stdout.split()
    switches = sum(a != b for a, b in itertools.pairwise(authors))
    assert switches > WORKERS, (switches, elapsed)
    assert_consistent_vault(root)


def cli_loop(root: Path, worker: int, out: list[dict[str, Any]], errors: list[str]) -> None:
    for seq in range(CLI_PER_WORKER):
        title = f"Shared cli note {seq}" if seq % 2 == 0 else f"Cli worker {worker} note {seq}"
        body = f"cli marker worker={worker} seq={seq}"
        fields = ["--type", TYPES[seq % 3], "--title", title, "--body", body]
        command = [str(CLAWQL), "memory", "--vault", str(root), "ingest", "--json", *fields]
        proc = subprocess.run(
            [*command, "--agent", f"cli-{worker}"], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            errors.append(f"worker {worker} seq {seq}: exit {proc.returncode}: {proc.stderr}")
            continue
        record = json.loads(proc.stdout)
        out.append({"worker": worker, "seq": seq, "title": title, **record})


def test_four_cli_loops_ingest_at_once(tmp_path: Path) -> None:
    root = Vault.init(tmp_path / "vault", identity=AGENT).root
    base = head_sha(root)
    results: list[dict[str, Any]] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=cli_loop, args=(root, w, results, errors)) for w in range(WORKERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert not any(t.is_alive() for t in threads)
    assert errors == []

    total = WORKERS * CLI_PER_WORKER
    assert len(results) == total
    history = assert_linear_history(root, base, total)
    assert sorted(r["commit"] for r in results) == sorted(history)
    assert len({r["path"] for r in results}) == total
    assert entry_files(root) == {r["path"] for r in results}
    assert all(blobs_at(root, [(r["commit"], r["path"]) for r in results]))
    for seq in range(0, CLI_PER_WORKER, 2):
        stems = sorted(Path(r["path"]).stem for r in results if r["seq"] == seq)
        base_slug = f"shared-cli-note-{seq}"
        assert stems == sorted([base_slug] + [f"{base_slug}-{n}" for n in range(2, WORKERS + 1)])
    # The CLI keeps the git index in step after every write: clean even before any close().
    assert git(root, "status", "--porcelain").stdout == ""
    assert_consistent_vault(root)


# Processes that open a fresh recall cache at the same instant: switching its file to WAL needs it
# to themselves, and SQLite refuses that at once ("database is locked", no busy wait) to a process
# that races another for it. Each opener must wait its turn, not fail its recall. (Forked openers
# released by one barrier: the old opener failed 3 of 240 opens this way.)
CACHE_OPENERS = r"""
import multiprocessing, os, sys
from pathlib import Path
from clawql_git.recall.cache import RecallCache

def open_cache(path, barrier):
    barrier.wait()
    cache = RecallCache(Path(path))
    row = (str(os.getpid()), "c", "{}")
    cache.db.execute("INSERT INTO answers (key, commit_sha, result) VALUES (?, ?, ?)", row)
    cache.db.commit()

if __name__ == "__main__":
    fork = multiprocessing.get_context("fork")
    for trial in range(int(sys.argv[2])):
        path, barrier = f"{sys.argv[1]}/cache-{trial}.sqlite", fork.Barrier(6)
        procs = [fork.Process(target=open_cache, args=(path, barrier)) for _ in range(6)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        codes = [proc.exitcode for proc in procs]
        rows = RecallCache(Path(path)).db.execute("SELECT count(*) FROM answers").fetchone()[0]
        print(trial, codes, rows, flush=True)
"""


def test_processes_opening_a_fresh_recall_cache_at_once_all_succeed(tmp_path: Path) -> None:
    args = [sys.executable, "-c", CACHE_OPENERS, str(tmp_path), "60"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    trials = [line.split(" ", 1)[1] for line in run.stdout.splitlines()]
    failed = [t for t in trials if t != "[0, 0, 0, 0, 0, 0] 6"]
    assert len(trials) == 60 and not failed, (failed, run.stderr[-2000:])
