"""The log and the catalogs are pure functions of history and tree: incremental updates equal a
full regeneration across days, months, roll-overs and every kind of write. A log line carries
the session, the entry's description and the worm_ref (pending in the commit that writes it,
stamped by the next one); catalog lines are ``[[path|Title]] - description``. Logs and
catalogs of the earlier Markdown-link format are still read."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from clawql_git import Identity, Vault
from clawql_git.catalog.render import (
    LOG,
    PENDING,
    SUMMARY_LIMIT,
    LogEvent,
    entry_line,
    full_log,
    log_changes,
    parse_entry_lines,
    parse_log,
    parse_log_line,
)
from clawql_git.cli import cli
from clawql_git.model.entry import Entry
from clawql_git.review.merge import accept
from clawql_git.review.proposals import list_proposals, set_review_policy
from clawql_git.sync.remotes import RemoteConfig, save_config

from .conftest import AGENT, git

START = datetime(2026, 1, 28, 9, 0, tzinfo=UTC)


def sha(n: int) -> str:
    return f"{n:040x}"


def build(gaps: list[tuple[int, int]], page: int) -> tuple[dict[str, str], list[LogEvent]]:
    """Apply events one commit at a time (each commit 1..n events), like ingests do: a commit's
    lines are pending, and the next commit stamps them with the previous commit's sha."""
    files: dict[str, str] = {}
    events: list[LogEvent] = []
    when = START
    for n, (minutes, size) in enumerate(gaps):
        when += timedelta(minutes=minutes)
        batch = [
            LogEvent(when, "MEMORY_INGEST", f"decisions/x/e{n}-{k}.md", "decision", "a", "")
            for k in range(size)
        ]
        batch = [
            replace(e, session="s1", summary=f"why {e.path}", title=e.path[12:]) for e in batch
        ]
        newest_first = [replace(e, worm_ref=PENDING) for e in reversed(batch)]
        previous = sha(n - 1) if n else ""
        changes = log_changes(
            files.get(LOG, ""), lambda m: files.get(f"log/{m}.md", ""), newest_first, page, previous
        )
        files.update(changes)
        events += [replace(e, worm_ref=f"git:{sha(n)}") for e in batch]
    newest = f"git:{sha(len(gaps) - 1)}"  # the newest commit's lines are still pending
    events = [replace(e, worm_ref=PENDING) if e.worm_ref == newest else e for e in events]
    return files, events


@settings(max_examples=150, deadline=None)
@given(
    gaps=st.lists(
        st.tuples(
            st.sampled_from([0, 1, 30, 60 * 20, 60 * 24 * 3, 60 * 24 * 20]), st.integers(1, 7)
        ),
        min_size=1,
        max_size=60,
    ),
    page=st.integers(2, 6),
)
def test_incremental_log_equals_full_regeneration(gaps: list[tuple[int, int]], page: int) -> None:
    files, events = build(gaps, page)
    assert files == full_log(events, page)
    current = [line for line in files[LOG].splitlines() if line.startswith("* ")]
    assert len(current) < 2 * page
    pending = [line for text in files.values() for line in text.splitlines() if PENDING in line]
    assert len(pending) == gaps[-1][1]  # only the newest commit's lines, wherever they rolled


def test_a_commit_bigger_than_the_page_is_stamped_in_the_month_page_too() -> None:
    files, events = build([(0, 1), (1, 9), (1, 1)], page=2)  # the 9 spill into log/2026-01.md
    assert files == full_log(events, 2)
    archive = files["log/2026-01.md"]
    assert f"worm_ref: git:{sha(1)}" in archive and PENDING not in archive


def test_months_roll_into_their_own_files() -> None:
    files, events = build([(60 * 24 * 10, 1)] * 12, page=50)  # every 10 days for 4 months
    months = sorted({e.month for e in events})
    assert len(months) >= 4
    assert set(files) == {LOG, *(f"log/{m}.md" for m in months[:-1])}
    latest = parse_log(files[LOG])
    assert {e.month for e in latest} == {months[-1]}
    for month in months[:-1]:
        text = files[f"log/{month}.md"]
        assert text.startswith(f"# Log {month}\n")
        assert "[[decisions/x/" in text  # wikilinks from the vault root, valid from log/ too
    headings = [line for line in files[LOG].splitlines() if line.startswith("## ")]
    assert headings == sorted(headings, reverse=True)  # newest first


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=300, deadline=None)
@given(
    path=st.sampled_from(["", "decisions/2026-01/x.md", "a b/(c).cqk"]),
    title=TEXT,
    summary=TEXT,
    ids=st.lists(TEXT, min_size=4, max_size=4),
    worm_ref=st.sampled_from(["", PENDING, f"git:{sha(7)}"]),
)
def test_a_log_line_reads_back_as_it_renders(
    path: str, title: str, summary: str, ids: list[str], worm_ref: str
) -> None:
    kind, agent, session, correlation = ids
    event = LogEvent(
        START, "MEMORY_INGEST", path, kind, agent, correlation, session, summary, title, worm_ref
    )
    line = event.render()
    assert "\n" not in line
    back = parse_log_line(line, "2026-01-28")
    assert back is not None and back.render() == line
    assert (back.path, back.worm_ref) == (path, worm_ref)
    assert back.session == " ".join(session.split())
    assert len(back.summary) <= SUMMARY_LIMIT


def test_log_lines_of_the_earlier_format_are_read() -> None:
    text = (
        "# Log\n\n## 2026-01-28\n\n"
        "* 09:00:00Z MEMORY_INGEST [e0](decisions/x/e0.md) - type: decision, agent: a, "
        "correlation: c1\n"
        "* 08:00:00Z MEMORY_SYNC_INIT - agent: a\n"
        "* 07:00:00Z MEMORY_INGEST [e1](../decisions/x/e1.md) - type: pattern\n"
    )
    first, second, third = parse_log(text)
    assert (first.path, first.entry_type, first.agent, first.correlation) == (
        "decisions/x/e0.md",
        "decision",
        "a",
        "c1",
    )
    assert (second.event, second.path, second.agent) == ("MEMORY_SYNC_INIT", "", "a")
    assert third.path == "decisions/x/e1.md" and third.worm_ref == ""


def test_catalog_lines_of_the_earlier_format_read_as_the_new_lines() -> None:
    entry = Entry.parse(
        "decisions/2026-01/x.md",
        "---\ntype: decision\ntitle: Use [JWT] | not sessions\nstatus: superseded\n"
        "description: Stateless tokens.\n---\nbody\n",
    )
    legacy = (
        "# decisions/2026-01\n\n1 entry.\n\n## Entries\n\n"
        "* [Use \\[JWT\\] | not sessions](x.md) (superseded) - Stateless tokens.\n"
    )
    lines = parse_entry_lines(legacy, "decisions/2026-01")
    assert lines == {"x.md": entry_line("decisions/2026-01/x.md", entry)}
    assert lines["x.md"] == (
        "* [[decisions/2026-01/x.md|Use (JWT) - not sessions]] (superseded) - Stateless tokens."
    )
    assert parse_entry_lines(f"# f\n\n## Entries\n\n{lines['x.md']}\n") == lines


# ---------------------------------------------------------------- a real vault


def log_lines(root: Path) -> list[str]:
    return [x for x in (root / "log.md").read_text().splitlines() if x.startswith("* ")]


def test_a_log_line_names_session_summary_and_then_worm_ref(tmp_path: Path) -> None:
    root = tmp_path / "v"
    vault = Vault.init(root, identity=AGENT)
    who = Identity(agent_id="claude", session_id="s-42", correlation_id="c-7")
    first = vault.ingest(
        type="decision", title="Use JWT", description="Stateless tokens.", identity=who
    )
    [line] = [x for x in log_lines(root) if first.path in x]
    assert line.endswith(
        f"MEMORY_INGEST [[{first.path}|Use JWT]] (type: decision, agent: claude, "
        "session: s-42, correlation: c-7, worm_ref: pending) - Stateless tokens."
    )
    # Until the next commit, the session names the commit; the audit trail gives its sha.
    r = CliRunner().invoke(
        cli, ["memory", "--vault", str(root), "log", "--session", "s-42", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert [rec["worm_ref"] for rec in json.loads(r.output)] == [first.worm_ref]

    vault.ingest(type="pattern", title="Retry", identity=AGENT)
    [line] = [x for x in log_lines(root) if first.path in x]
    assert f"worm_ref: {first.worm_ref})" in line
    shown = git(root, "show", "-s", "--format=%(trailers:key=Session-Id,valueonly)", first.sha)
    assert shown.stdout.strip() == "s-42"  # plain git agrees with the log line
    assert sum(PENDING in x for x in log_lines(root)) == 1
    folder = (root / first.path).parent / "index.md"
    assert f"* [[{first.path}|Use JWT]] - Stateless tokens." in folder.read_text()
    recent = (root / "index.md").read_text()
    assert f"* [[{first.path}|Use JWT]] (decision) - Stateless tokens." in recent
    assert vault.catalog_drift() == []


def test_catalogs_equal_regeneration_after_every_kind_of_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    src = tmp_path / "notes"
    src.mkdir()
    (src / "one.md").write_text("---\ntype: pattern\ndescription: Jitter.\n---\nRetry.\n")
    root = tmp_path / "v"
    vault = Vault.init(root, identity=AGENT, log_page_lines=2)

    def consistent(step: str) -> None:
        assert vault.catalog_drift() == [], step

    consistent("init")
    a = vault.ingest(type="decision", title="Use JWT", description="Tokens.", identity=AGENT)
    consistent("ingest")
    b = vault.ingest(type="decision", title="Use sessions", body="Stateful.", identity=AGENT)
    vault.ingest(type="decision", title="Use sessions", body="More.", identity=AGENT, append=True)
    consistent("append")
    vault.update(a.path, changes={"description": "Stateless tokens."}, identity=AGENT)
    consistent("update")
    vault.supersede(b.path, a.path, identity=AGENT)
    consistent("supersede")
    c = vault.ingest(type="error", title="Flaky", body="Timeout.", identity=AGENT)
    vault.retract(c.path, "wrong", identity=AGENT)
    consistent("retract")
    vault.archive(c.path, identity=AGENT)
    consistent("archive")
    vault.ingest_all([{"type": "pattern", "title": f"Batch {n}"} for n in range(5)], identity=AGENT)
    consistent("ingest_all, bigger than the log page")
    vault.import_folder(src, type="pattern", identity=AGENT, batch=True)
    consistent("import")
    save_config(vault, RemoteConfig("s3", "bucket", endpoint="http://127.0.0.1:9"), AGENT)
    consistent("sync config")
    (root / "notes.txt").write_text("not an entry\n")
    git(root, "add", "notes.txt")
    git(root, "commit", "-qm", "a hand commit of another file")
    consistent("hand commit")
    (root / "index.md").write_text("drifted\n")
    git(root, "commit", "-qam", "hand edit of the catalog")
    assert vault.catalog_fix(AGENT) is not None
    consistent("catalog fix")
    vault.ingest(type="pattern", title="After the fix", identity=AGENT)
    consistent("a write after an unlogged commit")
    set_review_policy(vault, True, "Bob Reviewer")
    consistent("policy")
    vault.ingest(type="decision", title="Proposed", identity=Identity("claude", "s9"))
    [proposal] = list_proposals(vault.store)
    accept(vault, proposal.branch, "Bob Reviewer")
    consistent("accept")
    assert vault.verify().ok, vault.verify().problems
    stamped = [x for x in (root / "log.md").read_text().splitlines() if "worm_ref: git:" in x]
    for line in stamped:
        ref = line.split("worm_ref: git:", 1)[1][:40]
        assert git(root, "cat-file", "-t", ref).stdout.strip() == "commit"


def test_an_existing_vault_in_the_earlier_format_is_read_then_fixed(tmp_path: Path) -> None:
    root = tmp_path / "v"
    vault = Vault.init(root, identity=AGENT)
    a = vault.ingest(type="decision", title="Use JWT", description="Tokens.", identity=AGENT)
    folder = (root / a.path).parent / "index.md"
    name = Path(a.path).name
    text = folder.read_text().replace(f"* [[{a.path}|Use JWT]]", f"* [Use JWT]({name})")
    folder.write_text(text)
    day = next(x for x in (root / "log.md").read_text().splitlines() if x.startswith("## "))
    (root / "log.md").write_text(
        f"# Log\n\n{day}\n\n"
        f"* 09:00:00Z MEMORY_INGEST [x]({a.path}) - type: decision, agent: test-agent\n"
    )
    git(root, "commit", "-qam", "catalogs as an earlier clawql wrote them")
    b = vault.ingest(type="decision", title="Use OAuth", description="Delegated.", identity=AGENT)
    text = folder.read_text()
    assert f"* [[{a.path}|Use JWT]] - Tokens." in text  # the old line, read and re-rendered
    assert f"* [[{b.path}|Use OAuth]] - Delegated." in text and "](" not in text.split("## E")[1]
    assert str(folder.relative_to(root)) not in vault.catalog_drift()
    assert [p.path for p in parse_log((root / "log.md").read_text())][:2] == [b.path, a.path]
    assert vault.catalog_fix(AGENT) is not None  # the log lines gain what they lacked
    assert vault.catalog_drift() == []
    assert f"[[{a.path}|Use JWT]] (type: decision" in (root / "log.md").read_text()
