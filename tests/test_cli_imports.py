"""What a cold CLI process imports for its work: `code index` loads nothing of the vault's index
(LanceDB, pyarrow) nor of the adapters' services, and a recall loads LanceDB without pandas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import git

SOURCE = "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"
HEAVY = ("lancedb", "pyarrow", "pandas", "boto3", "mcp", "dulwich")


def loaded_after(argv: list[str], names: tuple[str, ...]) -> tuple[list[str], str]:
    """Run the CLI with ``argv`` in a fresh interpreter: which of ``names`` were imported by the
    time it finished, and its output."""
    code = (
        "import sys\n"
        "from clawql_git.__main__ import main\n"
        f"sys.argv = ['clawql', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        f"print('LOADED:' + ','.join(m for m in {names!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    last = out.stdout.splitlines()[-1]
    assert last.startswith("LOADED:"), out.stdout
    return [m for m in last.removeprefix("LOADED:").split(",") if m], out.stdout


def test_code_index_imports_no_index_layer_and_no_vault(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(SOURCE)
    git(repo, "init", "-q")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "one file")
    names = (*HEAVY, "clawql_git.vault.code_changes", "clawql_git.vault.facade")
    loaded, output = loaded_after(["code", "index", str(repo)], names)
    assert "1 files (1 parsed" in output
    assert loaded == []


def test_recall_imports_lancedb_without_pandas_or_the_code_graph(demo: Path) -> None:
    """The demo vault has no code graph attached and nothing of ours uses pandas, which pyarrow
    would otherwise import while LanceDB loads."""
    git(demo, "status")  # a vault, with the hash embedder (the fixture's environment)
    built = subprocess.run(
        [sys.executable, "-m", "clawql_git", "memory", "--vault", str(demo), "index", "update"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    names = ("lancedb", "pandas", "clawql_git.codegraph.graph", "clawql_git.codegraph.indexer")
    argv = ["memory", "--vault", str(demo), "recall", "webhooks in redis", "--no-cache"]
    loaded, output = loaded_after(argv, names)
    assert "webhook" in output.lower()
    assert loaded == ["lancedb"]
