"""Bad input: a clear error naming the problem, exit code 2, and nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput
from clawql_git.model.entry import Entry, edit_frontmatter

from .conftest import git

AWS_KEY = "AKIA" + "QX7RTBZ3L5MNK2PW"
PRIVATE_KEY = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\n-----END RSA PRIVATE KEY-----"
)
GITHUB = "ghp_" + "Zx9Qa7Lm3Np5Rt8Vw2Yb4Cd6Ef1Gh0Jk2Ml4N"
OPENAI = "sk-proj-" + "Qa7Lm3Np5Rt8Vw2Yb4Cd6Ef1Gh0Jk2Ml4NzX9"
SLACK = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
STRIPE = "sk_live_" + "51HqLm3Np5Rt8Vw2Yb4Cd6Ef"
PASSWORD = "password=" + "Xk9#qL2!vR7$mP4z"


def snapshot(root: Path) -> tuple[str, str, list[str]]:
    """HEAD, status and the set of files: everything a failed write must leave as it was."""
    files = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts and p.is_file()
    )
    head = git(root, "rev-parse", "HEAD").stdout
    return head, git(root, "status", "--porcelain").stdout, files


def doc(fm: str, body: str = "Body.\n") -> str:
    return f"---\n{fm}---\n{body}"


BAD_DOCUMENTS: dict[str, tuple[str | bytes, str]] = {
    "missing type": (doc("title: T\n"), "'type' is required"),
    "empty type": (doc("type: ''\ntitle: T\n"), "must not be empty"),
    "type not plain": (doc("type: 'decision/../x'\ntitle: T\n"), "not a plain name"),
    "type with space": (doc("type: my type\ntitle: T\n"), "not a plain name"),
    "invalid yaml": (doc("type: decision\ntitle: [unclosed\n"), "not valid YAML"),
    "not a mapping": (doc("- type\n- decision\n"), "must be a YAML mapping"),
    "alias bomb": (
        doc("type: decision\ntitle: T\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"),
        "anchor or alias",
    ),
    "non utf8": (b"---\ntype: decision\ntitle: T\n---\nbad \xff\xfe bytes\n", "not valid UTF-8"),
    "nul byte": (b"---\ntype: decision\ntitle: T\n---\nnul \x00 here\n", "NUL"),
    "confidence": (doc("type: decision\ntitle: T\nconfidence_score: 1.5\n"), "confidence_score"),
    "timestamp": (doc("type: decision\ntitle: T\ntimestamp: last tuesday\n"), "ISO 8601"),
    "title escapes": (doc("type: decision\ntitle: ../../etc/passwd\n"), "escapes the vault"),
    "title reserved": (doc("type: decision\ntitle: Index\n"), "reserved"),
    "aws key": (doc("type: decision\ntitle: T\n", f"key {AWS_KEY}\n"), "secret"),
    "private key": (doc("type: decision\ntitle: T\n", PRIVATE_KEY + "\n"), "secret"),
    "github token": (doc("type: decision\ntitle: T\n", f"use {GITHUB}\n"), "secret"),
    "openai key": (doc("type: decision\ntitle: T\n", f"OPENAI_API_KEY={OPENAI}\n"), "secret"),
    "slack token": (doc("type: decision\ntitle: T\n", f"{SLACK}\n"), "secret"),
    "stripe key": (doc("type: decision\ntitle: T\n", f"{STRIPE}\n"), "secret"),
    "password": (doc("type: decision\ntitle: T\n", f"db {PASSWORD}\n"), "secret"),
    "secret in frontmatter": (doc(f"type: decision\ntitle: T\nkey: {AWS_KEY}\n"), "secret"),
    "no closing fence": ("---\ntype: decision\ntitle: T\nbody\n", "no closing"),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_documents_are_refused_and_nothing_is_written(vault: Vault, case: str) -> None:
    vault.close()
    text, message = BAD_DOCUMENTS[case]
    before = snapshot(vault.root)
    with pytest.raises(InvalidInput, match=message):
        vault.ingest_markdown(text)
    assert snapshot(vault.root) == before


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_cli_exits_2_with_a_clear_message(vault: Vault, tmp_path: Path, case: str) -> None:
    vault.close()
    text, message = BAD_DOCUMENTS[case]
    src = tmp_path / "entry.md"
    src.write_bytes(text if isinstance(text, bytes) else text.encode())
    before = snapshot(vault.root)
    result = CliRunner().invoke(cli, ["memory", "--vault", str(vault.root), "ingest", str(src)])
    assert result.exit_code == 2, result.output
    assert message.lower() in result.output.lower()
    assert snapshot(vault.root) == before


@pytest.mark.parametrize(
    "path, message",
    [
        ("../outside.md", "'..'"),
        ("/etc/x.md", "absolute"),
        (".git/config.md", "reserved"),
        ("index.md", "reserved"),
        ("decisions/index.md", "reserved"),
        ("log.md", "reserved"),
        ("decisions/x.txt", "must end in"),
        ("a/./b.md", "'..'"),
    ],
)
def test_unsafe_paths(vault: Vault, path: str, message: str) -> None:
    vault.close()
    before = snapshot(vault.root)
    with pytest.raises(InvalidInput, match=message):
        vault.ingest_markdown(doc("type: decision\ntitle: T\n"), path=path)
    assert snapshot(vault.root) == before


def test_body_over_the_limit(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", max_body_bytes=1000)
    before = snapshot(v.root)
    with pytest.raises(InvalidInput, match="over the limit of 1000 bytes"):
        v.ingest(type="context", title="Big", body="x" * 1001)
    assert snapshot(v.root) == before
    v.ingest(type="context", title="Small", body="x" * 1000)


def test_default_limit_is_one_mebibyte(vault: Vault) -> None:
    with pytest.raises(InvalidInput, match="1048576"):
        vault.ingest(type="context", title="Huge", body="word " * 220_000)


def test_cli_flag_errors(vault: Vault) -> None:
    run = CliRunner().invoke
    base = ["memory", "--vault", str(vault.root), "ingest"]
    r = run(cli, [*base, "--title", "No type"])
    assert r.exit_code == 2 and "--type" in r.output
    r = run(cli, [*base, "--type", "decision", "--title", "T", "--confidence", "2"])
    assert r.exit_code == 2 and "0..1" in r.output
    r = run(cli, [*base, "--type", "bad type!", "--title", "T"])
    assert r.exit_code == 2 and "plain name" in r.output
    r = run(cli, [*base, "--type", "decision", "--title", "T", "--body", f"k {AWS_KEY}"])
    assert r.exit_code == 2 and "secret" in r.output and AWS_KEY not in r.output


def test_cli_json_error(vault: Vault) -> None:
    r = CliRunner().invoke(
        cli, ["memory", "--vault", str(vault.root), "ingest", "--title", "x", "--json"]
    )
    assert r.exit_code == 2 and '"error": "InvalidInput"' in r.output


def test_update_validates_too(vault: Vault) -> None:
    a = vault.ingest(type="decision", title="Keep", body="fine")
    vault.close()
    before = snapshot(vault.root)
    with pytest.raises(InvalidInput, match="secret"):
        vault.update(a.path, body=f"now with {GITHUB}")
    with pytest.raises(InvalidInput, match="confidence_score"):
        vault.update(a.path, changes={"confidence_score": -1})
    with pytest.raises(InvalidInput, match="type cannot change"):
        vault.update(a.path, changes={"type": "pattern"})
    assert snapshot(vault.root) == before


# ---------------------------------------------------------------- unknown keys round trip

ENGINE_KEYS = {"type", "title", "timestamp", "status", "description", "tags", "aliases"}
# YAML 1.1 reads bare yes/no/on/off/true/false/null as non-strings; such keys must be quoted.
KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda k: k not in ENGINE_KEYS and isinstance(next(iter(yaml.safe_load(f"{k}: 1"))), str)
)
SCALARS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30),
)
VALUES = st.one_of(
    SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(KEYS, SCALARS, max_size=2)
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(extra=st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), style=st.booleans())
def test_unknown_keys_survive_round_trip(
    tmp_path_factory: pytest.TempPathFactory, extra: dict[str, object], style: bool
) -> None:
    if style:  # flow style values, written the way a person might
        fm_extra = "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in extra.items())
    else:
        fm_extra = yaml.safe_dump(extra, allow_unicode=True, sort_keys=False)
    text = f"---\ntype: decision\ntitle: Round trip\n{fm_extra}---\nbody\n"
    entry = Entry.parse("decisions/2026-01/round-trip.md", text)
    edited = entry.with_changes({"status": "superseded", "superseded_by": "x/y"})
    assert fm_extra in edited.frontmatter  # the unknown keys' bytes, unchanged
    assert {k: edited.meta[k] for k in extra} == extra
    back = edited.with_changes({"status": None, "superseded_by": None})
    assert back.frontmatter == entry.frontmatter


def test_unknown_keys_survive_ingest_update_and_archive(vault: Vault) -> None:
    fm = "type: decision\ntitle: Keep my keys\nreviewed_by:   priya   # a comment\nx_meta: {a: 1}\n"
    a = vault.ingest_markdown(doc(fm))
    vault.update(a.path, body="changed", changes={"description": "new"})
    arc = vault.archive(a.path)
    stored = (vault.root / arc.path).read_text()
    assert "reviewed_by:   priya   # a comment\nx_meta: {a: 1}\n" in stored


def test_edit_frontmatter_keeps_comments_and_order() -> None:
    fm = "# leading comment\ntype: decision\nfoo:\n  - a   # inline\n  - b\ntitle: T\n"
    out = edit_frontmatter(fm, {"status": "retracted"})
    assert out.startswith("# leading comment\ntype: decision\nfoo:\n  - a   # inline\n  - b\n")
    assert out.endswith("status: retracted\n")


def test_env_is_isolated() -> None:
    assert not any(k.startswith("CLAWQL_") for k in os.environ)
