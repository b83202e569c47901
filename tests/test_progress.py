"""Progress of long steps: the library reports growing counts against real totals, phase by
phase; the CLI draws them on a terminal's stderr (counts, elapsed, ETA) and is quiet under
--json or when stderr is not a terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.cli.output import progress
from clawql_git.index.store import EMBEDDING, READING, WRITING

from .conftest import ADR_SAMPLE, AGENT, ROOT

QUERY = "why did we stop queueing webhooks in redis?"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SAMPLE_ENTRIES = 40  # the sample vault seeds this many entries


class Recorder:
    """A progress callback that keeps every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, done: int, total: int, what: str) -> None:
        self.calls.append((done, total, what))

    def phases(self) -> list[str]:
        return list(dict.fromkeys(what for _, _, what in self.calls))

    def of(self, what: str) -> list[tuple[int, int]]:
        return [(done, total) for done, total, w in self.calls if w == what]


def assert_grows_to_its_total(steps: list[tuple[int, int]], total: int) -> None:
    """Starts at 0 with the real total known, never goes back, ends at the total."""
    assert steps[0] == (0, total)
    assert {t for _, t in steps} == {total}
    counts = [done for done, _ in steps]
    assert counts == sorted(counts) and counts[-1] == total


def terminal() -> tuple[Console, StringIO]:
    out = StringIO()
    return Console(force_terminal=True, file=out, width=120), out


def text(out: StringIO) -> str:
    return ANSI.sub("", out.getvalue())


# -- the library reports ----------------------------------------------------------------


def test_an_index_build_reports_each_phase_with_its_real_total(demo: Path) -> None:
    with Vault.open(demo) as vault:
        record = Recorder()
        vault.rebuild_index(progress=record)
        entries = len(vault.entries())
        chunks = vault.recall_service().index.db().open_table("chunks").count_rows()
    assert record.phases() == [READING, EMBEDDING, WRITING]
    assert_grows_to_its_total(record.of(READING), entries)
    assert_grows_to_its_total(record.of(EMBEDDING), chunks)
    assert_grows_to_its_total(record.of(WRITING), 9)
    assert entries == SAMPLE_ENTRIES and chunks > entries
    assert len(record.of(EMBEDDING)) >= 3  # steps of 32 chunks, not one jump at the end


def test_the_first_recall_reports_its_index_build_and_the_next_is_silent(demo: Path) -> None:
    with Vault.open(demo) as vault:
        shutil.rmtree(vault.store.state_dir / "index", ignore_errors=True)
        first, second = Recorder(), Recorder()
        assert vault.recall(QUERY, identity=AGENT, progress=first).hits
        vault.recall(QUERY, identity=AGENT, progress=second, use_cache=False)
    assert first.phases() == [READING, EMBEDDING, WRITING]
    assert_grows_to_its_total(first.of(READING), SAMPLE_ENTRIES)
    assert second.calls == []


@pytest.mark.parametrize("batch", [False, True])
def test_an_import_reports_every_file_against_the_total_from_the_start(
    vault: Vault, batch: bool
) -> None:
    source = ADR_SAMPLE / "JabRef__jabref"
    files = len(list(source.rglob("*.md")))
    record = Recorder()
    vault.import_folder(source, type="decision", batch=batch, identity=AGENT, progress=record)
    steps = [(done, total) for done, total, _ in record.calls]
    assert_grows_to_its_total(steps, files)
    assert len(steps) == files + 1  # (0, n), then one report per file
    assert all(what.endswith(".md") for _, _, what in record.calls[1:-1])


# -- the CLI renders ----------------------------------------------------------------------


def test_phases_are_rows_with_their_own_label_count_and_eta() -> None:
    console, out = terminal()
    with progress("indexing", phases=True, console=console) as bar:
        bar(0, 39, READING)
        bar(39, 39, READING)
        bar(0, 86, EMBEDDING)
        bar(32, 86, EMBEDDING)
        bar(86, 86, EMBEDDING)
    drawn = text(out)
    assert "indexing: reading entries" in drawn and "39/39" in drawn
    assert "indexing: embedding chunks" in drawn and "86/86" in drawn
    assert "eta" in drawn and "0:00:00" in drawn  # elapsed, and a time left once it is known
    assert "0/?" not in drawn  # the total is there from the first report


def test_one_phase_names_the_item_and_counts_bytes_when_asked() -> None:
    console, out = terminal()
    with progress("importing", console=console) as bar:
        bar(0, 3, "")
        bar(1, 3, "decisions/2026-07/" + "a-very-long-title-" * 4 + "end.md")
    drawn = text(out)
    assert "importing" in drawn and "1/3" in drawn and "end.md" in drawn
    console, out = terminal()
    with progress("pushing", unit="bytes", console=console) as bar:
        bar(2_000_000, 4_000_000, "bundles/1.bundle")
    assert "2.0/4.0 MB" in text(out)


def test_nothing_is_drawn_when_disabled_or_before_the_first_report() -> None:
    console, out = terminal()
    with progress("indexing", enabled=False, console=console) as bar:
        bar(1, 2, READING)
    with progress("indexing", console=console):
        pass  # an index already current: no report, no bar
    assert out.getvalue() == ""


def test_cli_stderr_that_is_not_a_terminal_gets_no_bar(demo: Path) -> None:
    result = CliRunner().invoke(
        cli, ["memory", "--vault", str(demo), "index", "rebuild"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "indexing" not in result.stderr and "eta" not in result.stderr


def run_on_a_terminal(args: list[str], cwd: Path) -> tuple[str, str]:
    """Run the real CLI with stderr on a pseudo-terminal: (stdout, what the terminal showed)."""
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "clawql_git", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=child,
        env=env,
    )
    os.close(child)
    shown = b""
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            break
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        shown += data
    out = proc.stdout.read().decode() if proc.stdout else ""
    assert proc.wait(timeout=120) == 0, shown.decode(errors="replace")
    os.close(main)
    return out, ANSI.sub("", shown.decode(errors="replace"))


def test_the_first_recall_on_a_terminal_shows_each_phase_then_only_the_answer(
    demo: Path,
) -> None:
    shutil.rmtree(demo / ".git" / "clawql" / "index", ignore_errors=True)
    args = ["memory", "--vault", str(demo), "recall", QUERY, "--limit", "3"]
    out, shown = run_on_a_terminal(args, demo.parent)
    for phase in (READING, EMBEDDING, WRITING):
        assert f"indexing: {phase}" in shown
    assert f"{SAMPLE_ENTRIES}/{SAMPLE_ENTRIES}" in shown and "eta" in shown
    assert "index rebuilt" in shown and "3 hit(s)" in out
    shutil.rmtree(demo / ".git" / "clawql" / "index")
    out, shown = run_on_a_terminal([*args, "--json"], demo.parent)
    assert "indexing" not in shown and '"hits"' in out


def test_clone_and_pull_report_their_git_steps_then_the_index(tmp_path: Path) -> None:
    from clawql_git.team.sharing import clone, pull, push

    origin = Vault.init(tmp_path / "origin", identity=AGENT, embedding_model="none")
    origin.ingest(type="decision", title="Kafka", body="Consumer groups.", identity=AGENT)
    origin.close()
    bare = tmp_path / "team.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(origin.root), str(bare)], check=True)
    cloned = Recorder()
    a = clone(str(bare), tmp_path / "a", progress=cloned, embedding_model="none")
    assert cloned.of(f"cloning {bare}") == [(0, 1), (1, 1)]
    b = clone(str(bare), tmp_path / "b", embedding_model="none")
    a.ingest(type="pattern", title="Retry", body="Jitter.", identity=AGENT)
    push(a)
    pulled = Recorder()
    pull(b, progress=pulled)
    assert pulled.phases()[:2] == ["fetching origin", "merging 1 commit(s)"]
    assert pulled.of("fetching origin") == [(0, 1), (1, 1)]
    assert len(pulled.phases()) > 2  # then the index catches up, phase by phase
