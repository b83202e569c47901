"""Hostile tampering against ``verify`` (issue #14), each case made with the real git.

Every case says what verify can prove: detected without signing, detected only with signing,
or not detectable (the test then checks that verify says so instead of a plain pass)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import StorageError
from clawql_git.gitstore.checkpoints import CHECKPOINTS

from .conftest import git

WRITER = Identity(agent_id="claude-code", session_id="s-1")
FORGED_ENGINE = {
    "GIT_COMMITTER_NAME": "clawql-git",
    "GIT_COMMITTER_EMAIL": "engine@clawql.local",
}
# A rebase that keeps the engine's committer within the second the commits were made would make
# the very same commits (same author, committer and dates): a rewrite must be one.
LATER = {"GIT_COMMITTER_DATE": f"{int(time.time()) + 3600} +0000"}
needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")


# ---------------------------------------------------------------- helpers


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A vault with six engine commits on main and two recall events on the audit chain."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    vault = Vault.init(tmp_path / "vault", identity=WRITER)
    _fill(vault)
    vault.close()
    assert verify(vault.root).ok
    yield vault.root


def _fill(vault: Vault) -> None:
    for n, title in enumerate(["Use Postgres", "Retry with jitter", "Cache tokens", "No ORM"]):
        kind = "decision" if n % 2 == 0 else "pattern"
        vault.ingest(type=kind, title=title, body=f"body {n}", identity=WRITER)
    vault.update(_path(vault.root, "Use Postgres"), body="Postgres 16.", identity=WRITER)
    vault.recall("postgres", identity=WRITER)
    vault.recall("jitter", identity=WRITER)


def _path(root: Path, title: str) -> str:
    slug = title.lower().replace(" ", "-")
    found = git(root, "ls-files", f"*{slug}.md").stdout.split()
    assert found, title
    return found[0]


def verify(root: Path, key: Path | None = None) -> Report:
    """verify through the library and the CLI (exit 1 exactly when problems; each named)."""
    opts = {"signing_key": str(key)} if key else {}
    report = Vault.open(root, **opts).verify()
    env = {"CLAWQL_SIGNING_KEY": str(key)} if key else {}
    r = CliRunner().invoke(cli, ["memory", "--vault", str(root), "verify"], env=env)
    assert (r.exit_code == 1) == (not report.ok), r.output
    for line in [*report.problems, *report.limits]:
        assert line in r.output
    return Report(report.ok, report.problems, report.limits, report.anchored, r.output)


@dataclass(frozen=True)
class Report:
    """verify's answer and the CLI's text."""

    ok: bool
    problems: list[str]
    limits: list[str]
    anchored: bool
    out: str

    def names(self, *words: str) -> bool:
        """Some problem contains every one of ``words``."""
        return any(all(w in p for w in words) for p in self.problems)


def sha(root: Path, rev: str) -> str:
    return git(root, "rev-parse", rev).stdout.strip()


def git_env(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return result.stdout.strip()


def forge_commit(root: Path, message: str, env: dict[str, str] | None = None) -> str:
    """A commit made with git by hand (what is staged), as whoever ``env`` says."""
    git_env(root, "commit", "-q", "--no-verify", "-m", message, env=env)
    return sha(root, "HEAD")


def engine_message(event: str, path: str, agent: str = "claude-code") -> str:
    return (
        f"{event}: {path}\n\nClawql-Event: {event}\nEntry-Path: {path}\nEntry-Type: decision\n"
        f"Agent-Id: {agent}\nSession-Id: s-1\nCorrelation-Id: none\nVerdict: none\n"
        "Confidence: none\n"
    )


def erase_local_records(root: Path) -> None:
    """What a thorough local attacker also removes: checkpoints (and their head), reflogs."""
    (root / ".git" / "clawql" / CHECKPOINTS).unlink(missing_ok=True)
    (root / ".git" / "clawql" / "checkpoints.head").unlink(missing_ok=True)
    git(root, "reflog", "expire", "--expire=now", "--all")


# A careful attacker also rewrites the commit shas the catalogs quote (log.md's worm_refs) to
# the rewritten ones: filter-branch's ``map`` gives the new sha of a commit already rewritten.
REMAP_QUOTED_SHAS = (
    "for f in $(grep -rl 'git:[0-9a-f]\\{40\\}' --include='*.md' . || true); do "
    "for s in $(grep -o 'git:[0-9a-f]\\{40\\}' $f | cut -c5- | sort -u); do "
    'sed -i "s/$s/$(map $s)/g" $f; done; done'
)


def rewrite_entry_in_history(
    root: Path, path: str, env: dict[str, str] | None = None, careful: bool = False
) -> None:
    """Edit an entry's text in every commit that holds it (git filter-branch); ``careful``
    also rewrites the shas the catalogs quote, so the log agrees with the new history."""
    script = f"(test -f {path} && sed -i 's/body 0/FORGED/' {path} || true)"
    if careful:
        script += "; " + REMAP_QUOTED_SHAS
    git_env(
        root,
        "filter-branch",
        "-f",
        "--tree-filter",
        script,
        "main",
        env={"FILTER_BRANCH_SQUELCH_WARNING": "1", **(env or {})},
    )
    shutil.rmtree(root / ".git" / "refs" / "original", ignore_errors=True)
    git(root, "reset", "-q", "--hard")


def ssh_key(tmp_path: Path) -> Path:
    key = tmp_path / "vault_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key


def signed_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A vault every engine commit of which is signed with the vault's key."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    key = ssh_key(tmp_path)
    vault = Vault.init(tmp_path / "signed", identity=WRITER, signing_key=str(key))
    vault.enable_signing()
    _fill(vault)
    vault.close()
    report = verify(vault.root, key)
    assert report.ok and not report.names("not signed"), report.out
    return vault.root, key


# ---------------------------------------------------------------- substituted objects


def test_replaced_blob_is_reported(root: Path) -> None:
    path = _path(root, "Use Postgres")
    real = sha(root, f"HEAD:{path}")
    (root / "forged.md").write_text("---\ntype: decision\ntitle: Use Postgres\n---\nUse MySQL\n")
    fake = git(root, "hash-object", "-w", "forged.md").stdout.strip()
    (root / "forged.md").unlink()
    git(root, "replace", real, fake)
    assert "MySQL" in git(root, "show", f"HEAD:{path}").stdout  # git now shows the forgery
    report = verify(root)
    assert report.names(f"refs/replace/{real}", fake, "git replace"), report.out


def test_replaced_commit_is_reported(root: Path) -> None:
    old = sha(root, "HEAD~1")
    body = git(root, "cat-file", "commit", old).stdout.replace(
        "Agent-Id: claude-code", "Agent-Id: x"
    )
    fake = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(root, "replace", old, fake)
    assert "Agent-Id: x" in git(root, "log", "-1", "--format=%B", old).stdout
    assert verify(root).names(f"refs/replace/{old}"), verify(root).out


def test_replace_graft_is_reported(root: Path) -> None:
    hidden = sha(root, "HEAD~1")
    git(root, "replace", "--graft", "HEAD", "HEAD~3")
    assert hidden not in git(root, "log", "--format=%H").stdout
    assert verify(root).names("refs/replace/", "git replace")


def test_info_grafts_is_reported(root: Path) -> None:
    # libgit2 (pygit2) honours info/grafts, unlike refs/replace: the walk itself is fooled
    (root / ".git" / "info" / "grafts").write_text(f"{sha(root, 'HEAD')} {sha(root, 'HEAD~3')}\n")
    report = verify(root)
    assert report.names("info/grafts", "graft"), report.out


def test_forged_shallow_boundary_is_reported(root: Path) -> None:
    (root / ".git" / "shallow").write_text(sha(root, "HEAD~2") + "\n")
    assert verify(root).names("shallow", "hidden"), verify(root).out


# ---------------------------------------------------------------- rewrites


def test_amend_of_the_last_commit(root: Path) -> None:
    old = sha(root, "HEAD")
    git(root, "commit", "-q", "--amend", "--no-verify", "-m", "rewritten")
    assert verify(root).names(old, "no longer an ancestor")


def test_reset_hard_moves_main_backwards(root: Path) -> None:
    old = sha(root, "HEAD")
    git(root, "reset", "-q", "--hard", "HEAD~2")
    assert verify(root).names(old, "history was rewritten")


def test_a_commit_deleted_from_the_middle(root: Path) -> None:
    dropped = sha(root, "HEAD~2")
    git(root, "rebase", "-q", "--onto", "HEAD~3", "HEAD~2", "main")
    assert dropped not in git(root, "log", "--format=%H").stdout
    assert verify(root).names(dropped, "no longer an ancestor")


def test_a_changed_trailer(root: Path) -> None:
    message = git(root, "log", "-1", "--format=%B").stdout.replace(
        "Agent-Id: claude-code", "Agent-Id: someone-else"
    )
    old = sha(root, "HEAD")
    new = forge_commit_amend(root, message)
    report = verify(root)
    assert report.names(old, "no longer an ancestor")
    assert report.names(new, "not the engine")


def forge_commit_amend(root: Path, message: str, env: dict[str, str] | None = None) -> str:
    git_env(root, "commit", "-q", "--amend", "--no-verify", "-m", message, env=env)
    return sha(root, "HEAD")


def test_an_older_entry_edited_and_history_rewritten(root: Path) -> None:
    first = sha(root, "HEAD~4")
    rewrite_entry_in_history(root, _path(root, "Use Postgres"))
    assert "FORGED" in git(root, "log", "-p", "--format=").stdout
    report = verify(root)
    assert report.names(first, "no longer an ancestor")


def test_rewrite_and_deleted_checkpoints_seen_in_the_reflog(root: Path) -> None:
    first = sha(root, "HEAD~4")
    rewrite_entry_in_history(root, _path(root, "Use Postgres"), FORGED_ENGINE)
    (root / ".git" / "clawql" / CHECKPOINTS).unlink()
    report = verify(root)
    assert report.names(first, "reflog entry", "no longer an ancestor"), report.out


def test_checkpoint_lines_deleted_are_seen_in_the_reflog(root: Path) -> None:
    path = root / ".git" / "clawql" / CHECKPOINTS
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(x for x in lines if not x.startswith("refs/heads/main")))
    assert verify(root).names("has no checkpoint", "were deleted")


def test_a_checkpoint_line_edited_breaks_the_chain(root: Path) -> None:
    path = root / ".git" / "clawql" / CHECKPOINTS
    lines = path.read_text().splitlines(keepends=True)
    ref, _old, link = lines[2].split()
    lines[2] = f"{ref} {sha(root, 'HEAD~5')} {link}\n"
    path.write_text("".join(lines))
    assert verify(root).names("checkpoint line 3", "does not follow")


def test_rewrite_with_every_local_record_erased_is_only_self_consistent(root: Path) -> None:
    """Log shas remapped, checkpoints and reflogs gone: nothing local can show it."""
    rewrite_entry_in_history(root, _path(root, "Use Postgres"), careful=True)
    erase_local_records(root)
    report = verify(root)
    assert report.ok and not report.anchored, report.out
    assert "self-consistent only" in report.out and "no anchor" in report.out


@needs_ssh
def test_rewrite_with_every_local_record_erased_is_caught_by_signatures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, key = signed_vault(tmp_path, monkeypatch)
    git(root, "rebase", "-q", "--force-rebase", "HEAD~3")  # re-made commits lose their signature
    erase_local_records(root)
    report = verify(root, key)
    assert not report.ok and report.names("not signed by an allowed key"), report.out


def test_rewrite_after_a_push_is_caught_by_the_remote_copy(root: Path, tmp_path: Path) -> None:
    remote = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    pushed = sha(root, "HEAD~1")
    git_env(root, "rebase", "-q", "--force-rebase", "HEAD~3", env={**FORGED_ENGINE, **LATER})
    (root / ".git" / "clawql" / CHECKPOINTS).unlink()
    git(root, "reflog", "expire", "--expire=now", "refs/heads/main", "HEAD")
    report = verify(root)
    assert report.names(pushed, "origin/main", "copied"), report.out


# ---------------------------------------------------------------- a clone has no anchor


def clone(root: Path, target: Path) -> Path:
    r = CliRunner().invoke(cli, ["memory", "clone", str(root), str(target)])
    assert r.exit_code == 0, r.output
    return target


def test_a_clone_of_a_naively_rewritten_vault_shows_it_in_its_log(
    root: Path, tmp_path: Path
) -> None:
    """log.md quotes the sha of every earlier engine commit: a rewrite that leaves it shows."""
    rewrite_entry_in_history(root, _path(root, "Use Postgres"))
    assert verify(clone(root, tmp_path / "clone")).names("log.md", "edited by hand")


def test_a_clone_of_a_rewritten_vault_says_it_has_no_anchor(root: Path, tmp_path: Path) -> None:
    rewrite_entry_in_history(root, _path(root, "Use Postgres"), careful=True)
    target = clone(root, tmp_path / "clone")
    report = verify(target)
    assert report.ok and not report.anchored
    assert "no anchor" in report.out and "self-consistent only" in report.out
    r = CliRunner().invoke(cli, ["memory", "--vault", str(target), "verify", "--json"])
    record = json.loads(r.output)
    assert r.exit_code == 0 and record["ok"] and record["anchored"] is False
    assert any("no anchor" in x for x in record["limits"])


# ---------------------------------------------------------------- forged engine commits


def _hand_entry(root: Path, title: str) -> str:
    path = f"decisions/{title.lower().replace(' ', '-')}.md"
    (root / path).parent.mkdir(exist_ok=True)
    (root / path).write_text(f"---\ntype: decision\ntitle: {title}\n---\nforged\n")
    git(root, "add", path)
    return path


AGENT_AUTHOR = {"GIT_AUTHOR_NAME": "claude-code", "GIT_AUTHOR_EMAIL": "claude-code@agents.clawql"}


def test_hand_commit_with_consistent_forged_trailers_is_not_provable_without_signing(
    root: Path,
) -> None:
    path = _hand_entry(root, "Drop the audit")
    forged = forge_with_catalogs(root, engine_message("MEMORY_INGEST", path))
    log = Vault.open(root).log()
    assert any(r.sha == forged and r.agent == "claude-code" for r in log)  # attributed
    report = verify(root)
    assert report.ok, report.out  # consistent in every way git can see
    assert any("cannot be told from the engine's" in x for x in report.limits), report.out


def forge_with_catalogs(root: Path, message: str) -> str:
    """A forged engine commit with the catalogs the engine would have written (the log line of
    the newest commit says ``worm_ref: pending``, so amending them in converges)."""
    forge_commit(root, message, {**AGENT_AUTHOR, **FORGED_ENGINE})
    vault = Vault.open(root)
    head = vault.store.head_commit()
    assert head is not None
    for path, (_, want) in vault.cataloger.drift(head).items():
        if want is None:
            (root / path).unlink()
        else:
            (root / path).write_bytes(want)
        git(root, "add", "-A", path)
    vault.close()
    forged = forge_commit_amend(root, message, {**AGENT_AUTHOR, **FORGED_ENGINE})
    git(root, "reflog", "delete", "refs/heads/main@{1}", "HEAD@{1}")  # the draft
    return forged


def test_hand_commit_with_forged_trailers_but_a_person_as_committer(root: Path) -> None:
    path = _hand_entry(root, "Drop the audit")
    forged = forge_commit(root, engine_message("MEMORY_INGEST", path), AGENT_AUTHOR)
    assert verify(root).names(forged, "not the engine")


@needs_ssh
def test_hand_commit_with_forged_trailers_is_caught_with_signing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, key = signed_vault(tmp_path, monkeypatch)
    path = _hand_entry(root, "Drop the audit")
    forged = forge_with_catalogs(root, engine_message("MEMORY_INGEST", path))
    report = verify(root, key)
    assert report.names(forged, "not signed by an allowed key"), report.out


@needs_ssh
def test_agent_authored_hand_commit_without_trailers_is_caught_with_signing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, key = signed_vault(tmp_path, monkeypatch)
    _hand_entry(root, "Sneaky")
    forged = forge_commit(root, "add a note", AGENT_AUTHOR)
    assert verify(root, key).names(forged, "author claude-code@agents.clawql", "not signed")


@needs_ssh
def test_a_signed_commit_rewritten_keeps_no_good_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copying the gpgsig header onto changed content does not carry the signature over."""
    root, key = signed_vault(tmp_path, monkeypatch)
    raw = git(root, "cat-file", "commit", "HEAD~1").stdout
    body = raw.replace("Agent-Id: claude-code", "Agent-Id: mallory")
    fake = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    head = git(root, "cat-file", "commit", "HEAD").stdout
    head_body = head.replace(f"parent {sha(root, 'HEAD~1')}", f"parent {fake}")
    top = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=head_body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(root, "update-ref", "refs/heads/main", top)
    erase_local_records(root)
    report = verify(root, key)
    assert report.names(fake, "not signed") and report.names(top, "not signed"), report.out


def test_catalog_fix_label_on_an_entry_change(root: Path) -> None:
    path = _path(root, "Cache tokens")
    (root / path).write_text((root / path).read_text().replace("body 2", "rewritten"))
    git(root, "add", path)
    message = (
        "MEMORY_CATALOG_FIX: regenerate catalogs\n\nClawql-Event: MEMORY_CATALOG_FIX\n"
        "Entry-Path: none\nAgent-Id: claude-code\n"
    )
    forged = forge_commit(root, message, FORGED_ENGINE)
    assert verify(root).names(forged, "MEMORY_CATALOG_FIX", f"changed {path} without naming it")


def test_a_commit_whose_entry_path_lies(root: Path) -> None:
    named = _path(root, "No ORM")
    changed = _path(root, "Retry with jitter")
    (root / changed).write_text((root / changed).read_text() + "\nextra\n")
    git(root, "add", changed)
    forged = forge_commit(root, engine_message("MEMORY_UPDATE", named), FORGED_ENGINE)
    report = verify(root)
    assert report.names(forged, f"names Entry-Path {named} but did not change it")
    assert report.names(forged, f"changed {changed} without naming it")


def test_a_stored_worm_ref_pointing_elsewhere_is_never_served(root: Path) -> None:
    """worm_ref is materialised from history on every read: a stored one cannot mislead."""
    path = _path(root, "No ORM")
    elsewhere = sha(root, "HEAD~4")
    text = (root / path).read_text().replace("---\n", f"---\nworm_ref: git:{elsewhere}\n", 1)
    (root / path).write_text(text)
    git(root, "add", path)
    forge_commit(root, "hand edit")
    shown = Vault.open(root).get(path, identity=WRITER)
    assert shown.last_ref == f"git:{sha(root, 'HEAD')}" != f"git:{elsewhere}"


def test_log_md_edited_by_hand(root: Path) -> None:
    log = root / "log.md"
    assert log.is_file()
    log.write_text(log.read_text().replace("claude-code", "someone-else"))
    git(root, "add", "log.md")
    forge_commit(root, "tidy the log")
    assert verify(root).names("log.md", "edited by hand")


# ---------------------------------------------------------------- the audit ref


def test_audit_ref_deleted_with_its_checkpoint_lines(root: Path) -> None:
    git(root, "update-ref", "-d", "refs/clawql/audit")
    path = root / ".git" / "clawql" / CHECKPOINTS
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(x for x in lines if not x.startswith("refs/clawql/audit")))
    report = verify(root)
    assert report.names("lines were cut from its end"), report.out


def test_audit_ref_deleted_with_the_whole_checkpoint_file(root: Path) -> None:
    git(root, "update-ref", "-d", "refs/clawql/audit")
    (root / ".git" / "clawql" / CHECKPOINTS).unlink()
    assert verify(root).names("has no checkpoint")


def test_checkpoints_survive_a_torn_last_line(root: Path) -> None:
    path = root / ".git" / "clawql" / CHECKPOINTS
    with open(path, "a") as handle:
        handle.write("refs/heads/main 0123")  # a crash mid-append
    Vault.open(root).ingest(type="context", title="After the crash", identity=WRITER)
    assert verify(root).ok


@needs_ssh
def test_required_signing_makes_a_rewrite_that_drops_every_signature_fail(
    root: Path, tmp_path: Path
) -> None:
    """Without the policy a rewrite from the root leaves nothing signed (verify says signatures
    prove nothing); with ``require_signed`` committed, every engine commit after it must be."""
    key = ssh_key(tmp_path)
    (root / ".clawql" / "allowed_signers").write_text(
        f"claude-code@agents.clawql {Path(f'{key}.pub').read_text().strip()}\n"
    )
    toml = root / ".clawql" / "vault.toml"
    toml.write_text(
        toml.read_text()
        + '\n[policy]\nrequire_signed = true\nallowed_signers = ".clawql/allowed_signers"\n'
    )
    git(root, "add", ".clawql")
    forge_commit(root, "policy: signed engine commits")
    vault = Vault.open(root, signing_key=str(key))
    vault.enable_signing()
    vault.ingest(type="context", title="Signed note", identity=WRITER)
    vault.close()
    assert verify(root, key).ok
    git_env(root, "rebase", "-q", "--force-rebase", "--root", env=FORGED_ENGINE)
    erase_local_records(root)
    report = verify(root, key)
    assert report.names("not signed by an allowed key"), report.out
    (root / ".clawql" / "allowed_signers").unlink()  # the same rewrite, signing only local
    git(root, "rm", "-q", "--cached", ".clawql/allowed_signers")
    toml.write_text(toml.read_text().split("\n[policy]")[0] + "\n")
    git(root, "add", ".clawql")
    git_env(root, "commit", "-q", "--amend", "--no-edit", env=FORGED_ENGINE)
    git_env(root, "rebase", "-q", "--force-rebase", "--root", env=FORGED_ENGINE)
    erase_local_records(root)
    report = verify(root, key)
    assert any("signatures prove nothing here yet" in x for x in report.limits), report.out


def test_audit_events_deleted_after_a_push_are_caught_by_the_fetched_copy(
    root: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    for command in ("push", "pull"):  # the pull fetches the audit chains back
        r = CliRunner().invoke(cli, ["memory", "--vault", str(root), command])
        assert r.exit_code == 0, r.output
    copy = git(root, "for-each-ref", "--format=%(refname)", "refs/clawql/remotes/").stdout.split()
    assert len(copy) == 1
    tip = sha(root, copy[0])
    git(root, "update-ref", "refs/clawql/audit", sha(root, f"{tip}~1"))  # the pushed tip dropped
    erase_local_records(root)
    report = verify(root)
    assert report.names(tip, "team remote", "audit events were deleted"), report.out


def test_a_commit_whose_checkpoint_was_never_written_is_a_limit_not_tampering(
    root: Path,
) -> None:
    """A process killed between its commit and its checkpoint: the chain is whole, so no line
    was taken out; verify says the commit is unrecorded instead of crying tampering."""
    path = root / ".git" / "clawql" / CHECKPOINTS
    aside = path.with_name("aside")
    path.rename(aside)
    path.mkdir()  # the append fails after the ref moved, as a kill there would leave it
    with pytest.raises(StorageError):
        Vault.open(root).ingest(type="context", title="Unrecorded", identity=WRITER)
    path.rmdir()
    aside.rename(path)
    report = verify(root)
    assert report.ok, report.out
    assert any("have no checkpoint" in x and sha(root, "HEAD") in x for x in report.limits)


def test_audit_ref_deleted_with_every_local_record_is_not_detectable(root: Path) -> None:
    """Never pushed, checkpoints, their head and reflogs erased: nothing records the chain.
    verify cannot see it and says the history is only self-consistent."""
    git(root, "update-ref", "-d", "refs/clawql/audit")
    erase_local_records(root)
    report = verify(root)
    assert report.ok and not report.anchored
    assert "self-consistent only" in report.out


@needs_ssh
def test_a_configured_signing_key_signs_every_engine_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key in the settings ($CLAWQL_SIGNING_KEY) signs every write, with no --sign: otherwise
    verify, which holds every engine commit after the first signed one to the key, would fail
    on the writes the key did not sign."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    key = ssh_key(tmp_path)
    root = Vault.init(tmp_path / "v", identity=WRITER).root
    monkeypatch.setenv("CLAWQL_SIGNING_KEY", str(key))
    written = Vault.open(root).ingest(type="context", title="Signed by setting", identity=WRITER)
    r = CliRunner().invoke(
        cli, ["memory", "--vault", str(root), "ingest", "--type", "context", "--title", "By CLI"]
    )
    assert r.exit_code == 0, r.output
    for rev in (written.sha, "HEAD"):
        raw = git(root, "cat-file", "commit", rev).stdout
        assert "-----BEGIN SSH SIGNATURE-----" in raw, rev
    assert verify(root, key).ok
