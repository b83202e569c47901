"""The vault core against the real git binary: init, ingest, trailers, changes, catalogs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clawql_git import Identity, LogFilter, Vault
from clawql_git.errors import NotFound, VaultStateError

from .conftest import AGENT, fsck_ok, git

WRITER = Identity(
    agent_id="claude-code",
    session_id="s-42",
    correlation_id="TICKET-7",
    verdict="accepted",
    confidence=0.9,
)


def trailers(path: Path, sha: str) -> dict[str, list[str]]:
    """Trailers as the real git parses them."""
    msg = git(path, "log", "-1", "--format=%B", sha).stdout
    out: dict[str, list[str]] = {}
    res = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=msg,
        capture_output=True,
        text=True,
        cwd=path,
        check=True,
    )
    for line in res.stdout.splitlines():
        key, _, value = line.partition(": ")
        out.setdefault(key, []).append(value)
    return out


def test_init_creates_a_vault(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT)
    root = v.root
    for name in ("index.md", "log.md", ".clawql/vault.toml", ".gitattributes"):
        assert (root / name).is_file(), name
    assert git(root, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    for hook in ("post-commit", "post-checkout", "post-merge", "post-rewrite"):
        assert (root / ".git" / "hooks" / hook).stat().st_mode & 0o111
    assert "id = " in (root / ".clawql/vault.toml").read_text()
    t = trailers(root, "HEAD")
    assert t["Clawql-Event"] == ["MEMORY_INIT"]
    assert t["Agent-Id"] == ["test-agent"]
    assert git(root, "status", "--porcelain").stdout == ""
    fsck_ok(root)


def test_init_twice_is_harmless(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT)
    head = git(v.root, "rev-parse", "HEAD").stdout
    v2 = Vault.init(tmp_path / "v", identity=AGENT)
    assert git(v2.root, "rev-parse", "HEAD").stdout == head
    assert v2.vault_id == v.vault_id


def test_init_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# hello\n")
    with pytest.raises(VaultStateError, match="--adopt"):
        Vault.init(tmp_path / "notes")
    assert not (tmp_path / "notes" / ".git").exists()


def test_ingest_is_one_commit_with_trailers(vault: Vault) -> None:
    before = git(vault.root, "rev-list", "--count", "HEAD").stdout.strip()
    result = vault.ingest(
        type="decision",
        title="Use JWT over sessions",
        body="Stateless tokens, see [[rate-limits]].",
        description="Auth for the public API",
        tags=["auth", "api"],
        identity=WRITER,
    )
    root = vault.root
    assert result.path.startswith("decisions/") and result.path.endswith(
        "/use-jwt-over-sessions.md"
    )
    assert result.worm_ref == f"git:{git(root, 'rev-parse', 'HEAD').stdout.strip()}"
    assert int(git(root, "rev-list", "--count", "HEAD").stdout) == int(before) + 1
    changed = git(root, "show", "--name-only", "--format=", result.sha).stdout.split()
    month = result.path.split("/")[1]
    assert set(changed) == {
        result.path,
        "decisions/index.md",
        f"decisions/{month}/index.md",
        "index.md",
        "log.md",
    }
    t = trailers(root, result.sha)
    assert t["Clawql-Event"] == ["MEMORY_INGEST"]
    assert t["Entry-Path"] == [result.path]
    assert t["Entry-Type"] == ["decision"]
    assert t["Agent-Id"] == ["claude-code"]
    assert t["Session-Id"] == ["s-42"]
    assert t["Correlation-Id"] == ["TICKET-7"]
    assert t["Verdict"] == ["accepted"]
    assert t["Confidence"] == ["0.9"]
    assert git(root, "log", "-1", "--format=%an", result.sha).stdout.strip() == "claude-code"
    shown = git(root, "show", f"{result.sha}:{result.path}").stdout
    assert shown.startswith("---\ntype: decision\n") and "Stateless tokens" in shown
    assert (root / result.path).read_text() == shown
    assert vault.catalog_drift() == []
    fsck_ok(root)


def test_same_title_gets_a_distinct_slug(vault: Vault) -> None:
    a = vault.ingest(type="pattern", title="Retry with jitter", body="one")
    b = vault.ingest(type="pattern", title="Retry with jitter", body="two")
    assert a.path != b.path
    assert b.path.endswith("retry-with-jitter-2.md")


def test_append_adds_a_dated_section_once(vault: Vault) -> None:
    a = vault.ingest(type="context", title="Billing migration", body="Started.")
    b = vault.ingest(type="context", title="Billing migration", body="Step 2 done.", append=True)
    assert b.path == a.path and b.event == "MEMORY_UPDATE"
    text = (vault.root / a.path).read_text()
    assert "## Update " in text and "Step 2 done." in text and "Started." in text
    head = git(vault.root, "rev-parse", "HEAD").stdout
    c = vault.ingest(type="context", title="Billing migration", body="Step 2 done.", append=True)
    assert c.noop and c.sha == b.sha
    assert git(vault.root, "rev-parse", "HEAD").stdout == head


def test_update_supersede_retract_archive(vault: Vault) -> None:
    old = vault.ingest(type="decision", title="Sessions in Redis", body="v1")
    new = vault.ingest(type="decision", title="JWT tokens", body="v2")
    up = vault.update(old.path, body="v1, clarified", changes={"description": "old way"})
    assert up.event == "MEMORY_UPDATE"
    sup = vault.supersede(old.path, new.path)
    entry = vault.get(old.path).entry
    assert entry.meta["status"] == "superseded"
    assert entry.meta["superseded_by"] == new.path.removesuffix(".md")
    ret = vault.retract(new.path, reason="wrong")
    assert vault.get(new.path).entry.status == "retracted"
    arc = vault.archive(old.path)
    assert arc.path == f"archive/{old.path}"
    assert not (vault.root / old.path).exists() and (vault.root / arc.path).is_file()
    events = [trailers(vault.root, r.sha)["Clawql-Event"][0] for r in (up, sup, ret, arc)]
    assert events == ["MEMORY_UPDATE", "MEMORY_SUPERSEDE", "MEMORY_RETRACT", "MEMORY_ARCHIVE"]
    history = vault.history(arc.path)
    assert [v.record.event for v in history] == [
        "MEMORY_ARCHIVE",
        "MEMORY_SUPERSEDE",
        "MEMORY_UPDATE",
        "MEMORY_INGEST",
    ]
    assert vault.catalog_drift() == []
    vault.close()
    assert git(vault.root, "status", "--porcelain").stdout == ""
    fsck_ok(vault.root)


def test_update_of_missing_entry_is_not_found(vault: Vault) -> None:
    with pytest.raises(NotFound):
        vault.update("decisions/2026-01/nope.md", body="x")


def test_show_materialises_worm_refs(vault: Vault) -> None:
    a = vault.ingest(type="error", title="Pool exhausted", body="first")
    b = vault.update(a.path, body="second")
    view = vault.get(a.path)
    assert view.first_ref == a.worm_ref and view.last_ref == b.worm_ref
    assert f"worm_ref: {b.worm_ref}" in view.materialised()
    old = vault.get(a.path, at=a.sha)
    assert "first" in old.entry.body and old.last_ref == a.worm_ref


def test_log_filters(vault: Vault) -> None:
    vault.ingest(type="decision", title="A", identity=Identity(agent_id="x"))
    vault.ingest(type="pattern", title="B", identity=Identity(agent_id="y"))
    vault.ingest(type="decision", title="C", identity=Identity(agent_id="y"))
    assert [r.paths[0].split("/")[-1] for r in vault.log(LogFilter(agent="y"))] == ["c.md", "b.md"]
    assert len(vault.log(LogFilter(entry_type="decision"))) == 2
    assert len(vault.log(LogFilter(event="MEMORY_INIT"))) == 1


def test_catalog_check_detects_hand_edits_and_fix_repairs(vault: Vault) -> None:
    vault.ingest(type="decision", title="A", body="x")
    (vault.root / "index.md").write_text("hand edited\n")
    git(vault.root, "commit", "-qam", "manual edit")
    assert vault.catalog_drift() == ["index.md"]
    fixed = vault.catalog_fix(AGENT)
    assert fixed is not None and fixed.paths == ("index.md",)
    assert vault.catalog_drift() == []
    assert vault.catalog_fix(AGENT) is None


def test_catalog_tree_and_log_roll(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT, log_page_lines=4)
    for n in range(11):
        v.ingest(type="task_result", title=f"Run {n}", body=f"result {n}")
    lines = [x for x in (v.root / "log.md").read_text().splitlines() if x.startswith("* ")]
    assert 4 <= len(lines) < 8
    month = next(p for p in (v.root / "log").iterdir())
    assert month.name.endswith(".md")
    assert v.catalog_drift() == []
    root_index = (v.root / "index.md").read_text()
    assert "[task_results](task_results/index.md) - 11 entries" in root_index
    assert root_index.startswith('---\nokf_version: "0.1"\n---\n')


def test_engine_commits_leave_a_clean_status_and_git_sees_them(vault: Vault) -> None:
    for n in range(3):
        vault.ingest(type="pattern", title=f"P{n}")
    vault.close()
    assert git(vault.root, "status", "--porcelain").stdout == ""
    assert git(vault.root, "diff", "--cached", "--name-only").stdout == ""


def test_catalogs_stay_bounded_as_entries_accumulate(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT)
    sizes = []
    for n in range(40):
        v.ingest(type="pattern", title=f"Pattern number {n}", body="x", identity=AGENT)
        sizes.append(len((v.root / "index.md").read_text().splitlines()))
    assert sizes[-1] == sizes[15]  # the root lists categories and the 10 most recent only
    category = (v.root / "patterns" / "index.md").read_text()
    assert len(category.splitlines()) < 12  # one line per month folder
