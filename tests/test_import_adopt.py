"""Bringing Markdown in: import of the ADR corpus, adopting an Obsidian folder, seeding."""

from __future__ import annotations

import posixpath
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput
from clawql_git.links import extract_links

from .conftest import ADR_SAMPLE, AGENT, SAMPLE, adr_corpus, fsck_ok, git

JABREF = ADR_SAMPLE / "JabRef__jabref"  # 20 records in the repo: these tests run anywhere


def adr_subset(tmp_path: Path, n: int = 12) -> Path:
    src = sorted(JABREF.rglob("*.md"))[:n]
    dest = tmp_path / "adrs"
    for f in src:
        target = dest / f.relative_to(JABREF)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    return dest


def test_import_one_commit_per_file(vault: Vault, tmp_path: Path) -> None:
    src = adr_subset(tmp_path)
    before = int(git(vault.root, "rev-list", "--count", "HEAD").stdout)
    result = CliRunner().invoke(
        cli, ["memory", "--vault", str(vault.root), "import", str(src), "--type", "decision"]
    )
    assert result.exit_code == 0, result.output
    assert int(git(vault.root, "rev-list", "--count", "HEAD").stdout) == before + 12
    entries = [e for e in vault.entries() if e.meta.get("source_path")]
    assert len(entries) == 12
    first = sorted(src.rglob("*.md"))[0]
    rel = first.relative_to(src).as_posix()
    imported = next(e for e in entries if e.meta["source_path"] == rel)
    assert imported.type == "decision"
    heading = next(x for x in first.read_text().splitlines() if x.startswith("# "))
    assert imported.title == heading[2:].strip()
    assert imported.meta.get("parent") == "Decision Records"  # original frontmatter kept
    assert vault.catalog_drift() == []
    fsck_ok(vault.root)


def test_import_batch_is_one_commit(vault: Vault, tmp_path: Path) -> None:
    src = adr_subset(tmp_path, 20)
    before = int(git(vault.root, "rev-list", "--count", "HEAD").stdout)
    result = CliRunner().invoke(
        cli,
        [
            "memory",
            "--vault",
            str(vault.root),
            "import",
            str(src),
            "--type",
            "decision",
            "--batch",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert int(git(vault.root, "rev-list", "--count", "HEAD").stdout) == before + 1
    paths = git(vault.root, "log", "-1", "--format=%(trailers:key=Entry-Path,valueonly)").stdout
    assert len(paths.split()) == 20
    assert vault.catalog_drift() == []


def test_import_of_the_whole_adr_corpus(vault: Vault) -> None:
    corpus = adr_corpus()  # the 87 links between one project's records need all of them
    results = CliRunner().invoke(
        cli,
        [
            "memory",
            "--vault",
            str(vault.root),
            "import",
            str(corpus),
            "--type",
            "decision",
            "--batch",
        ],
    )
    assert results.exit_code == 0, results.output
    assert len(vault.entries()) == len(list(corpus.rglob("*.md")))
    assert vault.catalog_drift() == []
    # Import renames files; links written against the source layout still resolve, each to the
    # entry imported from the file it names (never to a same-named file of another project).
    by_source = {e.meta["source_path"]: e.path for e in vault.entries()}
    expected: set[tuple[str, str]] = set()
    for file in corpus.rglob("*.md"):
        rel = file.relative_to(corpus).as_posix()
        for ref in extract_links(file.read_text()):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), ref.target))
            if ref.kind == "markdown" and "://" not in ref.target and target in by_source:
                expected.add((by_source[rel], by_source[target]))
    assert len(expected) > 80  # 87 distinct links between ADRs of one project
    edges = {(e.source, e.target) for e in vault.link_graph().edges()}
    assert expected - edges == set()


def test_import_refuses_everything_when_one_file_is_bad(vault: Vault, tmp_path: Path) -> None:
    src = adr_subset(tmp_path, 3)
    (src / "bad.md").write_text("---\ntype: [oops\n---\n")
    head = git(vault.root, "rev-parse", "HEAD").stdout
    with pytest.raises(InvalidInput, match=r"bad\.md"):
        vault.import_folder(src, type="decision", identity=AGENT)
    assert git(vault.root, "rev-parse", "HEAD").stdout == head


def obsidian_folder(tmp_path: Path) -> Path:
    root = tmp_path / "obsidian"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / "Projects").mkdir()
    (root / "Projects" / "Alpha.md").write_text("---\ntype: context\n---\nSee [[Beta]].\n")
    (root / "Beta.md").write_text("---\ntype: pattern\ntags: [x]\n---\nBack to [[Alpha]].\n")
    (root / "assets").mkdir()
    (root / "assets" / "diagram.png").write_bytes(b"\x89PNG fake")
    return root


def test_adopt_commits_what_the_folder_holds(tmp_path: Path) -> None:
    root = obsidian_folder(tmp_path)
    original = (root / "Beta.md").read_bytes()
    v = Vault.init(root, adopt=True, identity=AGENT)
    tracked = set(git(root, "ls-files").stdout.split())
    assert {"Projects/Alpha.md", "Beta.md", "assets/diagram.png", "index.md"} <= tracked
    assert ".obsidian/app.json" not in tracked
    assert (root / "Beta.md").read_bytes() == original
    assert git(root, "status", "--porcelain").stdout == "?? .obsidian/\n"
    assert v.catalog_drift() == []
    assert [e.target for e in v.link_graph().edges()] and not v.link_graph().broken()


def test_adopt_refuses_invalid_notes_and_writes_nothing(tmp_path: Path) -> None:
    root = obsidian_folder(tmp_path)
    (root / "Loose.md").write_text("# no frontmatter\n")
    with pytest.raises(InvalidInput, match=r"Loose\.md"):
        Vault.init(root, adopt=True)
    assert not (root / ".git").exists() and not (root / "index.md").exists()
    v = Vault.init(root, adopt=True, default_type="note")
    assert v.get("Loose.md").entry.type == "note"


def test_init_from_sample_vault_one_commit_per_entry(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["memory", "init", str(tmp_path / "demo"), "--from", str(SAMPLE), "--json"]
    )
    assert result.exit_code == 0, result.output
    root = tmp_path / "demo"
    entries = [p for p in SAMPLE.rglob("*.md")]
    ingests = git(root, "log", "--format=%(trailers:key=Clawql-Event,valueonly)").stdout.split()
    assert ingests.count("MEMORY_INGEST") == len(entries) >= 30
    for p in entries:
        rel = p.relative_to(SAMPLE).as_posix()
        assert (root / rel).read_bytes() == p.read_bytes(), rel
    assert (root / "ontology" / "entities").is_dir()
    v = Vault.open(root)
    assert v.catalog_drift() == []
    assert len(v.link_graph().broken()) == 1
    fsck_ok(root)
