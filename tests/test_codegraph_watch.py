"""``watch`` with a real watcher (inotify through watchfiles) and real file edits: edits become
queryable, edges into the edited file are re-resolved, and each update is recorded as
CODEGRAPH_INDEX_UPDATE on the vault's audit chain. No timing assertions: every check polls
with a generous timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clawql_git import Vault
from clawql_git.audit.chain import AuditChain
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.indexer import IndexReport
from clawql_git.vault.code_changes import record_index_update

from .conftest import fsck_ok, git
from .test_codegraph import make_repo

TIMEOUT = 10.0


def eventually(check: Callable[[], bool], touch: Callable[[], None] | None = None) -> None:
    """Poll ``check`` until it holds; ``touch`` re-applies the edit now and then, in case the
    watcher was not listening yet when it was first made."""
    deadline = time.monotonic() + TIMEOUT
    last_touch = time.monotonic()
    while time.monotonic() < deadline:
        if check():
            return
        if touch is not None and time.monotonic() - last_touch > 2:
            touch()
            last_touch = time.monotonic()
        time.sleep(0.05)
    raise AssertionError("the graph did not catch up within the timeout")


def resolution(graph: CodeGraph, callee: str) -> str:
    rows = graph.store.query(
        "SELECT resolution FROM calls WHERE path='app/core.py' AND callee=?", (callee,)
    )
    return str(rows[0][0]) if rows else ""


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, list[IndexReport], Callable[..., None]]]:
    """A repository watched by a watcher thread; yields (root, reports, set_hook)."""
    root = make_repo(tmp_path)
    CodeGraph.open(root).index()
    reports: list[IndexReport] = []
    hooks: list[Callable[[IndexReport], None]] = []

    def on_update(report: IndexReport) -> None:
        reports.append(report)
        for hook in hooks:
            hook(report)

    stop = threading.Event()
    graph = CodeGraph.open(root)
    thread = threading.Thread(target=graph.watch, args=(on_update, stop), daemon=True)
    thread.start()
    yield root, reports, hooks.append
    stop.set()
    thread.join(timeout=TIMEOUT)
    assert not thread.is_alive()


def test_an_edit_becomes_queryable(
    watched: tuple[Path, list[IndexReport], Callable[..., None]],
) -> None:
    root, reports, _ = watched
    reader = CodeGraph.open(root)
    target = root / "app" / "db.py"
    new = target.read_text() + "\n\ndef disconnect() -> None:\n    pass\n"

    def edit() -> None:
        target.write_text(new)

    edit()
    eventually(lambda: reader.find_symbol("disconnect").extra["match"] == "exact", edit)
    assert reader.find_symbol("disconnect").items[0]["file"] == "app/db.py"
    eventually(lambda: any("app/db.py" in r.changed for r in reports))  # the hook runs after


def test_edges_into_the_changed_file_are_re_resolved(
    watched: tuple[Path, list[IndexReport], Callable[..., None]],
) -> None:
    root, _, _ = watched
    reader = CodeGraph.open(root)
    util = root / "app" / "util.py"
    original = util.read_text()
    assert resolution(reader, "util.helper") == "exact"
    renamed = original.replace("def helper()", "def renamed_helper()")
    util.write_text(renamed)
    eventually(
        lambda: resolution(reader, "util.helper") == "unresolved", lambda: util.write_text(renamed)
    )
    util.write_text(original)
    eventually(
        lambda: resolution(reader, "util.helper") == "exact", lambda: util.write_text(original)
    )


def test_ignored_and_vendored_files_are_not_indexed(
    watched: tuple[Path, list[IndexReport], Callable[..., None]],
) -> None:
    root, reports, _ = watched
    reader = CodeGraph.open(root)
    (root / "ignored.py").write_text("def still_ignored():\n    pass\n")
    (root / "vendor" / "lib" / "x.py").write_text("def still_vendored():\n    pass\n")
    marker = root / "app" / "marker.py"
    marker.write_text("def marker():\n    pass\n")
    eventually(
        lambda: reader.find_symbol("marker").extra["match"] == "exact",
        lambda: marker.write_text("def marker():\n    pass\n"),
    )
    assert reader.find_symbol("still_ignored").total == 0
    assert reader.find_symbol("still_vendored").total == 0
    assert all("ignored.py" not in r.changed for r in reports)


def test_updates_are_recorded_on_the_audit_chain(
    watched: tuple[Path, list[IndexReport], Callable[..., None]], vault: Vault
) -> None:
    root, _, add_hook = watched
    events: list[str] = []
    add_hook(lambda report: events.append(record_index_update(vault, root, report, "watcher")))
    target = root / "main.py"
    new = target.read_text() + "\n\ndef later():\n    pass\n"
    target.write_text(new)
    eventually(lambda: bool(events), lambda: target.write_text(new))
    chain = [e for e in AuditChain(vault.store).events() if e.event == "CODEGRAPH_INDEX_UPDATE"]
    assert chain and chain[0].agent == "watcher"
    trailers = git(vault.root, "log", "-1", "--format=%(trailers)", "refs/clawql/audit").stdout
    assert "Codegraph-Files: 1" in trailers and "Codegraph-Path: main.py" in trailers
    assert f"Codegraph-Repo: {root}" in trailers
    fsck_ok(vault.root)


def test_cli_watch_process_with_a_vault(tmp_path: Path, vault: Vault) -> None:
    """``clawql code watch --json --vault V`` as a real process: an edit produces a JSON line
    naming the file and the audit event it recorded."""
    root = make_repo(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clawql_git",
            "code",
            "watch",
            str(root),
            "--json",
            "--vault",
            str(vault.root),
            "--agent",
            "cli-watcher",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None and proc.stdout is not None
        assert "watching" in proc.stderr.readline()  # indexed, about to listen
        target = root / "app" / "db.py"
        new = target.read_text() + "\n\ndef from_cli() -> None:\n    pass\n"
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)
        reader.start()
        target.write_text(new)
        eventually(lambda: bool(lines), lambda: target.write_text(new))
        record = json.loads(lines[0])
        assert record["changed"] == ["app/db.py"] and record["audit_event"]
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)
    events = [e for e in AuditChain(vault.store).events() if e.event == "CODEGRAPH_INDEX_UPDATE"]
    assert {e.agent for e in events} == {"cli-watcher"}


def test_cli_index_with_a_vault_records_the_update(tmp_path: Path, vault: Vault) -> None:
    from click.testing import CliRunner

    from clawql_git.cli import cli

    root = make_repo(tmp_path)
    done = CliRunner().invoke(
        cli,
        ["code", "index", str(root), "--vault", str(vault.root), "--agent", "indexer", "--json"],
    )
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["audit_event"]
    events = [e for e in AuditChain(vault.store).events() if e.event == "CODEGRAPH_INDEX_UPDATE"]
    assert [e.sha for e in events] == [record["audit_event"]] and events[0].agent == "indexer"
    trailers = git(vault.root, "log", "-1", "--format=%(trailers)", "refs/clawql/audit").stdout
    assert "Codegraph-Files: 6" in trailers
    done = CliRunner().invoke(
        cli, ["code", "index", str(root), "--vault", str(tmp_path / "not-a-vault")]
    )
    assert done.exit_code == 3 and "not a clawql vault" in done.output
