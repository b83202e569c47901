"""``record-change``: a commit range of the fixture repository becomes a ``type: code_change``
vault entry with the affected symbols and files and whether it breaks callers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.codegraph.changes import diff_symbols
from clawql_git.errors import NotFound
from clawql_git.vault.code_changes import record_change

from .conftest import fsck_ok, git
from .test_codegraph import make_repo


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Two more commits: a breaking one (a signature and a removal) and a compatible one."""
    root = make_repo(tmp_path)
    db = root / "app" / "db.py"
    db.write_text(
        db.read_text().replace("def connect() -> Database:", "def connect(url: str) -> Database:")
    )
    util = root / "app" / "util.py"
    util.write_text(
        util.read_text().replace(
            "def get_db() -> object:\n    return object()\n", "def _private() -> None:\n    pass\n"
        )
    )
    commit(root, "connect takes a URL; get_db goes")
    util.write_text(
        util.read_text().replace("return 1", "return 2") + "\n\ndef added() -> None:\n    pass\n"
    )
    commit(root, "helper returns 2")
    return root


def test_diff_symbols(repo: Path) -> None:
    change = diff_symbols(repo, "HEAD~2", "HEAD~1")
    assert change.files == ("app/db.py", "app/util.py")
    kinds = {(s.qualname, s.change) for s in change.symbols}
    assert kinds == {("connect", "signature"), ("get_db", "removed"), ("_private", "added")}
    assert change.breaking
    sig = next(s for s in change.symbols if s.change == "signature")
    assert sig.before == "def connect() -> Database" and sig.after.startswith("def connect(url")
    later = diff_symbols(repo, "HEAD~1", "HEAD")
    assert {(s.qualname, s.change) for s in later.symbols} == {
        ("helper", "body"),
        ("added", "added"),
    }
    assert not later.breaking


def test_record_change_writes_a_code_change_entry(repo: Path, vault: Vault) -> None:
    change, result = record_change(vault, repo, "HEAD~2", "HEAD~1")
    entry = vault.get(result.path)
    front = entry.to_record()["frontmatter"]
    assert front["type"] == "code_change" and front["breaking_change"] is True
    assert front["affected_files"] == ["app/db.py", "app/util.py"]
    assert "app/db.py:connect" in front["affected_symbols"]
    assert result.path.startswith("code_changes/")
    body = entry.to_record()["body"]
    assert "Breaking: connect (signature), get_db (removed)" in body
    assert "connect takes a URL; get_db goes" in body
    assert change.summary() in body
    fsck_ok(vault.root)
    _, compatible = record_change(vault, repo, "HEAD~1", "HEAD")
    assert vault.get(compatible.path).to_record()["frontmatter"]["breaking_change"] is False


def test_a_bad_revision_writes_nothing(repo: Path, vault: Vault) -> None:
    head = git(vault.root, "rev-parse", "HEAD").stdout
    with pytest.raises(NotFound):
        record_change(vault, repo, "no-such-rev", "HEAD")
    assert git(vault.root, "rev-parse", "HEAD").stdout == head


def test_cli_record_change(repo: Path, vault: Vault) -> None:
    done = CliRunner().invoke(
        cli,
        [
            "code",
            "record-change",
            "--from",
            "HEAD~2",
            "--to",
            "HEAD~1",
            "-C",
            str(repo),
            "--vault",
            str(vault.root),
            "--json",
        ],
    )
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["breaking_change"] is True and record["worm_ref"].startswith("git:")
    assert record["affected_files"] == ["app/db.py", "app/util.py"]
    done = CliRunner().invoke(
        cli,
        ["code", "record-change", "--from", "nope", "-C", str(repo), "--vault", str(vault.root)],
    )
    assert done.exit_code == 3 and "error:" in done.output
    # git's --quiet says nothing: the message names the revision, not a bare "rev-parse"
    assert "unknown revision 'nope'" in done.output, done.output
    assert not done.output.rstrip().endswith("--verify:")
