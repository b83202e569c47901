"""Workspaces over real vaults: one mounted by path, one by a file:// URL of a bare repository
(cloned into the cache), one more by path; recall across them, routing, fail open."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput, NotAVault, NotFound, SyncError
from clawql_git.review.proposals import set_review_policy
from clawql_git.workspace.mounts import Workspace, cache_root, workspace_path

from .conftest import fsck_ok, git

HUMAN = Identity(agent_id="alice", session_id="desk")
BOT = Identity(agent_id="claude-code", session_id="s1")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CLAWQL_WORKSPACE", str(tmp_path / "ws.toml"))


def make_vault(root: Path, entries: list[tuple[str, str, str]]) -> Vault:
    v = Vault.init(root, identity=HUMAN)
    for entry_type, title, body in entries:
        v.ingest(type=entry_type, title=title, body=body, identity=HUMAN)
    v.close()
    return v


@pytest.fixture
def vaults(tmp_path: Path) -> dict[str, Path]:
    """personal (a folder), team (a bare repository reached by file://), org (a folder)."""
    personal = make_vault(
        tmp_path / "personal",
        [("context", "Auth sprint notes", "Working on JWT token refresh today.")],
    )
    team = make_vault(
        tmp_path / "team-src",
        [
            ("decision", "Use JWT for auth", "JWT tokens over server sessions for the API."),
            ("decision", "Use Postgres", "Postgres is the primary store."),
        ],
    )
    git(tmp_path, "clone", "--quiet", "--bare", str(team.root), str(tmp_path / "team.git"))
    org = make_vault(tmp_path / "org", [("pattern", "Retry with backoff", "Exponential retry.")])
    return {
        "personal": personal.root,
        "team": tmp_path / "team.git",
        "org": org.root,
        "team_src": team.root,
    }


def mounted(vaults: dict[str, Path]) -> Workspace:
    ws = Workspace.load()
    ws.add("personal", str(vaults["personal"]), "personal")
    ws.add("team", vaults["team"].as_uri(), "team")
    ws.add("org", str(vaults["org"]), "org")
    return ws


def ws_cli(*args: str) -> Result:
    return CliRunner().invoke(cli, ["workspace", *args])


def bare_log(bare: Path, ref: str = "main") -> str:
    return git(bare, "--git-dir", str(bare), "log", "--format=%H %s", ref).stdout


# ---------------------------------------------------------------- mounts


def test_add_list_remove_through_the_cli(vaults: dict[str, Path], tmp_path: Path) -> None:
    url = vaults["team"].as_uri()
    r = ws_cli("add", "team", url, "--scope", "team", "--json")
    assert r.exit_code == 0, r.output
    team = json.loads(r.output)
    clone = Path(team["path"])
    assert team["remote"] is True and clone.is_relative_to(cache_root())
    assert git(clone, "remote", "get-url", "origin").stdout.strip() == url
    assert git(clone, "config", "merge.clawql-catalog.driver").stdout.strip() == "true"
    assert (clone / ".git/hooks/post-merge").is_file()
    assert Vault.open(clone).index_status()["current"] is True  # built at add time
    fsck_ok(clone)
    r = ws_cli("add", "personal", str(vaults["personal"]), "--json")
    assert r.exit_code == 0 and json.loads(r.output)["scope"] == "personal"
    listed = json.loads(ws_cli("list", "--json").output)
    assert [m["name"] for m in listed["mounts"]] == ["team", "personal"]
    assert listed["default"] == "personal" and listed["workspace"] == str(tmp_path / "ws.toml")
    assert (tmp_path / "ws.toml").is_file()
    r = ws_cli("remove", "team", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["removed"]["name"] == "team"
    assert clone.is_dir()  # the cached clone is left (it may hold unpushed work)
    assert [m["name"] for m in json.loads(ws_cli("list", "--json").output)["mounts"]] == [
        "personal"
    ]
    assert ws_cli("remove", "team").exit_code == 3


def test_workspace_file_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CLAWQL_WORKSPACE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert workspace_path() == tmp_path / "cfg" / "clawql" / "workspace.toml"
    monkeypatch.setenv("CLAWQL_WORKSPACE", str(tmp_path / "elsewhere.toml"))
    assert workspace_path() == tmp_path / "elsewhere.toml"


def test_add_refuses_what_is_not_a_vault(vaults: dict[str, Path], tmp_path: Path) -> None:
    ws = Workspace.load()
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotAVault):
        ws.add("plain", str(tmp_path / "plain"), "team")
    git(tmp_path, "init", "--quiet", "--bare", str(tmp_path / "empty.git"))
    with pytest.raises((NotAVault, SyncError)):
        ws.add("empty", (tmp_path / "empty.git").as_uri(), "team")
    with pytest.raises(InvalidInput):
        ws.add("Bad Name", str(vaults["org"]), "team")
    with pytest.raises(InvalidInput):
        ws.add("org", str(vaults["org"]), "galaxy")
    assert not (tmp_path / "ws.toml").exists()  # nothing saved
    assert not any(cache_root().glob("empty-*"))  # no half clone left behind
    ws.add("org", str(vaults["org"]), "org")
    with pytest.raises(InvalidInput, match="already mounted"):
        ws.add("org", str(vaults["org"]), "org")


# ---------------------------------------------------------------- recall


def test_recall_across_vaults_names_each_hit(vaults: dict[str, Path]) -> None:
    mounted(vaults)
    r = ws_cli("recall", "JWT auth tokens", "--json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    assert rec["unavailable"] == [] and {v["vault"] for v in rec["vaults"]} == {
        "personal",
        "team",
        "org",
    }
    by_vault = {(h["vault"], h["title"]) for h in rec["hits"]}
    assert ("team", "Use JWT for auth") in by_vault
    assert ("personal", "Auth sprint notes") in by_vault
    scores = [h["score"] for h in rec["hits"]]
    assert scores == sorted(scores, reverse=True) and rec["fusion"] == "score"
    assert all(h["vault_rank"] >= 1 and h["worm_ref"].startswith("git:") for h in rec["hits"])
    # each vault recorded the read on its own audit chain
    assert git(vaults["personal"], "rev-parse", "refs/clawql/audit", check=False).returncode == 0
    text = ws_cli("recall", "JWT auth tokens", "--no-cache", "--until", "2999-01-01")
    assert "[team] Use JWT for auth" in text.output and "from 3 of 3 vaults" in text.output


def test_token_budget_applies_to_the_merged_list(vaults: dict[str, Path]) -> None:
    ws = mounted(vaults)
    full = ws.recall("JWT auth tokens Postgres retry")
    assert len(full.hits) >= 3
    budget = full.hits[0].hit.tokens + full.hits[1].hit.tokens
    cut = ws.recall("JWT auth tokens Postgres retry", max_tokens=budget)
    assert cut.total_tokens <= budget and cut.truncated and len(cut.hits) == 2
    assert ws.recall("JWT auth tokens Postgres retry", limit=1).hits[0] == full.hits[0]


def test_missing_or_broken_vault_fails_open(vaults: dict[str, Path]) -> None:
    mounted(vaults)
    shutil.rmtree(vaults["personal"])
    (vaults["org"] / ".git" / "HEAD").write_text("garbage\n")
    r = ws_cli("recall", "JWT", "--json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    status = {v["vault"]: v for v in rec["vaults"]}
    assert set(rec["unavailable"]) == {"personal", "org"}
    assert "does not exist" in status["personal"]["reason"] and status["org"]["reason"]
    assert status["team"]["status"] == "ok" and rec["hits"]
    assert {h["vault"] for h in rec["hits"]} == {"team"}
    text = ws_cli("recall", "JWT")
    assert "vault personal unavailable" in text.stderr and "from 1 of 3 vaults" in text.output


# ---------------------------------------------------------------- ingest routing


def test_ingest_routes_by_type_and_pushes(vaults: dict[str, Path]) -> None:
    ws = mounted(vaults)
    r = ws_cli("route", "decision=team", "pattern=team", "context=personal", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["routes"] == {
        "context": "personal",
        "decision": "team",
        "pattern": "team",
    }
    r = ws_cli("ingest", "--type", "decision", "--title", "Use Redis", "--body", "Cache.",
               "--agent", "alice", "--json")  # fmt: skip
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    assert rec["vault"] == "team" and rec["routed_by"] == "type decision" and rec["pushed"]
    assert rec["commit"] in bare_log(vaults["team"])  # written through the team repository
    assert git(vaults["personal"], "log", "--format=%s").stdout.count("ingest") == 1
    note = ws.ingest(type="context", title="Today", body="Notes.", identity=HUMAN)
    assert note.vault == "personal" and note.pushed is None
    assert git(vaults["personal"], "rev-parse", "HEAD").stdout.strip() == note.result.sha
    fsck_ok(vaults["team"])
    # a file with frontmatter routes by its own type; --to overrides the rules
    doc = vaults["org"].parent / "p.md"
    doc.write_text("---\ntype: pattern\ntitle: Circuit breaker\n---\nTrip after 5 failures.\n")
    r = ws_cli("ingest", str(doc), "--json")
    assert json.loads(r.output)["vault"] == "team"
    r = ws_cli("ingest", str(doc), "--title", "Circuit breaker org", "--to", "org", "--json")
    rec = json.loads(r.output)
    assert rec["vault"] == "org" and rec["routed_by"] == "--to"
    assert git(vaults["org"], "rev-parse", "HEAD").stdout.strip() == rec["commit"]
    hits = ws.recall("circuit breaker").hits
    assert {h.vault for h in hits} >= {"team", "org"}  # the team clone holds its own write


def test_no_route_and_unknown_target_are_clear_errors(vaults: dict[str, Path]) -> None:
    ws = Workspace.load()
    ws.add("team", vaults["team"].as_uri(), "team")
    ws.add("org", str(vaults["org"]), "org")
    with pytest.raises(InvalidInput, match="no route for type 'decision'"):
        ws.ingest(type="decision", title="X", body="y", identity=HUMAN)
    with pytest.raises(NotFound):
        ws.ingest(type="decision", title="X", body="y", to="nowhere", identity=HUMAN)
    with pytest.raises(NotFound):
        ws.set_routes({"decision": "nowhere"})
    r = ws_cli("route", "decision")
    assert r.exit_code == 2 and "TYPE=NAME" in r.stderr
    assert git(vaults["org"], "log", "--format=%s").stdout.count("ingest") == 1  # nothing written


def test_refused_push_is_reported(vaults: dict[str, Path]) -> None:
    ws = mounted(vaults)
    hook = vaults["team"] / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'agents may not push here' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = bare_log(vaults["team"])
    with pytest.raises(SyncError, match="refused the push"):
        ws.ingest(type="decision", title="Nope", body="x", to="team", identity=HUMAN)
    assert bare_log(vaults["team"]) == before  # the host's permissions decided


def test_review_policy_of_a_team_vault_pushes_a_proposal(
    vaults: dict[str, Path], tmp_path: Path
) -> None:
    source = Vault.open(vaults["team_src"])
    set_review_policy(source, True, "alice")
    git(source.root, "push", "--quiet", str(vaults["team"]), "main")
    ws = mounted(vaults)
    before = bare_log(vaults["team"])
    written = ws.ingest(type="decision", title="Agent idea", body="x", to="team", identity=BOT)
    assert written.result.branch == "proposals/claude-code/s1" and written.pushed
    assert bare_log(vaults["team"]) == before  # main of the team vault untouched
    assert written.result.sha in bare_log(vaults["team"], "proposals/claude-code/s1")


def test_pull_brings_a_url_mount_up_to_date(vaults: dict[str, Path]) -> None:
    ws = mounted(vaults)
    source = Vault.open(vaults["team_src"])
    source.ingest(type="decision", title="Adopt Kafka", body="Event bus.", identity=HUMAN)
    source.close()
    git(source.root, "push", "--quiet", str(vaults["team"]), "main")
    r = ws_cli("pull", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == {
        "personal": "local folder: nothing to pull",
        "team": "updated",
        "org": "local folder: nothing to pull",
    }
    hits = ws.recall("Kafka event bus").hits
    assert hits and hits[0].vault == "team" and hits[0].hit.title == "Adopt Kafka"
    assert Vault.open(ws.get("team").path).catalog_drift() == []


def test_a_broken_workspace_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "ws.toml").write_text('[mounts.team]\nsource = "x"\n')
    with pytest.raises(InvalidInput, match=r"\[mounts.team\] needs source, scope and path"):
        Workspace.load()
    r = ws_cli("list", "--json")
    assert r.exit_code == 2 and json.loads(r.stderr)["error"] == "InvalidInput"
