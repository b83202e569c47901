"""Bugs found in review, each pinned by a test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput, VaultStateError

from .conftest import AGENT, git


def run(root: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["memory", "--vault", str(root), *args])
    return r.exit_code, r.output


def test_file_ingest_with_flags_keeps_the_file_body(vault: Vault, tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("---\ntype: context\n---\nIMPORTANT FILE BODY\n")
    code, out = run(
        vault.root, "ingest", str(doc), "--type", "context", "--title", "From file", "--json"
    )
    assert code == 0, out
    assert "IMPORTANT FILE BODY" in (vault.root / json.loads(out)["path"]).read_text()
    code, out = run(
        vault.root, "ingest", str(doc), "--title", "F2", "--body", "flag body", "--json"
    )
    text = (vault.root / json.loads(out)["path"]).read_text()
    assert "flag body" in text and "IMPORTANT" not in text


def test_path_flag_is_used_and_validated(vault: Vault) -> None:
    code, out = run(
        vault.root,
        "ingest",
        "--type",
        "decision",
        "--title",
        "z",
        "--path",
        "context/2026-12/z.md",
        "--json",
    )
    assert code == 0 and json.loads(out)["path"] == "context/2026-12/z.md"
    code, out = run(
        vault.root, "ingest", "--type", "decision", "--title", "y", "--path", "decisions/x.txt"
    )
    assert code == 2 and "must end in" in out


def test_change_commands_refuse_catalogs(vault: Vault) -> None:
    head = git(vault.root, "rev-parse", "HEAD").stdout
    for args in (
        ["archive", "index.md"],
        ["update", "log.md", "--body", "x"],
        ["retract", "decisions/index.md"],
    ):
        code, out = run(vault.root, *args)
        assert code == 2 and "reserved" in out, (args, out)
    assert git(vault.root, "rev-parse", "HEAD").stdout == head
    assert vault.verify().ok


def test_supersede_refuses_itself_and_non_current(vault: Vault) -> None:
    a = vault.ingest(type="decision", title="A", identity=AGENT)
    b = vault.ingest(type="decision", title="B", identity=AGENT)
    with pytest.raises(InvalidInput, match="itself"):
        vault.supersede(a.path, a.path)
    vault.supersede(a.path, b.path)
    with pytest.raises(VaultStateError, match="superseded"):
        vault.supersede(b.path, a.path)


def test_limits_must_be_positive(vault: Vault) -> None:
    code, out = run(vault.root, "recall", "x", "--limit", "-1")
    assert code == 2 and "--limit" in out
    code, out = run(vault.root, "recent", "--days", "-5")
    assert code == 2


def test_update_refuses_empty_title_and_non_string_pointer(vault: Vault) -> None:
    a = vault.ingest(type="decision", title="Keep title", identity=AGENT)
    code, out = run(vault.root, "update", a.path, "--set", "title=")
    assert code == 2 and "title must not be empty" in out
    code, out = run(vault.root, "update", a.path, "--set", "superseded_by=[1, 2]")
    assert code == 2 and "superseded_by must be a string" in out


def test_export_to_an_unwritable_place_is_a_clear_error(vault: Vault) -> None:
    code, out = run(vault.root, "export", "--flywheel", "-o", "/proc/nope/x.jsonl")
    assert code == 2 and "cannot write" in out and "Traceback" not in out
