"""Code-anchored memory: entries that name code are anchored to the definitions at a commit,
and flagged when a later commit changes, moves or removes them; find-symbol lists the entries
anchored to a definition; the post-commit hook of a code repository writes code_change entries.
Real git, real repositories, the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.codegraph.anchor_store import AnchorStore
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.errors import NotFound, VaultStateError
from clawql_git.vault.anchoring import CodeStaleness, check_code, graph_resolver, store_path
from clawql_git.vault.code_changes import record_change
from clawql_git.vault.code_commits import install_code_hook

from .conftest import git

CONFIG = '''"""Settings."""


def parse_config(path):
    """Read the settings."""
    text = open(path).read()
    return {"text": text}


def render(value):
    """Show a value."""
    return str(value)
'''
WHO = Identity(agent_id="claude-code", session_id="s-1")


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def code(tmp_path: Path) -> Path:
    root = tmp_path / "code"
    root.mkdir()
    git(root, "init", "-q")
    (root / "config.py").write_text(CONFIG)
    (root / "util.py").write_text('def other():\n    """Other."""\n    return 0\n')
    commit(root, "first")
    return root


def remember(vault: Vault, title: str, body: str) -> str:
    return vault.ingest(type="decision", title=title, body=body, identity=WHO).path


def check(vault: Vault, root: Path) -> CodeStaleness:
    graph = CodeGraph.open(root)
    graph.index(history=False)
    try:
        return check_code(vault, root, graph_resolver(graph))
    finally:
        graph.close()


def states(found: CodeStaleness) -> dict[tuple[str, str], tuple[str, str]]:
    """(entry, anchored symbol) -> (state, moved_to) of every stale anchor."""
    return {(e.path, c.anchor.target): (c.state, c.moved_to) for e in found.stale for c in e.checks}


def edit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new))


def test_an_entry_naming_code_is_anchored_at_its_commit(code: Path, vault: Vault) -> None:
    head = git(code, "rev-parse", "HEAD").stdout.strip()
    path = remember(vault, "Config is a dict", "We chose a dict in `parse_config`; see `util.py`.")
    remember(vault, "Unrelated", "Nothing about code here: `not_a_symbol` and `get`.")
    found = check(vault, code)
    assert found.stale == () and found.entries == 1
    store = AnchorStore(store_path(vault))
    anchors = {(a.key, a.target): a for a in store.anchors(str(code))}
    store.close()
    assert set(anchors) == {(path, "config.py:parse_config"), (path, "util.py")}
    anchor = anchors[(path, "config.py:parse_config")]
    assert anchor.commit == head and anchor.kind == "function" and anchor.body_hash
    assert anchor.source == "backtick"


def test_a_code_change_entry_is_anchored_to_its_affected_symbols(code: Path, vault: Vault) -> None:
    edit(code, "config.py", "return str(value)", "return repr(value)")
    sha = commit(code, "render uses repr")
    _, result = record_change(vault, code, "HEAD~1", "HEAD")
    front = vault.get(result.path).to_record()["frontmatter"]
    assert front["breaking_change"] is False and "breaking" not in front
    check(vault, code)
    store = AnchorStore(store_path(vault))
    mine = [a for a in store.anchors(str(code)) if a.key == result.path]
    store.close()
    assert [(a.target, a.commit, a.source) for a in mine] == [
        ("config.py:render", sha, "affected_symbols")
    ]


def test_a_body_change_flags_the_entry(code: Path, vault: Vault) -> None:
    about = remember(vault, "Config is a dict", "`parse_config` returns a plain dict.")
    other = remember(vault, "Render", "`render` uses str.")
    assert check(vault, code).entries == 2
    edit(code, "config.py", '"""Settings."""\n', '"""Settings."""\n\nLIMIT = 3\n')
    commit(code, "a constant above: the definitions only move down")
    assert check(vault, code).stale == ()
    edit(code, "config.py", 'return {"text": text}', 'return {"text": text, "yaml": True}')
    commit(code, "parse_config reads YAML")
    found = check(vault, code)
    assert states(found) == {(about, "config.py:parse_config"): ("changed", "")}
    assert other not in {e.path for e in found.stale}


def test_a_move_and_a_rename_are_flagged_with_where_it_went(code: Path, vault: Vault) -> None:
    moved = remember(vault, "Config", "`parse_config` returns a plain dict.")
    renamed = remember(vault, "Render", "`render` uses str.")
    assert check(vault, code).entries == 2  # anchored as the entries come (the hook's check)
    text = (code / "config.py").read_text()
    body = text[text.index("def parse_config") : text.index("def render")]
    (code / "config.py").write_text(text.replace(body, "").replace("def render", "def show"))
    (code / "loading.py").write_text(body)
    commit(code, "parse_config moves to loading.py; render is show")
    assert states(check(vault, code)) == {
        (moved, "config.py:parse_config"): ("moved", "loading.py:parse_config"),
        (renamed, "config.py:render"): ("moved", "config.py:show"),
    }


def test_a_vanished_symbol_or_file_is_flagged(code: Path, vault: Vault) -> None:
    gone = remember(vault, "Render", "`render` uses str.")
    file_gone = remember(vault, "Util", "The helpers live in [util](../../util.py).")
    assert check(vault, code).entries == 2
    edit(
        code,
        "config.py",
        'def render(value):\n    """Show a value."""\n    return str(value)\n',
        "",
    )
    (code / "util.py").unlink()
    commit(code, "render and util.py go")
    assert states(check(vault, code)) == {
        (gone, "config.py:render"): ("vanished", ""),
        (file_gone, "util.py"): ("vanished", ""),
    }


def test_find_symbol_and_explain_module_list_anchored_entries(code: Path, vault: Vault) -> None:
    about = remember(vault, "Why parse_config returns a dict", "`parse_config` returns a dict.")
    CodeGraph.open(code).index(history=False)
    run = CliRunner().invoke
    args = ["-C", str(code), "--vault", str(vault.root), "--json"]
    done = run(cli, ["code", "find-symbol", "parse_config", *args])
    assert done.exit_code == 0, done.output
    item = json.loads(done.output)["items"][0]
    assert [(m["entry"], m["title"], m["state"]) for m in item["memory"]] == [
        (about, "Why parse_config returns a dict", "fresh")
    ]
    assert check(vault, code).stale == ()
    edit(code, "config.py", "open(path).read()", "open(path, encoding='utf-8').read()")
    commit(code, "utf-8")
    assert (
        run(cli, ["code", "stale-memory", "-C", str(code), "--vault", str(vault.root)]).exit_code
        == 0
    )
    module = json.loads(run(cli, ["code", "explain-module", "config.py", *args]).output)
    export = next(i for i in module["items"] if i["qualname"] == "parse_config")
    assert [(m["entry"], m["state"]) for m in export["memory"]] == [(about, "changed")]
    text = run(
        cli, ["code", "find-symbol", "parse_config", "-C", str(code), "--vault", str(vault.root)]
    )
    assert f"memory: {about} (changed)" in text.output


def test_recall_labels_a_hit_whose_code_changed(code: Path, vault: Vault) -> None:
    about = remember(vault, "Config parsing returns a dict", "`parse_config` returns a dict.")
    check(vault, code)
    hit = vault.recall("config parsing dict", backend="fts").hits[0]
    assert hit.path == about and hit.code_stale == ()
    edit(code, "config.py", "return {", "return dict(")
    edit(code, "config.py", '"text": text}', "text=text)")
    commit(code, "dict()")
    check(vault, code)
    record = vault.recall("config parsing dict", backend="fts").to_record()["hits"][0]
    assert record["code_stale"] == [
        {
            "symbol": "config.py:parse_config",
            "state": "changed",
            "anchored_at": record["code_stale"][0]["anchored_at"],
        }
    ]


def test_a_bad_revision_is_refused(code: Path, vault: Vault) -> None:
    remember(vault, "Config", "`parse_config`.")
    head = git(vault.root, "rev-parse", "HEAD").stdout
    with pytest.raises(NotFound, match="unknown revision"):
        check_code(vault, code, lambda name: [], "no-such-rev")
    assert git(vault.root, "rev-parse", "HEAD").stdout == head
    assert not store_path(vault).exists()


def _hook_env(tmp_path: Path, session: str) -> dict[str, str]:
    """The environment of a person committing: clawql runs from this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    checkout = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([checkout, *filter(None, [env.get("PYTHONPATH")])])
    env["CLAWQL_SESSION_ID"] = session
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"
    return env


def test_the_post_commit_hook_writes_a_code_change_entry(
    code: Path, vault: Vault, tmp_path: Path
) -> None:
    why = vault.ingest(
        type="decision",
        title="Config takes a URL",
        body="`parse_config` reads from a URL now.",
        identity=Identity(agent_id="claude-code", session_id="s-7"),
    ).path
    hook = install_code_hook(code, vault)
    CodeGraph.open(code).index(history=False)  # backticked names resolve through the graph
    assert git(code, "config", "clawql.vault").stdout.strip() == str(vault.root.resolve())
    edit(code, "config.py", "def parse_config(path):", "def parse_config(url, timeout=5):")
    edit(code, "config.py", "open(path)", "open(url)")
    git(code, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "-qm", "parse_config takes a URL", "-m", "Configs live on a server."],
        cwd=code,
        env=_hook_env(tmp_path, "s-7"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert hook.is_file()
    with Vault.open(vault.root) as fresh:
        made = [e for e in fresh.entries() if e.type == "code_change"]
        assert len(made) == 1
        entry = made[0]
        assert entry.meta["breaking_change"] is True and "breaking" not in entry.meta
        assert entry.meta["affected_symbols"] == ["config.py:parse_config"]
        assert entry.meta["session_id"] == "s-7"
        assert entry.meta["to_rev"] == git(code, "rev-parse", "HEAD").stdout.strip()
        assert "## Reasoning" in entry.body and "Configs live on a server." in entry.body
        assert f"[[{why.removesuffix('.md')}|Config takes a URL]]" in entry.body
        # the decision written against the old signature is flagged by the same hook
        labels = AnchorStore(store_path(fresh)).checks(str(code.resolve()), [why])
        assert [(c.anchor.target, c.state) for c in labels] == [
            ("config.py:parse_config", "changed")
        ]


def test_the_hook_leaves_a_users_own_post_commit_alone(code: Path, vault: Vault) -> None:
    own = code / ".git" / "hooks" / "post-commit"
    own.write_text("#!/bin/sh\necho mine\n")
    with pytest.raises(VaultStateError, match="of your own"):
        install_code_hook(code, vault)
    assert own.read_text() == "#!/bin/sh\necho mine\n"
    assert git(code, "config", "--get", "clawql.vault", check=False).returncode != 0
    done = CliRunner().invoke(
        cli, ["code", "hook", "install", "-C", str(code), "--vault", str(vault.root)]
    )
    assert done.exit_code == 4 and "of your own" in done.output


def test_cli_stale_memory_json(code: Path, vault: Vault) -> None:
    about = remember(vault, "Render", "`render` uses str.")
    assert check(vault, code).stale == ()
    edit(code, "config.py", "return str(value)", "return repr(value)")
    sha = commit(code, "repr")
    done = CliRunner().invoke(
        cli, ["code", "stale-memory", "-C", str(code), "--vault", str(vault.root), "--json"]
    )
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["checked_at"] == sha and record["stale_entries"] == 1
    assert record["stale"][0]["path"] == about
    assert record["stale"][0]["stale"][0]["state"] == "changed"


def test_a_decorator_change_flags_the_entry(code: Path, vault: Vault) -> None:
    (code / "cached.py").write_text(
        "import functools\n\n\n@functools.lru_cache(\n    maxsize=8,\n)\n"
        'def lookup(key):\n    """Find a key."""\n    return key\n'
    )
    commit(code, "lookup")
    about = remember(vault, "Lookups are cached", "`lookup` keeps eight keys.")
    assert check(vault, code).entries == 1
    edit(code, "cached.py", "maxsize=8", "maxsize=64")
    commit(code, "a bigger cache")
    assert states(check(vault, code)) == {(about, "cached.py:lookup"): ("changed", "")}


def test_recall_fails_open_on_a_broken_anchor_store(code: Path, vault: Vault) -> None:
    about = remember(vault, "Config parsing returns a dict", "`parse_config` returns a dict.")
    check(vault, code)
    store_path(vault).write_bytes(b"not a database" * 100)
    hits = vault.recall("config parsing dict", backend="fts").hits
    assert [h.path for h in hits][:1] == [about] and hits[0].code_stale == ()
    assert check(vault, code).entries == 1  # the next check rebuilds it from the entries


def test_a_vanished_anchor_is_searched_again_only_in_files_changed_since(code: Path) -> None:
    from clawql_git.codegraph.anchors import CodeAt, CodeCache, check, make_anchor

    first = git(code, "rev-parse", "HEAD").stdout.strip()
    anchor = make_anchor(CodeAt.read(code, first), "decisions/a.md", "config.py", "parse_config")
    assert anchor is not None
    edit(code, "config.py", 'def parse_config(path):\n    """Read the settings."""\n', "")
    edit(code, "config.py", '    text = open(path).read()\n    return {"text": text}\n', "")
    (code / "big.py").write_text("def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    second = commit(code, "drop parse_config, add big.py")
    gone = check(anchor, CodeAt.read(code, second))
    assert gone.state == "vanished" and gone.checked_at == second
    edit(code, "util.py", "return 0", "return 1")
    third = commit(code, "touch util.py")
    big_blob = git(code, "rev-parse", f"{third}:big.py").stdout.strip()
    fresh, kept = CodeCache(), CodeCache()
    assert check(anchor, CodeAt.read(code, third, fresh)).state == "vanished"
    assert big_blob in fresh.definitions  # searched from scratch: every file changed since
    again = check(anchor, CodeAt.read(code, third, kept), gone)
    assert (again.state, again.checked_at) == ("vanished", third)
    assert big_blob not in kept.definitions  # big.py held no copy at `second` and is the same
    (code / "util.py").write_text(CONFIG)
    fourth = commit(code, "parse_config lands in util.py")
    moved = check(anchor, CodeAt.read(code, fourth), again)
    assert (moved.state, moved.moved_to) == ("moved", "util.py:parse_config")
    assert check(anchor, CodeAt.read(code, fourth)) == moved  # the same answer as a full search


def test_opening_the_anchor_store_to_read_writes_nothing(tmp_path: Path) -> None:
    """find-symbol and explain-module open the store on every call (through MCP, every
    tool call): a store of the current schema is opened without a write, which cost a sync
    to disk each time (17 ms; an answer of nine definitions opened it ten times). A store of
    another schema is still rebuilt."""
    import sqlite3

    path = tmp_path / "anchors.sqlite"
    AnchorStore(path).close()
    watcher = sqlite3.connect(path)
    before = watcher.execute("PRAGMA data_version").fetchone()[0]
    store = AnchorStore(path)
    assert store.stamp("repo") is None
    store.close()
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == before  # nobody committed
    watcher.execute("UPDATE meta SET value='0' WHERE key='schema'")
    watcher.commit()
    AnchorStore(path).close()
    assert watcher.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] != "0"
    watcher.close()
