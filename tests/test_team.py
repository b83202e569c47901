"""Team memory end to end: real clones of a real bare repository, over a path, file:// and a
real HTTP git server (git http-backend on 127.0.0.1); concurrent writers; true conflicts."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import (
    MergeConflict,
    NotAVault,
    PushRefused,
    RemoteMoved,
    SyncError,
    VaultStateError,
)
from clawql_git.team.sharing import clone, pull, push

from .conftest import fsck_ok, git
from .gitserver import GitHttpServer, serve

A = Identity(agent_id="agent-a", session_id="sa")
B = Identity(agent_id="agent-b", session_id="sb")


@pytest.fixture
def remotes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of bare repositories holding ``team.git``, a vault with one entry."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    seed = Identity(agent_id="seed")
    origin = Vault.init(tmp_path / "origin", identity=seed)
    origin.ingest(
        type="decision",
        title="Kafka for the ledger",
        body="We chose Kafka for the ledger events because of consumer groups.",
        identity=seed,
    )
    origin.close()
    root = tmp_path / "remotes"
    root.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(origin.root), str(root / "team.git"))
    return root


@pytest.fixture
def http(remotes: Path) -> Iterator[GitHttpServer]:
    yield from serve(remotes)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def url_for(transport: str, remotes: Path, http: GitHttpServer | None) -> str:
    bare = remotes / "team.git"
    if transport == "path":
        return str(bare)
    if transport == "file":
        return bare.as_uri()
    assert http is not None
    return http.url("team.git")


def heads(*roots: Path) -> set[str]:
    return {git(r, "rev-parse", "HEAD").stdout.strip() for r in roots}


# ---------------------------------------------------------------- clone, push, pull


@pytest.mark.parametrize("transport", ["path", "file", "http"])
def test_clone_push_pull_round_trip(
    transport: str, remotes: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    server = request.getfixturevalue("http") if transport == "http" else None
    url = url_for(transport, remotes, server)
    a = clone(url, tmp_path / "a", eager_index=False)
    b = clone(url, tmp_path / "b", eager_index=False)
    for v in (a, b):  # set up like init: hooks, merge driver, clawql.command, index built
        assert "clawql-git" in (v.root / ".git" / "hooks" / "post-merge").read_text()
        assert git(v.root, "config", "merge.clawql-catalog.driver").stdout.strip() == "true"
        assert "clawql_git" in git(v.root, "config", "clawql.command").stdout
        assert v.index_status()["current"] is True
    wa = a.ingest(type="pattern", title="Retry with jitter", body="Backoff.", identity=A)
    assert push(a).pushed
    wb = b.ingest(type="context", title="Ledger owner", body="Team ledger owns it.", identity=B)
    with pytest.raises(RemoteMoved, match=r"origin .*clawql memory pull"):
        push(b)
    merged = pull(b, identity=B)
    assert merged.mode == "merge" and merged.incoming == 1 and merged.catalog_fix
    assert merged.indexed["commit"] == merged.after
    assert push(b).pushed
    ff = pull(a, identity=A)
    assert ff.mode == "fast-forward" and ff.catalog_fix is None
    synced = [e for e in a.audit_events() if e.event.startswith("MEMORY_SYNC")]
    assert [(e.event, e.agent, e.read_commit) for e in synced] == [
        ("MEMORY_SYNC_PULL", "agent-a", ff.after),
        ("MEMORY_SYNC_PUSH", a.settings.agent_id, wa.sha),
    ]
    trail = "%(trailers:key=Sync-Remote,valueonly)%(trailers:key=Sync-From,valueonly)"
    shown = git(a.root, "log", "-1", f"--format={trail}", "refs/clawql/audit").stdout.split()
    assert shown == [url, wa.sha]
    assert pull(a).mode == "up-to-date" and not push(a).pushed
    assert heads(a.root, b.root, remotes / "team.git") == {ff.after}
    for v in (a, b):
        assert {wa.path, wb.path} <= {e.path for e in v.entries()}
        assert v.catalog_drift() == [] and v.verify().ok, v.verify().problems
        assert git(v.root, "status", "--porcelain").stdout == ""
        assert v.recall("ledger owner team", limit=3).hits[0].path == wb.path
        fsck_ok(v.root)
    fsck_ok(remotes / "team.git")


def test_cli_clone_then_recall_without_rebuilding(
    remotes: Path, tmp_path: Path, http: GitHttpServer
) -> None:
    target = tmp_path / "work" / "mem"
    r = run("memory", "clone", http.url("team.git"), str(target), "--json")
    assert r.exit_code == 0, r.output
    record = json.loads(r.output)
    assert record["vault"] == str(target) and record["index"]["commit"] == record["head"][4:]
    stamp = (target / ".git" / "clawql" / "index").stat().st_mtime_ns
    r = run("memory", "--vault", str(target), "recall", "kafka ledger", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["hits"][0]["path"].endswith("kafka-for-the-ledger.md")
    assert (target / ".git" / "clawql" / "index").stat().st_mtime_ns == stamp
    r = run("memory", "--vault", str(target), "pull", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["mode"] == "up-to-date"
    r = run("memory", "--vault", str(target), "push")
    assert r.exit_code == 0 and "up to date" in r.output


def test_cli_push_refuses_when_the_remote_moved(remotes: Path, tmp_path: Path) -> None:
    url = (remotes / "team.git").as_uri()
    a, b = tmp_path / "a", tmp_path / "b"
    for target in (a, b):
        assert run("memory", "clone", url, str(target)).exit_code == 0
    for target, title in ((a, "From A"), (b, "From B")):
        r = run("memory", "--vault", str(target), "ingest", "--type", "context", "--title", title)
        assert r.exit_code == 0, r.output
    assert run("memory", "--vault", str(a), "push").exit_code == 0
    before = heads(remotes / "team.git")
    r = run("memory", "--vault", str(b), "push")
    assert r.exit_code == 4
    assert "origin" in r.output and url in r.output and "pull" in r.output
    assert "fetch first" in r.output  # git's own message comes along
    assert heads(remotes / "team.git") == before  # nothing forced
    r = run("memory", "--vault", str(b), "pull")
    assert r.exit_code == 0 and r.output.startswith("merge: 1 commit(s)"), r.output
    assert run("memory", "--vault", str(b), "push").exit_code == 0


def test_errors_name_the_remote_and_leave_nothing(remotes: Path, tmp_path: Path) -> None:
    missing = str(remotes / "nowhere.git")
    with pytest.raises(SyncError, match=r"cannot clone .*nowhere\.git: .*does not exist"):
        clone(missing, tmp_path / "x")
    assert not (tmp_path / "x").exists()
    git(remotes, "init", "-q", "--bare", "plain.git")
    git(tmp_path, "clone", "-q", str(remotes / "plain.git"), "p")
    (tmp_path / "p" / "README.md").write_text("not a vault\n")
    git(tmp_path / "p", "add", "README.md")
    git(tmp_path / "p", "commit", "-q", "-m", "readme")
    git(tmp_path / "p", "push", "-q", "origin", "HEAD:main")
    git(remotes / "plain.git", "symbolic-ref", "HEAD", "refs/heads/main")
    with pytest.raises(NotAVault, match=r"plain\.git is not a clawql vault"):
        clone(str(remotes / "plain.git"), tmp_path / "y")
    assert not (tmp_path / "y").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotAVault):
        clone(str(remotes / "plain.git"), tmp_path / "empty")
    assert list((tmp_path / "empty").iterdir()) == []  # an empty folder given stays, empty
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("mine")
    with pytest.raises(VaultStateError, match="exists and is not empty"):
        clone(str(remotes / "team.git"), tmp_path / "mine")
    assert (tmp_path / "mine" / "keep.txt").read_text() == "mine"
    a = clone(str(remotes / "team.git"), tmp_path / "a")
    git(a.root, "remote", "set-url", "origin", missing)
    with pytest.raises(SyncError, match=r"cannot fetch from origin \(.*nowhere\.git\): "):
        pull(a)
    a.ingest(type="context", title="Local only", identity=A)
    with pytest.raises(SyncError, match=r"push to origin \(.*nowhere\.git\) failed: "):
        push(a)
    r = run("memory", "--vault", str(a.root), "push", "--remote", "upstream")
    assert r.exit_code == 3 and "no remote named 'upstream'" in r.output


def test_protected_remote_refusal_over_http_is_reported(
    remotes: Path, tmp_path: Path, http: GitHttpServer
) -> None:
    from clawql_git.team.protect import protect_remote

    protect_remote(remotes / "team.git")
    a = clone(http.url("team.git"), tmp_path / "a")
    bad = a.root / "decisions" / "untyped.md"
    bad.write_text("---\ntitle: No type\n---\nbody\n")
    git(a.root, "add", "decisions/untyped.md")
    git(a.root, "commit", "-q", "-m", "hand-written entry")
    refused = r"push to origin \(http://.*\) refused by the remote's checks: .*'type' is required"
    with pytest.raises(PushRefused, match=refused) as caught:
        push(a)
    assert caught.value.exit_code == 4


# ---------------------------------------------------------------- concurrent writers


def test_concurrent_writers_interleaved_rounds(remotes: Path, tmp_path: Path) -> None:
    """Two clones, 100 entries each, 10 rounds of ingest / pull / push: nothing lost, catalogs
    regenerated, no conflict for a person to resolve."""
    url = str(remotes / "team.git")
    a = clone(url, tmp_path / "a", eager_index=False)
    b = clone(url, tmp_path / "b", eager_index=False)
    written: list[str] = []
    paths: set[str] = set()
    for round_no in range(10):
        for vault, who, folder in ((a, A, "pattern"), (b, B, "context")):
            for n in range(10):
                title = f"{who.agent_id} round {round_no} note {n}"
                w = vault.ingest(type=folder, title=title, body=f"Body of {title}.", identity=who)
                written.append(w.sha)
                paths.add(w.path)
            pull(vault, identity=who)  # merge whatever the other pushed (or nothing yet)
            push(vault)  # no one pushed in between: never refused here
    pull(a)
    bare = remotes / "team.git"
    tip = git(bare, "rev-parse", "HEAD").stdout.strip()
    assert heads(a.root, b.root, bare) == {tip}
    reachable = set(git(bare, "rev-list", tip).stdout.split())
    assert len(written) == 200 and set(written) <= reachable
    for v in (a, b):
        entries = {e.path for e in v.entries()}
        assert paths <= entries and len(entries) == 201  # with the seed entry
        assert v.catalog_drift() == []
        assert v.verify().ok, v.verify().problems
        assert git(v.root, "status", "--porcelain").stdout == ""
        assert v.index_status()["current"] is True
        fsck_ok(v.root)
    fsck_ok(bare)
    log = git(bare, "log", "--format=%s", tip).stdout
    assert "MEMORY_CATALOG_FIX" in log and "Merge origin/main" in log


def test_same_entry_edited_on_two_clones_is_a_real_conflict(remotes: Path, tmp_path: Path) -> None:
    url = (remotes / "team.git").as_uri()
    a = clone(url, tmp_path / "a")
    b = clone(url, tmp_path / "b")
    path = next(e.path for e in a.entries())
    a.update(path, body="Kafka, because of consumer groups and replay.", identity=A)
    push(a)
    b.update(path, body="Kafka, though Pulsar was close.", identity=B)
    before = heads(b.root)
    with pytest.raises(MergeConflict) as caught:
        pull(b)
    assert caught.value.paths == [path] and path in caught.value.message
    assert "Nothing was merged" in caught.value.message
    assert heads(b.root) == before  # the merge was aborted, not resolved
    assert not (b.root / ".git" / "MERGE_HEAD").exists()
    assert git(b.root, "status", "--porcelain").stdout == ""
    assert "though Pulsar" in b.get(path).entry.body
    r = run("memory", "--vault", str(b.root), "pull")
    assert r.exit_code == 4 and path in r.output and "git merge origin/main" in r.output
    with pytest.raises(RemoteMoved):
        push(b)


# ---------------------------------------------------------------- time travel across clones


def _iso_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _wait_next_second() -> None:
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.05)


def test_recall_as_of_on_another_clone(remotes: Path, tmp_path: Path) -> None:
    url = str(remotes / "team.git")
    a = clone(url, tmp_path / "a")
    b = clone(url, tmp_path / "b")
    old = a.ingest(
        type="decision", title="Cache with Redis", body="Redis as the session cache.", identity=A
    )
    _wait_next_second()
    between = _iso_now()
    between_rev = old.sha
    _wait_next_second()
    new = a.ingest(
        type="decision",
        title="Cache with Memcached",
        body="Memcached replaces Redis as the session cache.",
        identity=A,
    )
    a.supersede(old.path, new.path, identity=A)
    push(a)
    pull(b)
    for when in (between, between_rev):
        r = run(
            "memory", "--vault", str(b.root), "recall", "session cache", "--as-of", when, "--json"
        )
        assert r.exit_code == 0, r.output
        answer = json.loads(r.output)
        assert answer["commit"] == old.sha
        found = [h["path"] for h in answer["hits"]]
        assert old.path in found and new.path not in found
    now = json.loads(
        run("memory", "--vault", str(b.root), "recall", "session cache", "--json").output
    )
    assert now["hits"][0]["path"] == new.path


def test_recall_as_of_a_date_from_dated_commits(
    remotes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commits written by people (plain git) on given dates, pushed by one clone, pulled by the
    other: ``--as-of 2026-07-14`` answers from the vault of that day."""
    url = str(remotes / "team.git")
    a = clone(url, tmp_path / "a")
    b = clone(url, tmp_path / "b")
    for day, slug, text in (
        ("2026-07-14T10:00:00Z", "grpc-internal", "gRPC for internal services."),
        ("2026-07-20T10:00:00Z", "rest-internal", "REST replaces gRPC for internal services."),
    ):
        doc = a.root / "decisions" / "2026-07" / f"{slug}.md"
        doc.parent.mkdir(parents=True, exist_ok=True)
        doc.write_text(f"---\ntype: decision\ntitle: {slug}\n---\n{text}\n")
        monkeypatch.setenv("GIT_AUTHOR_DATE", day)
        monkeypatch.setenv("GIT_COMMITTER_DATE", day)
        git(a.root, "add", str(doc))
        git(a.root, "commit", "-q", "-m", f"human: {slug}")
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    push(a)
    pull(b)
    r = run(
        "memory",
        "--vault",
        str(b.root),
        "recall",
        "internal services",
        "--as-of",
        "2026-07-14",
        "--json",
    )
    assert r.exit_code == 0, r.output
    found = [h["path"] for h in json.loads(r.output)["hits"]]
    assert "decisions/2026-07/grpc-internal.md" in found
    assert "decisions/2026-07/rest-internal.md" not in found


def test_ssh_urls_go_through_git_ssh_transport(
    remotes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's own SSH transport with scp-style URLs. There is no sshd here, so the ssh program
    is a stand-in that runs the command git asks the far side to run (git-upload-pack,
    git-receive-pack) on this machine; everything else is git's real SSH code path."""
    fake_ssh = tmp_path / "ssh"
    fake_ssh.write_text('#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n')
    fake_ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(fake_ssh))
    url = f"git@example.invalid:{remotes / 'team.git'}"
    monkeypatch.chdir(tmp_path)
    a = clone(url)  # the folder is named like git names it: team
    assert a.root == tmp_path / "team"
    a.ingest(type="context", title="Over ssh", identity=A)
    assert push(a).url == url
    b = clone(url, tmp_path / "b")
    assert "Over ssh" in {e.title for e in b.entries()}
    assert pull(a).mode == "up-to-date"


def test_every_clones_audit_chain_travels_with_push(remotes: Path, tmp_path: Path) -> None:
    url = str(remotes / "team.git")
    a = clone(url, tmp_path / "a", eager_index=False)
    b = clone(url, tmp_path / "b", eager_index=False)
    a.ingest(type="pattern", title="Retry with jitter", body="Backoff with jitter.", identity=A)
    a.recall("retry backoff", limit=1)  # a MEMORY_RECALL event on A's chain
    a_tip = git(a.root, "rev-parse", "refs/clawql/audit").stdout.strip()
    assert push(a).pushed
    a_id = git(a.root, "config", "clawql.cloneId").stdout.strip()
    on_remote = git(remotes / "team.git", "rev-parse", f"refs/clawql/audits/{a_id}")
    assert on_remote.stdout.strip() == a_tip
    pull(b, identity=B)
    fetched = git(b.root, "rev-parse", f"refs/clawql/remotes/origin/audits/{a_id}").stdout.strip()
    assert fetched == a_tip
    events = git(b.root, "log", "--format=%(trailers:key=Clawql-Event,valueonly)", fetched)
    assert "MEMORY_RECALL" in events.stdout.split()
    b.ingest(type="context", title="Ledger owner", body="The ledger team owns it.", identity=B)
    assert push(b).pushed
    b_id = git(b.root, "config", "clawql.cloneId").stdout.strip()
    assert a_id != b_id
    listed = git(remotes / "team.git", "for-each-ref", "--format=%(refname)", "refs/clawql/audits")
    assert set(listed.stdout.split()) == {
        f"refs/clawql/audits/{a_id}",
        f"refs/clawql/audits/{b_id}",
    }
    fsck_ok(remotes / "team.git")


def test_clone_of_a_bare_repository_whose_head_names_an_empty_master(tmp_path: Path) -> None:
    """`git init --bare` (git's default) names `master`; the vault was pushed to `main`."""
    bare = tmp_path / "plain.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=master", str(bare))
    source = Vault.init(tmp_path / "source", identity=A)
    source.ingest(type="decision", title="Use JWT", body="Stateless auth.", identity=A)
    git(source.root, "remote", "add", "origin", str(bare))
    git(source.root, "push", "--quiet", "origin", "main")
    copy = clone(str(bare), tmp_path / "copy", eager_index=False)
    assert git(copy.root, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "main"
    assert [e.title for e in copy.entries() if e.type == "decision"] == ["Use JWT"]
    fsck_ok(copy.root)
