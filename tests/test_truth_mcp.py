"""Duplicates and contradictions over MCP, through the real client over stdio: memory_ingest
names the entries a write contradicts or repeats, its ``supersede`` resolves them in the same
commit, and memory_supersede resolves one later; a refused supersede writes nothing."""

from __future__ import annotations

import os
from pathlib import Path

from mcp.client.session import ClientSession

import clawql_git
from clawql_git import Vault

from .test_mcp import ok, over_stdio, refused
from .test_truth import RABBIT, RESTATED, minilm, payments  # noqa: F401  (the fixtures)


def _env(tmp_path: Path) -> dict[str, str]:
    """The packaged model (the default), as the vault's index was built with it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    checkout = str(Path(clawql_git.__file__).resolve().parents[1])
    env.update(
        HOME=str(tmp_path / "home"),
        GIT_CONFIG_NOSYSTEM="1",
        PYTHONPATH=os.pathsep.join([checkout, *filter(None, [env.get("PYTHONPATH")])]),
        LANCEDB_LOG="error",
    )
    return env


def test_contradictions_are_named_and_resolved_over_mcp(
    payments: Vault,  # noqa: F811
    tmp_path: Path,
) -> None:
    errlog = tmp_path / "stderr.txt"
    heads: list[str] = []

    async def body(session: ClientSession) -> None:
        wrote = await ok(
            session,
            "memory_ingest",
            type="decision",
            title="Deliver webhooks through RabbitMQ",
            body=RABBIT,
        )
        [contradicted] = wrote["contradictions"]
        assert "outbox" in contradicted["path"]
        heads.append(str(payments.store.head_commit().id))
        why = await refused(session, "memory_supersede", old=wrote["path"], by=wrote["path"])
        assert "cannot supersede itself" in why
        heads.append(str(payments.store.head_commit().id))
        done = await ok(session, "memory_supersede", old=contradicted["path"], by=wrote["path"])
        assert done["path"] == contradicted["path"] and done["event"] == "MEMORY_SUPERSEDE"
        old = await ok(session, "memory_get", path=contradicted["path"])
        assert old["frontmatter"]["status"] == "superseded"
        assert old["frontmatter"]["superseded_by"] == wrote["path"].removesuffix(".md")
        again = await ok(
            session,
            "memory_ingest",
            type="decision",
            title="Retry-safe payment creation",
            body=RESTATED,
            supersede=True,
        )
        [repeated] = [p for p in again["paths"] if p != again["path"]]  # in the same commit
        assert repeated.endswith("/idempotency-keys-for-post-payments.md")
        first = await ok(session, "memory_get", path=repeated)
        assert first["frontmatter"]["status"] == "superseded"
        assert first["worm_ref"] == f"git:{again['commit']}"  # the same commit as the write

    over_stdio(payments.root, _env(tmp_path), errlog, body)
    assert heads[0] == heads[1], "a refused supersede wrote a commit"
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
