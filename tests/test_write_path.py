"""One write path: every kind of engine commit carries the full trailer set (read back with the
real git), only gitstore/ creates commits or moves refs, and verify holds each event to what
its trailers say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clawql_git import Identity, Vault
from clawql_git.review.merge import accept
from clawql_git.review.proposals import list_proposals, set_review_policy
from clawql_git.sync.remotes import RemoteConfig, save_config

from .conftest import AGENT, ROOT, SAMPLE, fsck_ok, git

TRAILERS = (
    "Clawql-Event",
    "Entry-Path",
    "Entry-Type",
    "Agent-Id",
    "Session-Id",
    "Correlation-Id",
    "Verdict",
    "Confidence",
)
REVIEWER = "Bob Reviewer"


def trailer_keys(root: Path, rev: str) -> dict[str, list[str]]:
    """The trailers of one commit as git itself parses them."""
    out = git(root, "log", "-1", "--format=%(trailers:only,unfold)", rev).stdout
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        if ": " in line:
            key, value = line.split(": ", 1)
            found.setdefault(key, []).append(value)
    return found


def every_engine_commit(root: Path) -> dict[str, list[str]]:
    """Clawql-Event -> the commits (all branches, merges included) that carry it."""
    out = git(
        root, "log", "--all", "--format=%H %(trailers:key=Clawql-Event,valueonly)", "--"
    ).stdout
    by_event: dict[str, list[str]] = {}
    for line in out.splitlines():
        sha, _, event = line.partition(" ")
        if event.strip():
            by_event.setdefault(event.strip(), []).append(sha)
    return by_event


def test_every_kind_of_engine_write_carries_the_eight_trailers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    src = tmp_path / "notes"
    src.mkdir()
    (src / "one.md").write_text("---\ntype: pattern\n---\nRetry with jitter.\n")
    (src / "two.md").write_text("# Two\n\nCache by blob sha.\n")
    root = tmp_path / "v"
    vault = Vault.init(root, identity=AGENT)  # MEMORY_INIT
    vault.seed(SAMPLE, AGENT)  # MEMORY_ONTOLOGY + one ingest per entry
    a = vault.ingest(type="decision", title="Use JWT", body="Stateless.", identity=AGENT)
    b = vault.ingest(type="decision", title="Use sessions", body="Stateful.", identity=AGENT)
    vault.update(a.path, changes={"tags": ["auth"]}, identity=AGENT)
    vault.supersede(b.path, a.path, identity=AGENT)
    c = vault.ingest(type="error", title="Flaky test", body="Timeout.", identity=AGENT)
    vault.retract(c.path, "wrong", identity=AGENT)
    d = vault.ingest(type="context", title="In progress", body="Migrating.", identity=AGENT)
    vault.archive(d.path, identity=AGENT)
    vault.ingest_all(
        [{"type": "pattern", "title": "Batch one"}, "---\ntype: pattern\n---\n# Batch two\n"],
        identity=AGENT,
    )  # one commit for two entries
    vault.import_folder(src, type="pattern", identity=AGENT, batch=True)
    save_config(vault, RemoteConfig("s3", "bucket", endpoint="http://127.0.0.1:9"), AGENT)
    (root / "index.md").write_text("drifted\n")
    git(root, "commit", "-qam", "hand edit of the catalog")
    assert vault.catalog_fix(AGENT) is not None  # MEMORY_CATALOG_FIX
    set_review_policy(vault, True, REVIEWER)  # MEMORY_POLICY, a person's commit on main
    agent = Identity(agent_id="claude-code", session_id="s1")
    vault.ingest(type="decision", title="Proposed", body="Reviewed first.", identity=agent)
    [proposal] = list_proposals(vault.store)
    accept(vault, proposal.branch, REVIEWER)  # MEMORY_REVIEW: a merge commit on main

    by_event = every_engine_commit(root)
    assert set(by_event) >= {
        "MEMORY_INIT",
        "MEMORY_ONTOLOGY",
        "MEMORY_INGEST",
        "MEMORY_UPDATE",
        "MEMORY_SUPERSEDE",
        "MEMORY_RETRACT",
        "MEMORY_ARCHIVE",
        "MEMORY_SYNC_INIT",
        "MEMORY_CATALOG_FIX",
        "MEMORY_POLICY",
        "MEMORY_REVIEW",
    }
    for event, shas in by_event.items():
        for sha in shas:
            keys = trailer_keys(root, sha)
            missing = [k for k in TRAILERS if k not in keys]
            assert not missing, f"{event} git:{sha} lacks {missing}"
    merge = by_event["MEMORY_REVIEW"][0]
    assert len(git(root, "rev-list", "--parents", "-n1", merge).stdout.split()) == 3
    policy = trailer_keys(root, by_event["MEMORY_POLICY"][0])
    assert policy["Agent-Id"] == [REVIEWER] and policy["Entry-Path"] == ["none"]
    assert vault.verify().ok, vault.verify().problems
    assert vault.catalog_drift() == []
    fsck_ok(root)


def test_a_hand_made_entry_change_labelled_catalog_fix_fails_verify(vault: Vault) -> None:
    result = vault.ingest(type="decision", title="Use JWT", body="Stateless.", identity=AGENT)
    root = vault.root
    (root / result.path).write_text((root / result.path).read_text() + "\nForged line.\n")
    git(root, "add", "-A")
    message = (
        "MEMORY_CATALOG_FIX: regenerate 1 files\n\nClawql-Event: MEMORY_CATALOG_FIX\n"
        "Entry-Path: none\nEntry-Type: none\nAgent-Id: mallory\nSession-Id: none\n"
        "Correlation-Id: none\nVerdict: none\nConfidence: none\n"
    )
    git(root, "commit", "-q", "-m", message)
    report = vault.verify()
    assert not report.ok
    assert any(f"changed {result.path} without naming it" in p for p in report.problems)


# What creates commits or moves refs in pygit2 and in git's own plumbing.
COMMIT_OR_REF = re.compile(
    r"create_commit|create_reference|references\.(create|delete)|\.set_target\(|"
    r"\"update-ref\"|'update-ref'|\"commit-tree\"|\"commit\", \"-"
)


def test_only_gitstore_creates_commits_or_moves_refs() -> None:
    package = ROOT / "clawql_git"
    offenders = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] == "gitstore":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if COMMIT_OR_REF.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []
    gitstore = "\n".join(p.read_text() for p in (package / "gitstore").rglob("*.py"))
    assert COMMIT_OR_REF.search(gitstore)  # the pattern does find what it looks for


def test_a_refused_write_leaves_no_commit_and_no_branch(vault: Vault) -> None:
    set_review_policy(vault, True, REVIEWER)
    before = git(vault.root, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    agent = Identity(agent_id="claude-code", session_id="s9")
    with pytest.raises(Exception, match=r"secret|credential"):
        vault.ingest(
            type="decision",
            title="Keys",
            body="aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz",
            identity=agent,
        )
    assert git(vault.root, "for-each-ref", "--format=%(refname) %(objectname)").stdout == before


def test_a_write_that_changes_nothing_makes_no_commit(vault: Vault) -> None:
    a = vault.ingest(type="decision", title="Use JWT", body="Stateless.", identity=AGENT)
    b = vault.ingest(type="decision", title="Use sessions", body="Stateful.", identity=AGENT)
    first = vault.supersede(b.path, a.path, identity=AGENT)
    head = git(vault.root, "rev-parse", "HEAD").stdout
    again = vault.supersede(b.path, a.path, identity=AGENT)  # already so: nothing to write
    same = vault.update(a.path, changes={"type": "decision"}, identity=AGENT)
    assert again.noop and same.noop and again.sha == first.sha
    assert git(vault.root, "rev-parse", "HEAD").stdout == head
    assert vault.verify().ok, vault.verify().problems
