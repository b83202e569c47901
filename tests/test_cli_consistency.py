"""Issue 19, item 4: the CLI behaves the same way everywhere. ``--vault`` after any memory
subcommand, misspelt types refused at every door, adoption leaving a clean work tree, workspace
and clone agreeing on a bare remote, an empty body warned about, and a hand ``git commit``
that does not wait for the index."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.cli.memory import memory
from clawql_git.errors import InvalidFrontmatter
from clawql_git.model.entry import misspelt_type
from clawql_git.workspace.mounts import Workspace

from .conftest import AGENT, git


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def make_vault(tmp_path: Path, name: str = "v") -> Path:
    root = tmp_path / name
    done = invoke("memory", "init", str(root))
    assert done.exit_code == 0, done.output
    return root


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


# ---------------------------------------------------------------- --vault after the subcommand


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(_commands(command, f"{prefix}{name} "))
        else:
            found[prefix + name] = command
    return found


def test_every_memory_subcommand_takes_vault_after_its_name() -> None:
    missing = [
        name
        for name, command in _commands(memory).items()
        if name != "clone" and not any("--vault" in p.opts for p in command.params)
    ]
    assert missing == []
    helps = {
        p.help
        for command in _commands(memory).values()
        for p in command.params
        if "--vault" in p.opts
    }
    assert len(helps) == 1  # one option, spelled once


def test_vault_after_the_subcommand_works_like_before(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    done = invoke(
        "memory", "ingest", "--type", "decision", "--title", "Use JWT", "--body", "Because.",
        "--vault", str(root),
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "decisions/" in git(root, "show", "--stat", "HEAD").stdout
    found = invoke("memory", "recall", "JWT", "--backend", "fts", "--vault", str(root), "--json")
    assert found.exit_code == 0, found.output
    assert [h["title"] for h in json.loads(found.output)["hits"]] == ["Use JWT"]
    status = invoke("memory", "index", "status", "--vault", str(root), "--json")
    assert status.exit_code == 0, status.output
    before = invoke("memory", "--vault", str(root), "log", "--json")
    after = invoke("memory", "log", "--json", "--vault", str(root))
    assert before.exit_code == after.exit_code == 0 and before.output == after.output
    listed = invoke("review", "list", "--vault", str(root), "--json")
    assert listed.exit_code == 0, listed.output


def test_vault_after_wins_and_the_envvar_fills_in(tmp_path: Path) -> None:
    root, other = make_vault(tmp_path), make_vault(tmp_path, "other")
    gone = str(tmp_path / "gone")
    assert invoke("memory", "--vault", gone, "log", "--vault", str(root)).exit_code == 0
    assert invoke("memory", "log", "--vault", str(root), env={"CLAWQL_VAULT": gone}).exit_code == 0
    by_env = invoke("memory", "log", "--json", env={"CLAWQL_VAULT": str(other)})
    assert by_env.exit_code == 0 and json.loads(by_env.output)[0]["event"] == "MEMORY_INIT"
    assert invoke("memory", "log", env={"CLAWQL_VAULT": gone}).exit_code != 0
    # the group's flag still beats the environment
    assert invoke("memory", "--vault", str(root), "log", env={"CLAWQL_VAULT": gone}).exit_code == 0


# ---------------------------------------------------------------- misspelt types


@pytest.mark.parametrize(
    ("given", "meant"),
    [("decison", "decision"), ("Decision", "decision"), ("errors", "error"), ("patern", "pattern")],
)
def test_misspelt_types_are_recognised(given: str, meant: str) -> None:
    assert misspelt_type(given) == meant


@pytest.mark.parametrize("given", ["decision", "task_result", "quirk", "runbook", "meeting"])
def test_known_and_plainly_new_types_pass(given: str) -> None:
    assert misspelt_type(given) is None


def test_cli_refuses_a_misspelt_type_unless_new_type(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    before = head(root)
    args = ("memory", "--vault", str(root), "ingest", "--type", "decison", "--title", "T")
    done = invoke(*args, "--body", "b")
    assert done.exit_code == 2
    assert "did you mean 'decision'?" in done.output and "--new-type" in done.output
    assert head(root) == before and not (root / "decisons").exists()
    doc = "---\ntype: decison\ntitle: From a file\n---\nbody\n"
    piped = CliRunner().invoke(cli, ["memory", "--vault", str(root), "ingest", "-"], input=doc)
    assert piped.exit_code == 2 and "did you mean 'decision'?" in piped.output
    assert head(root) == before
    done = invoke(*args, "--body", "b", "--new-type")
    assert done.exit_code == 0, done.output
    assert (root / "decisons").is_dir()
    assert invoke(*args[:-4], "--type", "quirk", "--title", "Q", "--body", "b").exit_code == 0


def test_python_api_refuses_a_misspelt_type_unless_allowed(vault: Vault) -> None:
    before = head(vault.root)
    with pytest.raises(InvalidFrontmatter, match="did you mean 'decision'"):
        vault.ingest(type="decison", title="T", body="b", identity=AGENT)
    with pytest.raises(InvalidFrontmatter, match="did you mean 'pattern'"):
        vault.ingest_markdown("---\ntype: patterns\ntitle: P\n---\nx\n", identity=AGENT)
    with pytest.raises(InvalidFrontmatter, match="did you mean 'error'"):
        vault.ingest_all([{"type": "eror", "title": "E", "body": "x"}], identity=AGENT)
    assert head(vault.root) == before
    written = vault.ingest(type="decison", title="T", body="b", allow_new_type=True)
    assert written.path.startswith("decisons/")


def test_adopting_keeps_the_notes_own_types(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("---\ntype: Decision\ntitle: A\n---\nkept as it is\n")
    assert invoke("memory", "init", str(notes), "--adopt").exit_code == 0


# ---------------------------------------------------------------- empty body


def test_an_empty_body_is_written_with_a_warning(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    args = ("memory", "--vault", str(root), "ingest", "--type", "context", "--title")
    done = CliRunner().invoke(cli, [*args, "Empty"])
    assert done.exit_code == 0
    assert "warning: the body is empty" in done.stderr and "worm_ref:" in done.stdout
    as_json = CliRunner().invoke(cli, [*args, "Empty too", "--json"])
    assert as_json.exit_code == 0
    assert "body is empty" in json.loads(as_json.stdout)["warning"]
    assert as_json.stderr == ""  # with --json the warning is in the record, stdout parses
    full = CliRunner().invoke(cli, [*args, "Full", "--body", "text", "--json"])
    assert json.loads(full.stdout)["warning"] is None and "warning" not in full.stderr
    assert "body is empty" in Vault.open(root).ingest(type="context", title="API").warning


# ---------------------------------------------------------------- init --adopt


def test_adoption_leaves_the_work_tree_as_committed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "first.md").write_text("# First note\n\nhello [[Second]]\n")
    (notes / "third.md").write_text("---\ntags: [a]\n---\nthird body\n")
    kept = "---\ntype: context\ntitle: Second\n---\nbody two\n"
    (notes / "sub" / "second.md").write_text(kept)
    done = invoke("memory", "init", str(notes), "--adopt", "--type", "context")
    assert done.exit_code == 0, done.output
    assert git(notes, "status", "--porcelain").stdout == ""
    assert (notes / "first.md").read_text().startswith("---\ntype: context\ntitle: First note\n")
    assert (notes / "sub" / "second.md").read_text() == kept
    for name in ("first.md", "third.md", "sub/second.md"):
        assert (notes / name).read_bytes() == git(notes, "show", f"HEAD:{name}").stdout.encode()
    assert git(notes, "commit", "-a", "-m", "nothing", check=False).returncode != 0  # nothing


# ---------------------------------------------------------------- workspace add vs clone


def test_workspace_add_and_clone_agree_on_a_bare_remote_whose_head_is_master(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    source = make_vault(tmp_path, "source")
    bare = tmp_path / "team.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(source), str(bare))
    git(bare, "symbolic-ref", "HEAD", "refs/heads/master")  # as `git init --bare` may leave it
    url = bare.as_uri()
    cloned = invoke("memory", "clone", url, str(tmp_path / "clone"))
    assert cloned.exit_code == 0, cloned.output
    monkeypatch.setenv("CLAWQL_WORKSPACE", str(tmp_path / "ws.toml"))
    added = invoke("workspace", "add", "team", url, "--scope", "team")
    assert added.exit_code == 0, added.output
    mount = Workspace.load().get("team")
    assert head(mount.path) == head(source) == head(tmp_path / "clone")
    assert git(mount.path, "status", "--porcelain").stdout == ""
    assert (mount.path / ".git" / "hooks" / "post-merge").is_file()


# ---------------------------------------------------------------- the post-commit hook


def test_a_hand_commit_leaves_the_index_to_the_next_recall(demo: Path) -> None:
    vault = Vault.open(demo)
    vault.update_index()
    assert vault.index_status()["current"]
    (demo / "notes.md").write_text("---\ntype: context\ntitle: Hand note\n---\nby hand\n")
    git(demo, "add", "notes.md")
    git(demo, "commit", "-qm", "by hand")  # the hooks are installed: post-commit runs
    marks = json.loads((demo / ".git" / "clawql" / "checkout.json").read_text())
    assert marks["worktree"] == head(demo)  # the hook ran: git's commit is the sync baseline
    assert vault.index_status()["behind"] == 1  # ... but it did not wait for the index
    result = vault.recall("hand note", limit=3)
    assert result.index_note.startswith("index caught up")
    assert "notes.md" in [h.path for h in result.hits]
