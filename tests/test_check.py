"""``clawql memory check``: a branch's changed entries held to the ingest contract, secrets,
broken links and catalog drift, on real branches and real merges (including one made without
the merge driver, as a hosting site's merge button does)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.team.check import check_branch
from clawql_git.team.sharing import clone, push

from .conftest import fsck_ok, git

WHO = Identity(agent_id="checker")
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    vault = Vault.init(tmp_path / "v", identity=WHO, eager_index=False)
    vault.ingest(type="decision", title="Auth with JWT", body="Tokens, not sessions.", identity=WHO)
    vault.close()
    return vault


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["memory", "--vault", str(root), "check", *args])


def commit_files(root: Path, files: dict[str, str], message: str) -> None:
    """A person's commit made with plain git (no hooks, no clawql)."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        git(root, "add", rel)
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message)


def test_a_clean_branch_passes(repo: Vault) -> None:
    git(repo.root, "checkout", "-q", "-b", "feature")
    w = repo.ingest(
        type="pattern", title="Refresh tokens", body="See [[Auth with JWT]].", identity=WHO
    )
    report = check_branch(repo, "main")
    assert report.ok and report.checked == (w.path,), report.problems
    r = run(repo.root)
    assert r.exit_code == 0, r.output
    assert r.output.startswith("## clawql memory check: clean")
    assert "1 changed file(s) checked" in r.output


def test_every_problem_is_listed_with_file_and_line(repo: Vault, tmp_path: Path) -> None:
    git(repo.root, "checkout", "-q", "-b", "feature")
    commit_files(
        repo.root,
        {
            "decisions/2026-07/untyped.md": "---\ntitle: No type here\n---\nBody.\n",
            "context/2026-07/leak.md": (
                "---\ntype: context\ntitle: Leak\n---\nDeploy notes.\n\ntoken: " + TOKEN + "\n"
            ),
            "patterns/2026-07/dangling.md": (
                "---\ntype: pattern\ntitle: Dangling\n---\nFirst line.\n\nSee [[No such note]].\n"
            ),
            "notes.txt": f"aws AKIAZ7Q3N5K2M8P4R6T1\n{TOKEN}\n",
        },
        "hand-written entries",
    )
    index = repo.root / "index.md"
    index.write_text(index.read_text() + "\nedited by hand\n")
    git(repo.root, "add", "index.md")
    git(repo.root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "edit the catalog")
    git(repo.root, "checkout", "-q", "--detach")  # as CI checkouts are
    out = tmp_path / "report.md"
    r = run(repo.root, "--base", "main", "--output", str(out))
    assert r.exit_code == 1
    text = out.read_text()
    assert text.strip() in r.output
    assert "- `decisions/2026-07/untyped.md`: frontmatter field 'type' is required" in text
    assert "- `context/2026-07/leak.md:7`: github-token: ghp_…(40 chars)" in text
    assert "- `notes.txt:1`: aws-access-key-id" in text and "- `notes.txt:2`: github" in text
    assert "- `patterns/2026-07/dangling.md:7`: broken wikilink to 'No such note'" in text
    assert "- `index.md`: differs from a fresh regeneration; catalogs are generated" in (text)
    line = (repo.root / "patterns/2026-07/dangling.md").read_text().splitlines()[6]
    assert "[[No such note]]" in line  # the reported line is the file's line
    r = run(repo.root, "--json")
    assert r.exit_code == 1
    record = json.loads(r.stdout)
    assert (
        record["ok"] is False
        and record["merge_base"] == git(repo.root, "rev-parse", "main").stdout.strip()
    )
    kinds = {(p["kind"], p["path"]) for p in record["problems"]}
    assert {
        ("entry", "decisions/2026-07/untyped.md"),
        ("secret", "context/2026-07/leak.md"),
        ("link", "patterns/2026-07/dangling.md"),
        ("catalog", "index.md"),
    } <= kinds
    assert json.loads(run(repo.root, "--format", "json").stdout) == record


def test_deleting_a_linked_entry_reports_the_link_it_breaks(repo: Vault) -> None:
    target = repo.ingest(type="context", title="Token lifetimes", body="15 minutes.", identity=WHO)
    source = repo.ingest(
        type="pattern",
        title="Short tokens",
        body="Intro.\n\nSee [[Token lifetimes]].",
        identity=WHO,
    )
    repo.close()
    git(repo.root, "checkout", "-q", "-b", "cleanup")
    git(repo.root, "rm", "-q", target.path)
    git(repo.root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "drop it")
    report = check_branch(repo, "main")
    links = [p for p in report.problems if p.kind == "link"]
    assert [(p.path, p.message.split(":")[0]) for p in links] == [
        (source.path, "broken wikilink to 'Token lifetimes'")
    ]
    assert report.checked == ()  # a deletion leaves no file to check, but its effects are


def test_an_unknown_base_is_a_clear_error(repo: Vault) -> None:
    r = run(repo.root, "--base", "trunk")
    assert r.exit_code == 3 and "base 'trunk'" in r.output and "fetch-depth: 0" in r.output


def test_merge_button_without_the_driver_is_caught_and_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull request merged where the clawql merge driver is not installed (a hosting site's
    merge button): catalogs taken from one side. `check` catches it, `catalog --fix` mends it."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    origin = Vault.init(tmp_path / "origin", identity=WHO)
    origin.ingest(type="decision", title="Seed", body="x", identity=WHO)
    origin.close()
    bare = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.root), str(bare))
    a = clone(str(bare), tmp_path / "a", eager_index=False)
    git(a.root, "checkout", "-q", "-b", "feature")
    for n in range(3):
        a.ingest(type="pattern", title=f"Feature pattern {n}", identity=WHO)
    a.close()  # the git index follows the engine's commits before git checks out
    git(a.root, "push", "-q", "origin", "feature")
    git(a.root, "checkout", "-q", "main")
    for n in range(3):
        Vault.open(a.root).ingest(type="pattern", title=f"Main pattern {n}", identity=WHO)
    push(a)
    # The hosting site: a plain clone, no hooks, no driver config.
    site = tmp_path / "site"
    git(tmp_path, "clone", "-q", str(bare), str(site))
    merge = git(
        site, "-c", "core.hooksPath=/dev/null", "merge", "--no-edit", "origin/feature", check=False
    )
    conflicted = git(site, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert merge.returncode != 0 and "index.md" in conflicted  # catalogs do conflict
    git(site, "checkout", "--ours", "--", *conflicted)  # "resolve" by taking one side
    git(site, "add", *conflicted)
    git(site, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-edit")
    r = run(site, "--base", "origin/main")
    assert r.exit_code == 1, r.output
    assert "### catalog" in r.output and "- `index.md`: differs from a fresh regeneration" in (
        r.output
    )
    assert "### entry" not in r.output and "### link" not in r.output
    fixed = CliRunner().invoke(cli, ["memory", "--vault", str(site), "catalog", "--fix"])
    assert fixed.exit_code == 0 and "regenerated" in fixed.output, fixed.output
    r = run(site, "--base", "origin/main")
    assert r.exit_code == 0, r.output
    assert "6 changed file(s)" not in r.output and "clean" in r.output
    titles = {e.title for e in Vault.open(site).entries()}
    assert {f"{s} pattern {n}" for s in ("Feature", "Main") for n in range(3)} <= titles
    fsck_ok(site)


def test_the_workflow_command_runs_on_a_ci_style_checkout(
    repo: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed GitHub Actions step, verbatim, on what actions/checkout leaves: a detached
    pull request head and the base branch only as origin/main."""
    import shlex

    import yaml

    workflow = yaml.safe_load(
        (Path(__file__).parent.parent / ".github/workflows/clawql-check.yml").read_text()
    )
    step = next(s for s in workflow["jobs"]["check"]["steps"] if "memory check" in s.get("run", ""))
    bare = tmp_path / "hosted.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(bare))
    git(repo.root, "checkout", "-q", "-b", "pr")
    w = repo.ingest(
        type="pattern", title="Good pattern", body="See [[Auth with JWT]].", identity=WHO
    )
    repo.close()
    git(repo.root, "push", "-q", str(bare), "pr")
    ci = tmp_path / "ci"
    git(tmp_path, "clone", "-q", str(bare), str(ci))
    git(ci, "checkout", "-q", "--detach", "origin/pr")
    git(ci, "branch", "-q", "-D", "main")
    monkeypatch.chdir(ci)
    args = shlex.split(step["run"].replace('"$BASE"', "main"))
    assert args[:3] == ["clawql", "memory", "check"]
    r = CliRunner().invoke(cli, args[1:])
    assert r.exit_code == 0, r.output
    report = (ci / "clawql-check.md").read_text()
    assert "clean" in report and "against `main`" in report and "1 changed file(s)" in report
    assert w.path.startswith("patterns/")
