"""Paths and the work tree against a hostile tester (issue #14): a symbolic link or submodule
committed, pulled or placed by hand never makes the engine write outside the vault; names a
checkout on some OS cannot hold (too long, reserved on Windows, differing only in case) are
refused at every door; frontmatter is size-limited like the body. "Nothing written" is checked
with real git: same HEAD, same index, same files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import CheckFailed, InvalidFrontmatter, UnsafePath, VaultStateError
from clawql_git.model.paths import case_collision, portable_path_problem

from .conftest import AGENT, fsck_ok, git


@pytest.fixture(autouse=True)
def no_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    Vault.init(tmp_path / "v", identity=AGENT).close()
    return tmp_path / "v"


def state(root: Path) -> tuple[str, str, list[str]]:
    """HEAD, the git index and every file of the work tree: what "nothing written" compares."""
    head = git(root, "rev-parse", "HEAD").stdout
    index = git(root, "ls-files", "--stage").stdout
    files = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.relative_to(root).parts
    )
    return head, index, files


def hand_commit(root: Path, message: str = "by hand") -> None:
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", message)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def ingest_cli(root: Path, *args: str) -> Result:
    return run("memory", "ingest", "--vault", str(root), "--agent", "a", *args)


# ---------------------------------------------------------------- 1. links and submodules


def commit_link(root: Path, name: str, target: Path) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, root / name)
    git(root, "add", name)
    hand_commit(root, f"link {name}")


def test_committed_symlink_folder_refuses_the_write_api(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    commit_link(root, "patterns", elsewhere)
    before = state(root)
    with Vault.open(root, identity=AGENT) as v, pytest.raises(VaultStateError) as err:
        v.ingest(type="pattern", title="Retry with backoff", body="Back off.")
    assert "patterns (symbolic link)" in str(err.value) and "git rm patterns" in str(err.value)
    assert list(elsewhere.iterdir()) == []
    assert state(root) == before
    verify = run("memory", "verify", "--vault", str(root))
    assert verify.exit_code == 1 and "symbolic link at patterns" in verify.output, verify.output


def test_an_entry_file_linked_by_hand_is_not_written_through(root: Path, tmp_path: Path) -> None:
    with Vault.open(root, identity=AGENT) as v:
        written = v.ingest(type="decision", title="First", body="b")
        outside = tmp_path / "outside.md"
        outside.write_bytes((root / written.path).read_bytes())
        (root / written.path).unlink()
        os.symlink(outside, root / written.path)
        before = outside.read_bytes()
        with pytest.raises(VaultStateError, match="is a symbolic link"):
            v.update(written.path, body="changed")
    assert outside.read_bytes() == before


def test_committed_symlink_folder_refuses_the_write_cli(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    commit_link(root, "patterns", elsewhere)
    before = state(root)
    result = ingest_cli(root, "--type", "pattern", "--title", "Retry", "--body", "b")
    assert result.exit_code == 4, result.output
    assert "patterns (symbolic link)" in result.output
    assert list(elsewhere.iterdir()) == [] and state(root) == before


def test_a_committed_link_anywhere_stops_writes_until_removed(root: Path, tmp_path: Path) -> None:
    """The decision: HEAD holding a link or submodule anywhere refuses every engine write,
    naming it and the fix; after `git rm` and a commit, writes work again."""
    commit_link(root, "notes/etc", Path("/etc"))
    with Vault.open(root, identity=AGENT) as v:
        with pytest.raises(VaultStateError, match=r"notes/etc \(symbolic link\)"):
            v.ingest(type="decision", title="Elsewhere entirely", body="b")
        git(root, "rm", "-q", "notes/etc")
        hand_commit(root, "remove the link")
        written = v.ingest(type="decision", title="Elsewhere entirely", body="b")
    assert written.path.startswith("decisions/") and not written.warning
    fsck_ok(root)


def test_a_committed_submodule_stops_writes(root: Path) -> None:
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},decisions")
    hand_commit(root, "a gitlink")
    before = state(root)
    with Vault.open(root, identity=AGENT) as v, pytest.raises(VaultStateError) as err:
        v.ingest(type="decision", title="Through a gitlink", body="b")
    assert "decisions (submodule)" in str(err.value)
    assert state(root) == before


def test_a_pulled_symlink_is_never_written_through(tmp_path: Path) -> None:
    from clawql_git.team.sharing import clone, pull

    origin = Vault.init(tmp_path / "origin", identity=AGENT)
    origin.ingest(type="decision", title="First", body="b")
    origin.close()
    bare = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.root), str(bare))
    mine = clone(str(bare), tmp_path / "mine", identity=AGENT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    commit_link(other, "patterns", elsewhere)
    git(other, "push", "-q", "origin", "HEAD")
    with pytest.raises(CheckFailed, match="symlink"):
        pull(mine)  # the engine's pull holds the incoming commits to the remote's checks
    assert not (mine.root / "patterns").exists()
    git(mine.root, "pull", "-q", "--no-rebase", "origin", "main")  # plain git brings it in
    assert (mine.root / "patterns").is_symlink()
    before = state(mine.root)
    with pytest.raises(VaultStateError, match=r"patterns \(symbolic link\)"):
        mine.ingest(type="pattern", title="Retry", body="b")
    assert list(elsewhere.iterdir()) == [] and state(mine.root) == before


def test_a_symlink_placed_by_hand_is_not_followed(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "x"
    target.mkdir()
    os.symlink(target, root / "decisions")
    before = state(root)
    result = ingest_cli(root, "--type", "decision", "--title", "Through a link", "--body", "b")
    assert result.exit_code == 4, result.output
    assert "decisions is a symbolic link" in result.output
    assert list(target.iterdir()) == [] and state(root) == before


def test_a_symlinked_month_folder_by_hand_is_not_followed(root: Path, tmp_path: Path) -> None:
    """The link deeper down, in a folder the engine already writes to."""
    with Vault.open(root, identity=AGENT) as v:
        first = v.ingest(type="decision", title="First", body="b")
        month = root / Path(first.path).parent
        target = tmp_path / "x"
        target.mkdir()
        (month / "index.md").rename(target / "moved.md")
        (month / Path(first.path).name).unlink()
        month.rmdir()
        os.symlink(target, month)
        with pytest.raises(VaultStateError, match="is a symbolic link"):
            v.ingest(type="decision", title="Second", body="b")
    assert sorted(p.name for p in target.iterdir()) == ["moved.md"]


def test_the_checkout_sync_skips_paths_under_a_link(root: Path, tmp_path: Path) -> None:
    """Below the writer's own check: a sync that finds a link on the way (it appeared after
    the commit, or a commit came from elsewhere) leaves that path alone and says so."""
    with Vault.open(root, identity=AGENT) as v:
        v.ingest(type="decision", title="First", body="b")
        marks = root / ".git" / "clawql" / "checkout.json"
        synced = json.loads(marks.read_text())
        v.ingest(type="decision", title="Second", body="b")
        decisions = root / "decisions"
        os.rename(decisions, tmp_path / "moved")
        target = tmp_path / "x"
        target.mkdir()
        os.symlink(target, decisions)
        marks.write_text(json.dumps(synced))  # the work tree is one commit behind again
        with v.store.lock():
            skipped = v.store.sync_checkout(update_index=True)
    assert skipped and all("decisions is a symbolic link" in s for s in skipped)
    assert list(target.iterdir()) == []


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("a/../b.md", "'..'"),
        ("./b.md", "'.'"),
        ("a//b.md", "''"),
        (".git/hooks/x", "'.git'"),
        ("notes/.GIT/config", "'.GIT'"),
        ("notes/.git./x", "'.git.'"),
    ],
)
def test_worktree_problem_names_escapes(tmp_path: Path, path: str, problem: str) -> None:
    from clawql_git.gitstore.files import worktree_problem

    found = worktree_problem(tmp_path, path)
    assert found is not None and problem in found


# ---------------------------------------------------------------- 2. lengths


LONG = "x" * 300


def test_a_300_character_path_is_refused_cli_and_later_writes_work(root: Path) -> None:
    before = state(root)
    result = ingest_cli(root, "--type", "decision", "--title", "T", "--path", f"notes/{LONG}.md")
    assert result.exit_code == 2, result.output
    assert "is 303 bytes long (at most 255)" in result.output
    assert state(root) == before
    again = ingest_cli(root, "--type", "decision", "--title", "Later", "--body", "b")
    assert again.exit_code == 0 and "not updated" not in again.output, again.output


@pytest.mark.parametrize(
    "path",
    [
        f"notes/{LONG}.md",  # one component too long
        "/".join(["d" * 200] * 3) + "/x.md",  # every component fits, the whole path does not
    ],
)
def test_long_paths_are_refused_api(root: Path, path: str) -> None:
    before = state(root)
    with Vault.open(root, identity=AGENT) as v:
        with pytest.raises(UnsafePath, match="bytes long"):
            v.ingest(type="decision", title="T", body="b", path=path)
        with pytest.raises(UnsafePath, match="bytes long"):
            v.ingest_all([{"type": "decision", "title": "T", "body": "b", "path": path}])
        with pytest.raises(UnsafePath, match="bytes long"):
            v.ingest_markdown("---\ntype: decision\ntitle: T\n---\nb\n", path=path)
    assert state(root) == before


def test_over_mcp_a_long_title_is_cut_and_a_huge_description_refused(
    root: Path, tmp_path: Path
) -> None:
    """The MCP tool takes no path: the title names the file (cut to fit), and the description
    is held to the catalog field limit."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    env.update(CLAWQL_EMBEDDING_MODEL="none", GIT_CONFIG_NOSYSTEM="1")
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    texts: list[str] = []
    paths: list[str] = []

    async def main() -> None:
        with (tmp_path / "err.txt").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                call: dict[str, Any] = {"type": "decision", "title": LONG, "body": "b"}
                done = await session.call_tool("memory_ingest", call)
                assert not done.is_error and done.structured_content is not None
                paths.append(done.structured_content["path"])
                before.append(state(root))
                call.update(title="T", description="d" * 10_000)
                result = await session.call_tool("memory_ingest", call)
                assert result.is_error
                texts.extend(getattr(c, "text", "") for c in result.content)

    before: list[tuple[str, str, list[str]]] = []
    anyio.run(main)
    assert len(Path(paths[0]).name) <= 100
    assert "max_field_bytes" in " ".join(texts)
    assert state(root) == before[0]


def test_adopting_a_folder_with_a_path_too_long_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    deep = folder.joinpath(*["d" * 200] * 3)
    deep.mkdir(parents=True)
    (deep / "x.md").write_text("---\ntype: context\n---\n# X\n")
    (folder / "fine.md").write_text("---\ntype: context\n---\n# Fine\n")
    result = run("memory", "init", str(folder), "--adopt")
    assert result.exit_code == 2, result.output
    assert "bytes long" in result.output
    assert not (folder / ".git").exists()


def test_a_title_too_long_for_a_file_name_is_cut_not_refused(root: Path) -> None:
    with Vault.open(root, identity=AGENT) as v:
        written = v.ingest(type="decision", title="word " * 120, body="b")
    name = Path(written.path).name
    assert len(name.encode()) <= 100 and not written.warning
    assert (root / written.path).is_file()


def test_a_type_too_long_for_a_folder_name_is_refused(root: Path) -> None:
    before = state(root)
    result = ingest_cli(root, "--type", "t" * 300, "--new-type", "--title", "T", "--body", "b")
    assert result.exit_code == 2, result.output
    assert "bytes long" in result.output and state(root) == before


def test_import_of_a_file_name_that_slugs_long_is_cut(root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / f"{'n' * 240}.md").write_text("---\ntype: context\n---\nbody\n")
    with Vault.open(root, identity=AGENT) as v:
        results = v.import_folder(folder)
    assert all(len(Path(r.path).name) <= 100 for r in results)


# ---------------------------------------------------------------- 3. names other OSes refuse


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("notes/CON/x.md", "reserved on Windows"),
        ("notes/aux.md", "reserved on Windows"),
        ("notes/nul .md", "reserved on Windows"),
        ("notes/com1.txt.md", "reserved on Windows"),
        ("notes/a:b.md", "Windows cannot check out"),
        ("notes/why?.md", "Windows cannot check out"),
        ("notes/a|b.md", "Windows cannot check out"),
        ("notes/tab\there.md", "Windows cannot check out"),
        ("notes./x.md", "ends with a dot or space"),
        ("notes /x.md", "ends with a dot or space"),
        ("notes/GIT~1/x.md", "read as .git"),
    ],
)
def test_names_windows_cannot_check_out_are_refused(root: Path, path: str, reason: str) -> None:
    before = state(root)
    result = ingest_cli(root, "--type", "decision", "--title", "T", "--body", "b", "--path", path)
    assert result.exit_code == 2, result.output
    assert repr(path) in result.output
    assert reason in result.output
    assert state(root) == before


@pytest.mark.parametrize(
    ("first", "second", "other"),
    [
        ("notes/README.md", "notes/Readme.md", "notes/README.md"),
        ("notes/x.md", "Notes/y.md", "notes"),
        ("decisions/2026/a.md", "decisions/INDEX.md", "decisions/index.md"),
        (
            unicodedata.normalize("NFC", "notes/café.md"),
            unicodedata.normalize("NFD", "notes/café.md"),
            unicodedata.normalize("NFC", "notes/café.md"),
        ),
    ],
)
def test_case_collisions_are_refused(root: Path, first: str, second: str, other: str) -> None:
    with Vault.open(root, identity=AGENT) as v:
        v.ingest(type="decision", title="First", body="b", path=first)
        before = state(root)
        with pytest.raises(UnsafePath) as err:
            v.ingest(type="decision", title="Second", body="b", path=second)
    assert f"differs only in letter case from {other}" in str(err.value)
    assert state(root) == before


def test_case_collisions_within_one_adopted_folder_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "README.md").write_text("---\ntype: context\n---\n# One\n")
    (folder / "Readme.md").write_text("---\ntype: context\n---\n# Two\n")
    result = run("memory", "init", str(folder), "--adopt")
    assert result.exit_code == 2, result.output
    assert "differs only in letter case" in result.output
    assert not (folder / ".git").exists()


def test_a_title_that_slugs_to_a_reserved_name_gets_another(root: Path) -> None:
    with Vault.open(root, identity=AGENT) as v:
        written = v.ingest(type="decision", title="Aux", body="b")
    assert Path(written.path).name == "aux-2.md"


@pytest.mark.parametrize(
    "path",
    [
        "../outside.md",
        "/etc/x.md",
        "notes\\x.md",
        "notes/\x00.md",
        "notes/.git/x.md",
        ".git/x.md",
        ".clawql/x.md",
        "notes/./x.md",
    ],
)
def test_escapes_are_refused(root: Path, path: str) -> None:
    """Refused before this issue too (validate_entry_path); kept so they stay refused."""
    before = state(root)
    with Vault.open(root, identity=AGENT) as v, pytest.raises(UnsafePath):
        v.ingest(type="decision", title="T", body="b", path=path)
    assert state(root) == before


def test_the_path_rules_are_the_ones_the_remote_calls() -> None:
    assert portable_path_problem("decisions/2026-12/fine.md") is None
    assert portable_path_problem("a/../b") is not None
    assert portable_path_problem("notes/.g\u200cit/x") is not None  # HFS+ ignores U+200C
    assert case_collision("A.md", ["b.md", "a.md"]) == "a.md"
    assert case_collision("a.md", ["a.md"]) is None


# ---------------------------------------------------------------- 4. frontmatter limits


BIG = "d" * (5 * 1024 * 1024)


def test_a_huge_description_is_refused_api(root: Path) -> None:
    before = state(root)
    with Vault.open(root, identity=AGENT) as v:
        with pytest.raises(InvalidFrontmatter, match="'description' is 5242880 bytes"):
            v.ingest(type="decision", title="T", body="b", description=BIG)
        with pytest.raises(InvalidFrontmatter, match=r"frontmatter is \d+ bytes, over the limit"):
            v.ingest_markdown(f"---\ntype: decision\ntitle: T\nnotes: {BIG}\n---\nb\n")
        with pytest.raises(InvalidFrontmatter, match="'title' is"):
            v.ingest(type="decision", title="t " * 3000, body="b")
    assert state(root) == before


def test_a_huge_description_is_refused_cli(root: Path) -> None:
    before = state(root)
    result = ingest_cli(root, "--type", "decision", "--title", "T", "--description", BIG[:10000])
    assert result.exit_code == 2, result.output
    assert "max_field_bytes" in result.output and state(root) == before


def test_an_update_cannot_grow_the_description_past_the_limit(root: Path) -> None:
    with Vault.open(root, identity=AGENT) as v:
        written = v.ingest(type="decision", title="T", body="b", description="short")
        before = state(root)
        with pytest.raises(InvalidFrontmatter, match="max_field_bytes"):
            v.update(written.path, changes={"description": BIG})
    assert state(root) == before


def test_an_import_with_a_huge_frontmatter_writes_nothing(root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ok.md").write_text("---\ntype: context\n---\nfine\n")
    (folder / "big.md").write_text(f"---\ntype: context\ndescription: {BIG}\n---\nbody\n")
    before = state(root)
    result = run("memory", "import", str(folder), "--vault", str(root))
    assert result.exit_code == 2, result.output
    assert "big.md: the frontmatter is" in result.output
    assert "max_frontmatter_bytes" in result.output
    assert state(root) == before


def test_the_limits_are_settings(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT, max_field_bytes=20, max_frontmatter_bytes=10**7)
    with v:
        with pytest.raises(InvalidFrontmatter, match="over the limit of 20 bytes"):
            v.ingest(type="decision", title="T", body="b", description="d" * 21)
        v.ingest(type="decision", title="T", body="b", description="d" * 20)


def test_the_cli_console_script_refuses_a_long_path(root: Path) -> None:
    """The real process (`python -m clawql_git`, the console script's code): exit 2, no
    traceback, nothing written."""
    before = state(root)
    env = {**os.environ, "CLAWQL_EMBEDDING_MODEL": "none"}
    args = ["memory", "ingest", "--vault", str(root), "--type", "decision", "--title", "T"]
    done = subprocess.run(
        [sys.executable, "-m", "clawql_git", *args, "--body", "b", "--path", f"{LONG}.md"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "bytes long" in done.stderr and "Traceback" not in done.stderr
    assert state(root) == before


def test_verify_reports_names_a_checkout_cannot_hold(root: Path) -> None:
    """Pushed or committed by hand (the writer refuses them): verify names each."""
    for name in ("notes/aux.md", "notes/README.md", "notes/Readme.md"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("---\ntype: context\n---\nb\n")
    git(root, "add", "notes")
    hand_commit(root)
    result = run("memory", "verify", "--vault", str(root))
    assert result.exit_code == 1, result.output
    assert "notes/aux.md, which some checkout cannot hold" in result.output
    assert "notes/README.md and notes/Readme.md" in result.output
