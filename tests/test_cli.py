"""The `clawql` CLI end to end, through the real console script where it matters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from clawql_git.cli import cli

from .conftest import SAMPLE, fsck_ok, git


def run(vault: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["memory", "--vault", str(vault), *args], input=stdin)


def make_vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    assert CliRunner().invoke(cli, ["memory", "init", str(root)]).exit_code == 0
    return root


def test_ingest_from_flags_prints_worm_ref(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    r = run(
        root,
        "ingest",
        "--type",
        "decision",
        "--title",
        "Use JWT",
        "--tag",
        "auth",
        "--description",
        "Tokens",
        "--body",
        "Because.",
        "--agent",
        "claude-code",
        "--session",
        "s1",
        "--correlation",
        "C-1",
        "--verdict",
        "accepted",
        "--confidence",
        "0.8",
    )
    assert r.exit_code == 0, r.output
    sha = r.output.split("worm_ref: git:")[1].strip()
    assert git(root, "rev-parse", "HEAD").stdout.strip() == sha
    assert "decisions/" in git(root, "show", "--stat", sha).stdout


def test_ingest_body_from_stdin_and_json(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    r = run(
        root,
        "ingest",
        "--type",
        "context",
        "--title",
        "WIP",
        "--body-file",
        "-",
        "--json",
        stdin="Working on the billing migration.\n",
    )
    assert r.exit_code == 0, r.output
    record = json.loads(r.output)
    assert record["worm_ref"].startswith("git:") and record["frontmatter"]["type"] == "context"
    assert "billing migration" in (root / record["path"]).read_text()


def test_ingest_markdown_file_and_stdin_document(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    doc = tmp_path / "e.md"
    doc.write_text("---\ntype: error\ntitle: Pool exhausted\n---\nToo many connections.\n")
    r = run(root, "ingest", str(doc), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["path"].startswith("errors/")
    r = run(root, "ingest", "-", stdin="---\ntype: pattern\ntitle: Outbox\n---\nUse it.\n")
    assert r.exit_code == 0, r.output and "patterns/" in r.output


def test_change_commands_and_history(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    a = json.loads(run(root, "ingest", "--type", "decision", "--title", "Old way", "--json").output)
    b = json.loads(run(root, "ingest", "--type", "decision", "--title", "New way", "--json").output)
    assert run(root, "update", a["path"], "--body", "clarified", "--set", "project=ledger")
    r = run(root, "supersede", a["path"], "--by", b["path"], "--json")
    assert r.exit_code == 0 and json.loads(r.output)["event"] == "MEMORY_SUPERSEDE"
    r = run(root, "show", a["path"], "--json")
    shown = json.loads(r.output)
    assert shown["frontmatter"]["status"] == "superseded"
    assert shown["frontmatter"]["project"] == "ledger"
    assert shown["worm_ref_first"] == a["worm_ref"]
    r = run(root, "show", a["path"])
    assert "worm_ref: git:" in r.output
    r = run(root, "history", a["path"], "--json")
    assert [v["event"] for v in json.loads(r.output)] == [
        "MEMORY_SUPERSEDE",
        "MEMORY_UPDATE",
        "MEMORY_INGEST",
    ]
    r = run(root, "retract", b["path"], "--reason", "wrong")
    assert r.exit_code == 0
    r = run(root, "archive", a["path"], "--json")
    assert json.loads(r.output)["path"] == "archive/" + a["path"]
    r = run(root, "show", a["path"])
    assert r.exit_code == 3 and "no entry" in r.output
    r = run(root, "show", "archive/" + a["path"], "--at", a["worm_ref"][4:])
    assert r.exit_code == 3
    r = run(root, "show", a["path"], "--at", a["worm_ref"][4:])
    assert r.exit_code == 0 and "Old way" in r.output
    r = run(root, "update", a["path"], "--body", "x")
    assert r.exit_code == 3


def test_log_filters_json(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    run(root, "ingest", "--type", "decision", "--title", "A", "--agent", "x")
    run(root, "ingest", "--type", "pattern", "--title", "B", "--agent", "y")
    r = run(root, "log", "--agent", "y", "--json")
    records = json.loads(r.output)
    assert len(records) == 1 and records[0]["type"] == "pattern"
    r = run(root, "log", "--type", "decision", "--since", "1d", "--json")
    assert len(json.loads(r.output)) == 1
    r = run(root, "log", "--until", "2000-01-01", "--json")
    assert json.loads(r.output) == []
    r = run(root, "log", "--since", "someday")
    assert r.exit_code == 2 and "not a time" in r.output
    r = run(root, "log", "--event", "MEMORY_INIT")
    assert "MEMORY_INIT" in r.output


def test_links_broken_graph_and_catalog_on_sample(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    r = CliRunner().invoke(cli, ["memory", "init", str(root), "--from", str(SAMPLE)])
    assert r.exit_code == 0, r.output
    r = run(root, "links", "--broken", "--json")
    assert r.exit_code == 1
    broken = json.loads(r.stdout)
    assert len(broken) == 1 and broken[0]["broken"]
    target = next(p for p in SAMPLE.rglob("*.md") if "outbox" in p.name and "patterns" in str(p))
    rel = target.relative_to(SAMPLE).as_posix()
    r = run(root, "links", rel, "--json")
    assert r.exit_code == 0
    assert json.loads(r.output)["backlinks"]
    for fmt, marker in (("json", '"edges"'), ("dot", "digraph"), ("mermaid", "graph LR")):
        r = run(root, "graph", "--format", fmt)
        assert r.exit_code == 0 and marker in r.output
    assert run(root, "catalog", "--check").exit_code == 0
    (root / "decisions" / "index.md").write_text("drifted\n")
    git(root, "commit", "-qam", "hand edit")
    r = run(root, "catalog", "--check")
    assert r.exit_code == 1 and "decisions/index.md" in r.output
    r = run(root, "catalog", "--fix")
    assert r.exit_code == 0 and "worm_ref" in r.output
    assert run(root, "catalog", "--check").exit_code == 0
    fsck_ok(root)


def test_console_script_and_module_entry(tmp_path: Path) -> None:
    root = tmp_path / "v"
    exe = Path(sys.executable).parent / "clawql"
    out = subprocess.run([str(exe), "memory", "init", str(root)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "clawql_git",
            "memory",
            "--vault",
            str(root),
            "ingest",
            "--title",
            "no type",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "error:" in out.stderr and "Traceback" not in out.stderr


def test_hooks_run_on_real_git_commands_and_never_fail_them(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    (root / "notes.md").write_text("---\ntype: context\n---\nhand written\n")
    git(root, "add", "notes.md")
    res = git(root, "commit", "-qm", "by hand")
    assert res.returncode == 0
    git(root, "config", "clawql.command", "/nonexistent/clawql")
    assert git(root, "checkout", "-q", "-b", "other").returncode == 0


def test_help_never_imports_heavy_layers() -> None:
    code = (
        "import sys; from clawql_git.__main__ import main; sys.argv=['clawql','--help']\n"
        "try: main()\nexcept SystemExit: pass\n"
        "print('HEAVY:' + ','.join(m for m in ('lancedb','pygit2','mistune') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Usage: clawql" in out.stdout
    assert out.stdout.splitlines()[-1] == "HEAVY:"  # none of the heavy modules loaded
