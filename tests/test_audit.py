"""The audit chain, negative proof, and verify against real tampering with the real git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli

from .conftest import AGENT, fsck_ok, git

READER = Identity(agent_id="auditor-agent", session_id="S-1", correlation_id="C-9")


def run(root: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["memory", "--vault", str(root), *args])
    return r.exit_code, r.output


def test_recalls_are_commits_on_the_audit_chain(demo: Path) -> None:
    vault = Vault.open(demo)
    result = vault.recall("webhook deliveries lost", limit=3, identity=READER)
    cached = vault.recall("webhook deliveries lost", limit=3, identity=READER)
    assert result.audit_ref and cached.cache_hit
    log = git(demo, "log", "--format=%H %s", "refs/clawql/audit").stdout.splitlines()
    assert len(log) == 2 and "MEMORY_CACHE_HIT" in log[0] and "MEMORY_RECALL" in log[1]
    sha = result.audit_ref[4:]
    head = git(demo, "rev-parse", "HEAD").stdout.strip()
    assert (
        git(demo, "rev-parse", f"{sha}^{{tree}}").stdout
        == git(demo, "rev-parse", f"{head}^{{tree}}").stdout
    )  # the tree of the event is the vault tree that was read: nothing copied
    trailers = git(demo, "log", "-1", "--format=%(trailers)", sha).stdout
    assert "Agent-Id: auditor-agent" in trailers and "Session-Id: S-1" in trailers
    assert f"Read-Commit: {head}" in trailers and "Cache-Hit: false" in trailers
    for hit in result.hits:
        blob = git(demo, "rev-parse", f"{head}:{hit.path}").stdout.strip()
        assert f"Recall-Hit: {hit.path} {blob}" in trailers
    fsck_ok(demo)


def test_audit_queries_cover_both_chains(demo: Path) -> None:
    vault = Vault.open(demo)
    vault.ingest(type="decision", title="Use gRPC", identity=Identity(agent_id="x"))
    vault.recall("grpc", identity=Identity(agent_id="x", session_id="S-2"))
    code, out = run(demo, "audit", "--agent", "x", "--type", "decision", "--since", "90d", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 1 and rows[0]["event"] == "MEMORY_INGEST"
    code, out = run(demo, "audit", "--session", "S-2", "--json")
    rows = json.loads(out)
    assert [r["event"] for r in rows] == ["MEMORY_RECALL"] and rows[0]["chain"] == "audit"
    code, out = run(demo, "audit", "--event", "MEMORY_ONTOLOGY")
    assert "MEMORY_ONTOLOGY" in out
    plain = git(demo, "log", "--format=%(trailers:key=Clawql-Event,valueonly)").stdout.split()
    assert plain.count("MEMORY_INGEST") >= 39  # readable with plain git


def test_negative_proof_and_pii(demo: Path) -> None:
    vault = Vault.open(demo)
    phi = vault.ingest(
        type="entity_instance",
        title="Patient intake record",
        body="Patient Jane Roe, allergy to penicillin.",
        meta={
            "pii_classification": "PHI",
            "entity_kind": "person",
            "name": "Jane Roe",
            "role": "Patient",
        },
        identity=AGENT,
    )
    plain = vault.recall("patient penicillin allergy", identity=READER)
    assert phi.path not in [h.path for h in plain.hits]
    answer = vault.audit_reads(pii="PHI", session="S-1")
    assert answer.matches == [] and "no read returned a PHI-classified entry" in answer.statement()
    assert answer.events_scanned == 1
    allowed = vault.recall("patient penicillin allergy", allow_pii=True, identity=READER)
    assert phi.path in [h.path for h in allowed.hits]
    answer = vault.audit_reads(pii="PHI", session="S-1")
    assert [m.sha for m in answer.matches] == [allowed.audit_ref[4:]]
    assert answer.matches[0].allow_pii
    code, out = run(demo, "audit", "reads", "--path", phi.path)
    assert code == 0 and "1 read(s) returned entry" in out
    code, out = run(demo, "audit", "reads", "--path", "decisions/2026-01/never.md", "--json")
    assert "no read returned" in json.loads(out)["statement"]


def test_a_burst_of_recalls_from_four_processes_loses_none(demo: Path) -> None:
    script = (
        "import sys\nfrom clawql_git import Identity, Vault\n"
        "v = Vault.open(sys.argv[1])\nn = int(sys.argv[2])\n"
        "words = ['webhook', 'redis', 'idempotency', 'money', 'jwt', 'outbox', 'pool']\n"
        "for i in range(250):\n"
        "    q = words[i % 7] + ' ' + words[(i + n) % 7]\n"
        "    v.recall(q, limit=3, identity=Identity(agent_id=f'w{n}', session_id=str(i)))\n"
    )
    Vault.open(demo).update_index()
    env = {**os.environ, "CLAWQL_EMBEDDING_MODEL": "hash"}
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(demo), str(n)], env=env)
        for n in range(4)
    ]
    assert [p.wait(timeout=600) for p in procs] == [0, 0, 0, 0]
    count = git(demo, "rev-list", "--count", "refs/clawql/audit").stdout.strip()
    assert count == "1000"
    assert git(demo, "rev-list", "--merges", "refs/clawql/audit").stdout == ""
    agents = git(
        demo, "log", "--format=%(trailers:key=Agent-Id,valueonly)", "refs/clawql/audit"
    ).stdout.split()
    assert {a: agents.count(a) for a in set(agents)} == {f"w{n}": 250 for n in range(4)}
    assert Vault.open(demo).verify().ok


# ---------------------------------------------------------------- tampering


def tampered(demo: Path) -> list[str]:
    """verify's problems (also through the CLI, which must exit 1 and name them)."""
    report = Vault.open(demo).verify()
    code, out = run(demo, "verify")
    assert (code == 1) == (not report.ok), out
    for problem in report.problems:
        assert problem in out
    return report.problems


def prepare(demo: Path) -> Vault:
    vault = Vault.open(demo)
    vault.recall("webhook", identity=READER)
    vault.recall("redis", identity=READER)
    vault.close()
    assert tampered(demo) == []
    return vault


def test_amend_is_detected(demo: Path) -> None:
    prepare(demo)
    old = git(demo, "rev-parse", "HEAD").stdout.strip()
    git(demo, "commit", "--amend", "-qm", "rewritten message")
    problems = tampered(demo)
    assert any(old in p and "no longer an ancestor" in p for p in problems), problems


def test_rebase_is_detected(demo: Path) -> None:
    prepare(demo)
    old = git(demo, "rev-parse", "HEAD~3").stdout.strip()
    env_ok = git(demo, "rebase", "-q", "--exec", "true", "--force-rebase", "HEAD~5", check=False)
    assert env_ok.returncode == 0, env_ok.stderr
    assert any(old in p for p in tampered(demo))


def test_reset_hard_and_new_commits_is_detected(demo: Path) -> None:
    prepare(demo)
    lost = git(demo, "rev-parse", "HEAD").stdout.strip()
    git(demo, "reset", "-q", "--hard", "HEAD~2")
    Vault.open(demo).ingest(type="context", title="After the reset", identity=AGENT)
    problems = tampered(demo)
    assert any(lost in p and "history was rewritten" in p for p in problems), problems


def test_an_old_blob_edited_by_hand_is_detected(demo: Path) -> None:
    prepare(demo)
    path = git(demo, "ls-tree", "-r", "--name-only", "HEAD~10").stdout.split()[0]
    blob = git(demo, "rev-parse", f"HEAD~10:{path}").stdout.strip()
    git(demo, "repack", "-adq")  # make sure the object is loose again for the edit
    git(demo, "cat-file", "blob", blob)
    loose = demo / ".git" / "objects" / blob[:2] / blob[2:]
    if not loose.exists():
        data = git(demo, "cat-file", "blob", blob).stdout.encode()
        loose.parent.mkdir(exist_ok=True)
        loose.write_bytes(zlib.compress(b"blob %d\x00" % len(data) + data))
        for pack in (demo / ".git" / "objects" / "pack").glob("*.pack"):
            pack.unlink()
            pack.with_suffix(".idx").unlink()
            pack.with_suffix(".rev").unlink(missing_ok=True)
        git(demo, "unpack-objects", check=False)
    forged = b"---\ntype: decision\ntitle: forged\n---\nedited by hand\n"
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\x00" % len(forged) + forged))
    problems = tampered(demo)
    assert any("git fsck failed" in p for p in problems), problems


def test_forged_trailers_are_detected(demo: Path) -> None:
    prepare(demo)
    named = git(demo, "ls-tree", "-r", "--name-only", "HEAD", "decisions").stdout.split()[0]
    (demo / "context" / "sneaky.md").write_text("---\ntype: context\ntitle: Sneaky\n---\nx\n")
    git(demo, "add", "context/sneaky.md")
    message = (
        f"MEMORY_INGEST: ingest {named}\n\nClawql-Event: MEMORY_INGEST\n"
        f"Entry-Path: {named}\nEntry-Type: decision\nAgent-Id: claude-code\n"
    )
    git(demo, "commit", "-qm", message)
    sha = git(demo, "rev-parse", "HEAD").stdout.strip()
    problems = tampered(demo)
    assert any(
        sha in p and f"names Entry-Path {named} but did not change it" in p for p in problems
    ), problems
    assert any(sha in p and "changed context/sneaky.md without naming it" in p for p in problems)


def test_a_deleted_audit_commit_is_detected(demo: Path) -> None:
    prepare(demo)
    tip = git(demo, "rev-parse", "refs/clawql/audit").stdout.strip()
    parent = git(demo, "rev-parse", "refs/clawql/audit~1").stdout.strip()
    git(demo, "update-ref", "refs/clawql/audit", parent)  # drop the last event
    problems = tampered(demo)
    assert any(tip in p and "refs/clawql/audit" in p for p in problems), problems


def test_a_force_moved_audit_ref_is_detected(demo: Path) -> None:
    prepare(demo)
    head = git(demo, "rev-parse", "HEAD").stdout.strip()
    tree = git(demo, "rev-parse", "HEAD^{tree}").stdout.strip()
    fake = subprocess.run(
        [
            "git",
            "commit-tree",
            tree,
            "-m",
            "MEMORY_RECALL: x\n\nClawql-Event: MEMORY_RECALL\nRead-Commit: " + head,
        ],
        cwd=demo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(demo, "update-ref", "refs/clawql/audit", fake)
    problems = tampered(demo)
    assert any("refs/clawql/audit" in p and "no longer an ancestor" in p for p in problems)


def test_nothing_is_repaired(demo: Path) -> None:
    prepare(demo)
    git(demo, "commit", "--amend", "-qm", "rewritten")
    before = git(demo, "rev-parse", "HEAD").stdout
    tampered(demo)
    tampered(demo)
    assert git(demo, "rev-parse", "HEAD").stdout == before


def test_flywheel_export(demo: Path, tmp_path: Path) -> None:
    vault = Vault.open(demo)
    ok = vault.ingest(
        type="task_result",
        title="Retry fixed the flake",
        body="Worked.",
        identity=Identity(agent_id="a", verdict="passed"),
    )
    vault.recall("retry flake", identity=READER)
    vault.recall("retry flake", identity=READER)  # a cache hit
    out = tmp_path / "fly.jsonl"
    code, text = run(demo, "export", "--flywheel", "-o", str(out))
    assert code == 0, text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    recalls = [r for r in records if r["kind"] == "recall"]
    assert len(recalls) == 2 and recalls[1]["cache_hit"] and recalls[0]["query"] == "retry flake"
    assert any(h["path"] == ok.path and h["verdict"] == "passed" for h in recalls[0]["recalled"])
    entries = [r for r in records if r["kind"] == "entry"]
    assert [e["path"] for e in entries] == [ok.path] and entries[0]["worm_ref"] == ok.worm_ref
    code, text = run(demo, "export", "--flywheel", "--exclude-cache-hits")
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    assert sum(1 for r in lines if r["kind"] == "recall") == 1


def test_audit_by_correlation_and_path_and_export_since(demo: Path) -> None:
    vault = Vault.open(demo)
    made = vault.ingest(
        type="decision",
        title="Correlated",
        identity=Identity(agent_id="x", correlation_id="TICKET-42"),
    )
    vault.recall("correlated", identity=Identity(agent_id="r", correlation_id="TICKET-42"))
    code, out = run(demo, "audit", "--correlation", "TICKET-42", "--json")
    assert sorted(r["event"] for r in json.loads(out)) == ["MEMORY_INGEST", "MEMORY_RECALL"]
    code, out = run(demo, "audit", "--path", made.path, "--json")
    assert {r["chain"] for r in json.loads(out)} == {"main", "audit"}
    code, out = run(demo, "export", "--flywheel", "--since", "2000-01-01")
    assert code == 0 and '"kind": "recall"' in out
    _code, out = run(demo, "export", "--flywheel", "--since", "2999-01-01")
    assert '"kind": "recall"' not in out
