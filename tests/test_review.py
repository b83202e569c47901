"""Review through proposal branches, checked with real git: routing under the policy, list,
show, accept (a merge commit with MEMORY_REVIEW trailers) and reject (an audit event)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput, NotFound, ReviewConflict, VaultStateError
from clawql_git.review.merge import accept
from clawql_git.review.proposals import (
    get_proposal,
    list_proposals,
    reject,
    set_review_policy,
)
from clawql_git.review.report import show

from .conftest import fsck_ok, git

HUMAN = Identity(agent_id="alice", session_id="desk")
BOT = Identity(agent_id="claude-code", session_id="s1")
BRANCH = "proposals/claude-code/s1"


@pytest.fixture(autouse=True)
def hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")  # no model download, real vectors


@pytest.fixture
def reviewed(tmp_path: Path) -> Vault:
    """A vault with two entries on main and review required."""
    v = Vault.init(tmp_path / "vault", identity=HUMAN)
    v.ingest(
        type="decision", title="Use JWT for auth", body="Tokens over sessions.", identity=HUMAN
    )
    v.ingest(
        type="pattern", title="Retry with backoff", body="Exponential backoff.", identity=HUMAN
    )
    set_review_policy(v, True, "alice")
    return v


def head(v: Vault) -> str:
    return git(v.root, "rev-parse", "main").stdout.strip()


def cli_run(v: Vault, *args: str) -> Result:
    return CliRunner().invoke(cli, ["review", "--vault", str(v.root), *args])


# ---------------------------------------------------------------- routing


def test_policy_off_writes_to_main(vault: Vault) -> None:
    result = vault.ingest(type="decision", title="Plain", body="x", identity=BOT)
    assert result.branch == ""
    assert head(vault) == result.sha
    assert list_proposals(vault.store) == []
    assert git(vault.root, "branch", "--list", "proposals/*").stdout == ""


def test_agent_ingest_goes_to_a_proposal_branch(reviewed: Vault) -> None:
    main_before = head(reviewed)
    status_before = reviewed.index_status()["stamp"]
    first = reviewed.ingest(type="decision", title="Use Postgres", body="We pick it.", identity=BOT)
    second = reviewed.ingest(type="context", title="Sprint notes", body="Auth work.", identity=BOT)
    root = reviewed.root
    assert first.branch == second.branch == BRANCH
    assert head(reviewed) == main_before  # main untouched
    tip = git(root, "rev-parse", BRANCH).stdout.strip()
    assert tip == second.sha and second.worm_ref == f"git:{tip}"
    assert git(root, "rev-parse", f"{second.sha}^").stdout.strip() == first.sha  # stacked
    assert git(root, "rev-parse", f"{first.sha}^").stdout.strip() == main_before
    assert git(root, "merge-base", "--is-ancestor", "main", BRANCH, check=False).returncode == 0
    trailers = git(root, "log", "-1", "--format=%(trailers)", first.sha).stdout
    for line in (
        "Clawql-Event: MEMORY_INGEST",
        f"Entry-Path: {first.path}",
        "Entry-Type: decision",
        "Agent-Id: claude-code",
        "Session-Id: s1",
    ):
        assert line in trailers
    # work tree, git index and the derived index of main are as they were
    assert not (root / first.path).exists()
    assert git(root, "status", "--porcelain").stdout == ""
    assert first.path not in git(root, "ls-files").stdout
    assert reviewed.index_status()["stamp"] == status_before
    assert all(h.path != first.path for h in reviewed.recall("Postgres").hits)
    assert first.to_record()["proposal"] == BRANCH
    fsck_ok(root)


def test_bad_input_under_review_creates_no_branch(reviewed: Vault) -> None:
    with pytest.raises(InvalidInput):
        reviewed.ingest(type="not a type!", title="Bad", body="x", identity=BOT)
    assert list_proposals(reviewed.store) == []


def test_exempt_agent_and_updates_route_by_policy(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=HUMAN)
    toml = (v.root / ".clawql/vault.toml").read_text()
    (v.root / ".clawql/vault.toml").write_text(
        toml + '\n[policy]\nreview = "required"\nreview_exempt = ["alice"]\n'
    )
    git(v.root, "commit", "-qam", "require review")  # a human commit through git itself
    direct = v.ingest(type="decision", title="Human call", body="x", identity=HUMAN)
    assert direct.branch == "" and head(v) == direct.sha
    # an agent's update of an entry on main is a proposal too
    changed = v.update(direct.path, body="changed by an agent", identity=BOT)
    assert changed.branch == BRANCH and head(v) == direct.sha
    assert v.get(direct.path).entry.body.strip() == "x"


def test_working_tree_edit_does_not_switch_review_off(reviewed: Vault) -> None:
    path = reviewed.root / ".clawql/vault.toml"
    path.write_text(path.read_text().replace('review = "required"', 'review = "off"'))
    result = reviewed.ingest(type="decision", title="Sneaky", body="x", identity=BOT)
    assert result.branch == BRANCH  # the policy is read from main's commit


# ---------------------------------------------------------------- list / show


def test_review_list_library_and_cli(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="Use Postgres", body="We pick it.", identity=BOT)
    other = Identity(agent_id="cursor", session_id="night run")
    reviewed.ingest(type="context", title="Night notes", body="n", identity=other)
    found = {p.branch: p for p in list_proposals(reviewed.store)}
    assert set(found) == {BRANCH, "proposals/cursor/night-run"}
    assert found[BRANCH].agent == "claude-code" and found[BRANCH].session == "s1"
    assert len(found[BRANCH].entries) == 1
    r = cli_run(reviewed, "list", "--json")
    assert r.exit_code == 0, r.output
    records = {p["branch"]: p for p in json.loads(r.output)}
    assert records["proposals/cursor/night-run"]["session"] == "night run"
    assert records[BRANCH]["entries"] == 1 and records[BRANCH]["age_seconds"] >= 0
    text = cli_run(reviewed, "list")
    assert BRANCH in text.output and "1 entry" in text.output


def test_review_show_reports_everything(reviewed: Vault) -> None:
    jwt = reviewed.ingest(type="decision", title="Use JWT for auth", body="Again.", identity=BOT)
    body = "Retry with exponential backoff. See [[retry-with-backoff]] and [[no-such-note]]."
    retry = reviewed.ingest(type="pattern", title="Retry backoff", body=body, identity=BOT)
    audit_before = _audit_tip(reviewed)
    report = show(reviewed, BRANCH)
    assert _audit_tip(reviewed) == audit_before  # a preview for a reviewer, not a recall
    assert not list(reviewed.store.state_dir.glob("review-index-*"))  # temporary index gone
    by_path = {e.path: e for e in report.entries}
    dup = by_path[jwt.path]
    assert dup.change == "added" and dup.valid
    assert dup.frontmatter is not None and dup.frontmatter["agent_id"] == "claude-code"
    assert dup.diff.startswith("--- /dev/null") and "+title: Use JWT for auth" in dup.diff
    assert any(
        d.reason == "same title" and d.path.endswith("use-jwt-for-auth.md") for d in dup.duplicates
    )
    assert dup.recall is not None and dup.recall.rank is not None
    # the old entry was the top hit for its own title; the proposal pushes it down or out
    assert dup.recall.before[0].endswith("use-jwt-for-auth.md")
    old_top = dup.recall.before[0]
    if dup.recall.rank == 1:
        assert dup.recall.displaced == ((old_top, 1, 2),)
    assert jwt.path in dup.recall.after and jwt.path not in dup.recall.before
    links = by_path[retry.path]
    assert links.broken_links == ("no-such-note (line 2)",)
    assert any(d.reason == "similar title" for d in links.duplicates)
    r = cli_run(reviewed, "show", BRANCH, "--json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    assert rec["valid"] is True and {e["path"] for e in rec["entries"]} == set(by_path)
    assert rec["other_changes"] == []
    assert "recall" in rec["entries"][0] and "diff" in rec["entries"][0]
    text = cli_run(reviewed, "show", BRANCH, "--no-recall")
    assert "broken link: no-such-note" in text.output and "possible duplicate" in text.output


def _audit_tip(v: Vault) -> str:
    return git(
        v.root, "rev-parse", "--verify", "-q", "refs/clawql/audit", check=False
    ).stdout.strip()


def test_show_modified_entry_diffs_against_main(reviewed: Vault) -> None:
    path = reviewed.entries()[0].path
    reviewed.update(path, body="Rewritten by the agent.", identity=BOT)
    report = show(reviewed, BRANCH, recall_impact=False)
    (entry,) = report.entries
    assert entry.change == "modified" and f"--- a/{path}" in entry.diff
    assert "+Rewritten by the agent." in entry.diff and entry.recall is None


def test_bad_branch_names_are_not_found(reviewed: Vault) -> None:
    for name in ("main", "proposals/nobody/none", "proposals/../x", "feature/x"):
        with pytest.raises(NotFound):
            show(reviewed, name)
        with pytest.raises(NotFound):
            accept(reviewed, name, "alice")
    r = cli_run(reviewed, "accept", "proposals/nobody/none", "--reviewer", "alice", "--json")
    assert r.exit_code == 3
    assert json.loads(r.stderr)["error"] == "NotFound"
    r = cli_run(reviewed, "reject", "nope", "--reason", "x", "--reviewer", "alice")
    assert r.exit_code == 3 and "not a proposal branch" in r.stderr


# ---------------------------------------------------------------- accept / reject


def test_accept_merges_with_review_trailers(reviewed: Vault) -> None:
    main_before = head(reviewed)
    a = reviewed.ingest(type="decision", title="Use Postgres", body="We pick it.", identity=BOT)
    b = reviewed.ingest(type="context", title="Sprint notes", body="Auth work.", identity=BOT)
    tip = b.sha
    r = cli_run(reviewed, "accept", BRANCH, "--reviewer", "Bob Reviewer", "--json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    root = reviewed.root
    merge = head(reviewed)
    assert rec["merge_commit"] == f"git:{merge}" and rec["verdict"] == "accepted"
    parents = git(root, "rev-list", "--parents", "-n1", merge).stdout.split()[1:]
    assert parents == [main_before, tip]
    message = git(root, "log", "-1", "--format=%B", merge).stdout
    for line in (
        "Clawql-Event: MEMORY_REVIEW",
        "Review-Verdict: accepted",
        "Reviewer: Bob Reviewer",
        f"Proposal-Branch: {BRANCH}",
        f"Proposal-Tip: {tip}",
        f"Entry-Path: {a.path}",
        f"Entry-Path: {b.path}",
    ):
        assert line in message
    assert git(root, "merge-base", "--is-ancestor", tip, "main", check=False).returncode == 0
    assert git(root, "branch", "--list", BRANCH).stdout == ""  # deleted; the merge keeps it
    assert reviewed.catalog_drift() == []
    assert (root / a.path).is_file() and git(root, "status", "--porcelain").stdout == ""
    assert a.path in git(root, "ls-files").stdout
    assert reviewed.index_status()["current"] is True
    assert any(h.path == a.path for h in reviewed.recall("Postgres").hits)
    assert reviewed.get(a.path).last_ref == f"git:{a.sha}"  # worm_ref exactly as proposed
    assert reviewed.verify().ok, reviewed.verify().problems
    fsck_ok(root)


def test_accept_conflict_with_later_main_change(reviewed: Vault) -> None:
    path = next(e.path for e in reviewed.entries() if e.type == "pattern")
    reviewed.update(path, body="The agent's version.", identity=BOT)
    file = reviewed.root / path
    file.write_text(file.read_text().replace("Exponential backoff.", "The human's version."))
    git(reviewed.root, "commit", "-qam", "human edit")
    main_before = head(reviewed)
    with pytest.raises(ReviewConflict) as info:
        accept(reviewed, BRANCH, "alice")
    assert info.value.paths == [path] and "main is unchanged" in info.value.message
    assert head(reviewed) == main_before
    assert git(reviewed.root, "status", "--porcelain").stdout == ""
    assert get_proposal(reviewed.store, BRANCH).tip  # still there to reject or redo
    r = cli_run(reviewed, "accept", BRANCH, "--reviewer", "alice")
    assert r.exit_code == 4 and "conflicts with main" in r.stderr
    fsck_ok(reviewed.root)


def test_accept_after_unrelated_main_change_and_same_new_path(reviewed: Vault) -> None:
    a = reviewed.ingest(type="decision", title="Use Postgres", body="Agent.", identity=BOT)
    set_review_policy(reviewed, True, "alice", exempt=["alice"])  # alice writes directly
    reviewed.ingest(type="context", title="Unrelated", body="Human.", identity=HUMAN)
    outcome = accept(reviewed, BRANCH, "alice")
    assert a.path in outcome.paths and reviewed.catalog_drift() == []
    # both sides add the same new path: a conflict, never a silent choice
    reviewed.ingest(type="decision", title="Cache layer", body="Agent text.", identity=BOT)
    reviewed.ingest(type="decision", title="Cache layer", body="Human text.", identity=HUMAN)
    with pytest.raises(ReviewConflict):
        accept(reviewed, BRANCH, "alice")


def test_agent_cannot_accept_its_own_proposal(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="Self", body="x", identity=BOT)
    with pytest.raises(VaultStateError, match="another reviewer"):
        accept(reviewed, BRANCH, "claude-code")


def test_reject_records_an_audit_event(reviewed: Vault) -> None:
    main_before = head(reviewed)
    a = reviewed.ingest(type="decision", title="Bad idea", body="x", identity=BOT)
    r = cli_run(
        reviewed, "reject", BRANCH, "--reason", "wrong  call", "--reviewer", "alice", "--json"
    )
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    root = reviewed.root
    assert head(reviewed) == main_before
    assert git(root, "branch", "--list", BRANCH).stdout == ""
    event = git(root, "log", "-1", "--format=%B", "refs/clawql/audit").stdout
    for line in (
        "Clawql-Event: MEMORY_REVIEW",
        "Review-Verdict: rejected",
        "Reviewer: alice",
        f"Proposal-Tip: {a.sha}",
        "Reason: wrong call",
        f"Entry-Path: {a.path}",
    ):
        assert line in event
    assert rec["audit_ref"] == "git:" + git(root, "rev-parse", "refs/clawql/audit").stdout.strip()
    # the audit event's tree is the rejected proposal's, so what was turned down stays readable
    assert git(root, "cat-file", "-e", f"refs/clawql/audit:{a.path}", check=False).returncode == 0
    assert any(e.event == "MEMORY_REVIEW" for e in reviewed.audit_events())
    assert reviewed.verify().ok, reviewed.verify().problems
    with pytest.raises(InvalidInput):
        reject(reviewed, BRANCH, " ", "alice")
    fsck_ok(root)


def test_policy_command(vault: Vault) -> None:
    r = cli_run(vault, "policy", "required", "--reviewer", "alice", "--json")
    assert r.exit_code == 0, r.output
    assert vault.ingest(type="decision", title="P", body="x", identity=BOT).branch == BRANCH
    assert cli_run(vault, "policy", "off", "--reviewer", "alice").exit_code == 0
    assert vault.ingest(type="decision", title="Q", body="x", identity=BOT).branch == ""
    assert "MEMORY_POLICY" in git(vault.root, "log", "--format=%B").stdout
    assert vault.verify().ok, vault.verify().problems


def test_show_flags_a_hand_made_change_to_vault_settings(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="Harmless", body="x", identity=BOT)
    root = reviewed.root
    git(root, "checkout", "-q", BRANCH)
    settings = root / ".clawql/vault.toml"
    settings.write_text(settings.read_text().replace('"required"', '"off"'))
    bad = root / "decisions" / "hand-made.md"
    bad.write_text("---\ntitle: No type\n---\nA token ghp_" + "a1B2" * 9 + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "turn review off")
    git(root, "checkout", "-q", "main")
    report = show(reviewed, BRANCH, recall_impact=False)
    assert report.other_changes == [".clawql/vault.toml"]
    invalid = next(e for e in report.entries if e.path == "decisions/hand-made.md")
    assert not invalid.valid and "type" in invalid.problems[0]
    assert not report.to_record()["valid"]
    r = cli_run(reviewed, "show", BRANCH, "--no-recall")
    assert "also changes .clawql/vault.toml" in r.output


def test_accepted_catalogs_equal_a_full_regeneration(tmp_path: Path) -> None:
    """Interleaved main and proposal writes, an archive, an update, a small log page (so the
    log rolls): the incrementally computed catalogs of the merge equal a full regeneration."""
    v = Vault.init(tmp_path / "v", identity=HUMAN)
    settings = v.root / ".clawql/vault.toml"
    settings.write_text(
        settings.read_text().replace("[settings]", "[settings]\nlog_page_lines = 2")
        + '\n[policy]\nreview = "required"\nreview_exempt = ["alice"]\n'
    )
    git(v.root, "commit", "-qam", "policy and a short log page")
    v = Vault.open(v.root)
    seeds = [
        v.ingest(type="decision", title=f"Seed {n}", body=f"s{n}", identity=HUMAN) for n in range(4)
    ]
    other = Identity(agent_id="cursor", session_id="s9")
    for n in range(3):
        v.ingest(type="decision", title=f"Agent {n}", body=f"a{n}", identity=BOT)
        v.ingest(type="pattern", title=f"Human {n}", body=f"h{n}", identity=HUMAN)
        v.ingest(type="context", title=f"Other {n}", body=f"o{n}", identity=other)
    v.archive(seeds[0].path, identity=BOT)
    v.update(seeds[1].path, body="agent rewrite", identity=BOT)
    accept(v, BRANCH, "alice")
    assert v.catalog_drift() == []
    accept(v, "proposals/cursor/s9", "alice")
    assert v.catalog_drift() == []
    assert list((v.root / "log").glob("*.md"))  # the log rolled into pages
    assert not (v.root / seeds[0].path).exists() and (v.root / "archive" / seeds[0].path).is_file()
    assert v.verify().ok, v.verify().problems
    fsck_ok(v.root)


def test_a_session_name_reused_after_rejection_verifies(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="First try", body="x", identity=BOT)
    reject(reviewed, BRANCH, "no", "alice")
    again = reviewed.ingest(type="decision", title="Second try", body="y", identity=BOT)
    assert again.branch == BRANCH
    assert reviewed.verify().ok, reviewed.verify().problems
    # a rewrite of an open proposal branch is still caught
    git(reviewed.root, "branch", "-f", BRANCH, "main")
    assert any("no longer an ancestor" in p for p in reviewed.verify().problems)


def test_a_session_name_reused_after_acceptance_verifies(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="First try", body="x", identity=BOT)
    accept(reviewed, BRANCH, "alice")
    again = reviewed.ingest(type="decision", title="Second try", body="y", identity=BOT)
    assert again.branch == BRANCH
    assert reviewed.verify().ok, reviewed.verify().problems


def test_an_mcp_ingest_is_proposed_for_review(reviewed: Vault, tmp_path: Path) -> None:
    """Agents write through MCP: under review their ingest lands on a proposal branch."""
    import os
    import sys

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(reviewed.root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    main_before = head(reviewed)
    answers: list[dict[str, object]] = []

    async def talk() -> None:
        with (tmp_path / "stderr.txt").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool(
                    "memory_ingest",
                    {"type": "decision", "title": "Via MCP", "body": "x",
                     "agent_id": "claude-code", "session_id": "s1"},
                )  # fmt: skip
                assert not result.is_error, result.content
                assert result.structured_content is not None
                answers.append(result.structured_content)

    anyio.run(talk)
    assert answers[0]["proposal"] == BRANCH
    assert head(reviewed) == main_before
    assert answers[0]["commit"] == git(reviewed.root, "rev-parse", BRANCH).stdout.strip()
