"""Typed entities (issue #16, item 1): ``entity_instance`` entries held to their kind's ``.cqe``
schema at every door (ingest, ``memory check``, the protected remote with a real ``git push``,
pull), schema changes that would break instances refused naming them, and entity queries that
follow references both ways, through the CLI, the library and the real MCP client."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import CheckFailed, EntityInvalid, InvalidInput, NotFound
from clawql_git.ontology.schema import SchemaError, parse_schema
from clawql_git.review.proposals import set_review_policy
from clawql_git.team.check import check_branch
from clawql_git.team.sharing import clone, pull

from .conftest import ROOT, SAMPLE, git

WHO = Identity(agent_id="test-agent", session_id="sess-1")
PERSON = b"""kind: person
fields:
  - name: name
    type: string
    required: true
  - name: level
    type: integer
relations:
  - name: owns
    kind: service
    field: owner
"""
SERVICE = b"""kind: service
fields:
  - name: name
    type: string
    required: true
  - name: language
    type: enum
    values: [python, go]
    required: true
  - name: owner
    type: reference(person)
    required: true
  - name: launched
    type: date
  - name: replicas
    type: list[integer]
"""
README = (ROOT / "README.md").read_text()


def instance(kind: str, title: str, **fields: object) -> str:
    lines = [f"{k}: {json.dumps(v)}" for k, v in fields.items()]
    head = "\n".join(["type: entity_instance", f"title: {title}", f"entity_kind: {kind}", *lines])
    return f"---\n{head}\n---\nAbout {title}.\n"


def head_of(root: Path, ref: str = "HEAD") -> str:
    return git(root, "rev-parse", ref).stdout.strip()


@pytest.fixture
def onto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    """A vault with the person and service schemas, one person and one service."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    vault = Vault.init(tmp_path / "v", identity=WHO, eager_index=False)
    vault.write_schema(PERSON, SERVICE, identity=WHO)  # they reference each other: one commit
    vault.ingest_markdown(instance("person", "Ada", name="Ada", level=3), identity=WHO)
    svc = instance("service", "Billing", name="billing", language="go", owner="ada")
    vault.ingest_markdown(svc, identity=WHO)
    vault.close()
    return vault


# ---------------------------------------------------------------- the schema format


def test_the_sample_schemas_parse_with_their_references() -> None:
    service = parse_schema(
        "ontology/entities/service.cqe",
        (SAMPLE / "ontology/entities/service.cqe").read_bytes(),
    )
    owner = service.field("owner")
    assert owner is not None and str(owner.type) == "reference(person)" and owner.required
    used_by = parse_schema(
        "ontology/entities/dependency.cqe",
        (SAMPLE / "ontology/entities/dependency.cqe").read_bytes(),
    ).field("used_by")
    assert used_by is not None and str(used_by.type) == "list[reference(service)]"
    assert [r.name for r in service.relations] == ["uses"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"kind: x\nfields:\n  - name: a\n    type: strng\n", "type 'strng'"),
        (b"kind: x\nfields:\n  - name: a\n    type: enum\n", "list its 'values'"),
        (b"kind: x\nfields:\n  - name: a\n    type: string\n    requird: true\n", "requird"),
        (b"kind: x\nfields:\n  - name: title\n    type: string\n", "frontmatter key"),
        (b"kind: x\nlinks: [a]\n", "unknown key"),
        (b"kind: Y\n", "lowercase"),
    ],
)
def test_a_bad_schema_is_named(text: bytes, says: str) -> None:
    with pytest.raises(SchemaError, match=says):
        parse_schema("the schema", text)


# ---------------------------------------------------------------- ingest


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"language": "go", "owner": "ada"}, "name", "required by the service schema, missing"),
        ({"name": "x", "language": "rust", "owner": "ada"}, "language", "is not one of"),
        ({"name": "x", "language": "go", "owner": "ada", "colour": "red"}, "colour", "unknown"),
        ({"name": "x", "language": "go", "owner": "nobody"}, "owner", "no such instance"),
        ({"name": "x", "language": "go", "owner": "ada", "launched": "soon"}, "launched", "date"),
        ({"name": "x", "language": "go", "owner": "ada", "replicas": [1, "2"]}, "replicas", "item"),
        ({"name": 7, "language": "go", "owner": "ada"}, "name", "expected string"),
    ],
    ids=["required", "enum", "unknown", "reference", "date", "list", "type"],
)
def test_an_invalid_instance_is_refused_at_ingest_naming_the_field(
    onto: Vault, fields: dict[str, object], field: str, says: str
) -> None:
    before = head_of(onto.root)
    vault = Vault.open(onto.root)
    with pytest.raises(EntityInvalid) as caught:
        vault.ingest_markdown(instance("service", "Ledger", **fields), identity=WHO)
    assert f"field {field!r}" in caught.value.message and says in caught.value.message
    assert caught.value.exit_code == 2
    assert head_of(onto.root) == before
    assert not list((onto.root / "entity_instances" / "service").rglob("ledger.md"))
    assert git(onto.root, "status", "--porcelain").stdout == ""


def test_the_cli_refuses_with_exit_2_and_a_valid_instance_lands(
    onto: Vault, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text(instance("service", "Ledger", name="ledger", language="go", owner="bob"))
    r = CliRunner().invoke(cli, ["memory", "--vault", str(onto.root), "ingest", str(bad)])
    assert r.exit_code == 2 and "field 'owner'" in r.output and "'bob'" in r.output
    fixed = tmp_path / "fixed.md"
    fixed.write_text(instance("service", "Ledger", name="ledger", language="go", owner="ada"))
    r = CliRunner().invoke(cli, ["memory", "--vault", str(onto.root), "ingest", str(fixed)])
    assert r.exit_code == 0, r.output


def test_an_instance_of_a_kind_without_schema_is_refused(onto: Vault) -> None:
    with pytest.raises(EntityInvalid, match="no schema for kind 'asset'"):
        Vault.open(onto.root).ingest(
            type="entity_instance", title="Pump 7", meta={"entity_kind": "asset"}, identity=WHO
        )


def test_an_update_that_breaks_an_instance_is_refused(onto: Vault) -> None:
    vault = Vault.open(onto.root)
    path = "entity_instances/service/" + _month(onto.root, "service") + "/billing.md"
    with pytest.raises(EntityInvalid, match="field 'level'"):
        vault.update(path, changes={"level": 2}, identity=WHO)
    vault.update(path, changes={"launched": "2026-05-01"}, identity=WHO)


def test_removing_a_referenced_instance_names_the_referrer(onto: Vault) -> None:
    vault = Vault.open(onto.root)
    person = "entity_instances/person/" + _month(onto.root, "person") + "/ada.md"
    with pytest.raises(EntityInvalid, match=r"billing\.md: field 'owner': references person"):
        vault.archive(person, identity=WHO)
    assert (onto.root / person).is_file()


def _month(root: Path, kind: str) -> str:
    return next((root / "entity_instances" / kind).iterdir()).name


# ---------------------------------------------------------------- schema changes


def test_a_schema_change_that_breaks_instances_names_them(onto: Vault) -> None:
    before = head_of(onto.root)
    breaking = PERSON.replace(
        b"relations:", b"  - name: team\n    type: string\n    required: true\nrelations:"
    )
    vault = Vault.open(onto.root)
    with pytest.raises(EntityInvalid) as caught:
        vault.write_schema(breaking, identity=WHO)
    message = caught.value.message
    assert "the change to ontology/entities/person.cqe would leave 1 instance(s) invalid" in message
    assert "ada.md: field 'team': required by the person schema, missing" in message
    assert head_of(onto.root) == before
    r = CliRunner().invoke(
        cli, ["memory", "--vault", str(onto.root), "schema", "-"], input=breaking
    )
    assert r.exit_code == 2 and "field 'team'" in r.output
    # made optional first, the same field lands; the instances can then fill it in
    optional = breaking.replace(b"    required: true\nrelations:", b"relations:")
    assert vault.write_schema(optional, identity=WHO).event == "MEMORY_ONTOLOGY"


def test_dropping_a_schema_field_names_the_instances_that_carry_it(onto: Vault) -> None:
    narrower = PERSON.replace(b"  - name: level\n    type: integer\n", b"")
    with pytest.raises(EntityInvalid, match=r"ada\.md: field 'level': unknown field"):
        Vault.open(onto.root).write_schema(narrower, identity=WHO)


def test_a_schema_change_is_a_reviewed_write(onto: Vault) -> None:
    vault = Vault.open(onto.root)
    set_review_policy(vault, True, "alice")
    main = head_of(onto.root, "main")
    grown = PERSON.replace(b"relations:", b"  - name: team\n    type: string\nrelations:")
    result = vault.write_schema(grown, identity=WHO)
    assert result.branch.startswith("proposals/test-agent/")
    assert head_of(onto.root, "main") == main
    shown = git(onto.root, "show", f"{result.branch}:ontology/entities/person.cqe").stdout
    assert "name: team" in shown


# ---------------------------------------------------------------- memory check


def test_memory_check_reports_an_invalid_instance_with_its_field(onto: Vault) -> None:
    root = onto.root
    git(root, "checkout", "-q", "-b", "feature")
    rel = "entity_instances/service/2026-12/ledger.md"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(instance("service", "Ledger", language="go", owner="ada", x=1))
    git(root, "add", rel)
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "hand-made instance")
    report = check_branch(Vault.open(root), "main")
    found = {(p.kind, p.path, p.message.split(":")[0]) for p in report.problems}
    assert ("entity", rel, "field 'name'") in found and ("entity", rel, "field 'x'") in found
    r: Result = CliRunner().invoke(cli, ["memory", "--vault", str(root), "check"])
    assert r.exit_code == 1 and "### entity (2)" in r.output and "field 'name'" in r.output


# ---------------------------------------------------------------- the protected remote and pull


@pytest.fixture
def team(onto: Vault, tmp_path: Path) -> tuple[Path, Path]:
    """``onto`` pushed to a protected bare remote."""
    remote = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    result = CliRunner().invoke(cli, ["remote", "protect", str(remote)])
    assert result.exit_code == 0, result.output
    git(onto.root, "remote", "add", "origin", str(remote))
    assert git(onto.root, "push", "-q", "origin", "main", check=False).returncode == 0
    return onto.root, remote


def hand_commit(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        git(root, "add", rel)
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "hand-made")


def test_the_protected_remote_refuses_an_invalid_instance(team: tuple[Path, Path]) -> None:
    root, remote = team
    before = head_of(remote, "main")
    rel = "entity_instances/service/2026-12/ledger.md"
    hand_commit(
        root, {rel: instance("service", "Ledger", name="l", language="go", owner="zed").encode()}
    )
    pushed = git(root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0
    lines = [x for x in pushed.stderr.splitlines() if "clawql-git: refused:" in x]
    assert any(rel in x and "field 'owner'" in x and "'zed'" in x for x in lines), pushed.stderr
    assert head_of(remote, "main") == before


def test_the_protected_remote_refuses_a_schema_push_that_breaks_instances(
    team: tuple[Path, Path],
) -> None:
    root, remote = team
    before = head_of(remote, "main")
    narrower = PERSON.replace(b"  - name: level\n    type: integer\n", b"")
    hand_commit(root, {"ontology/entities/person.cqe": narrower})
    pushed = git(root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and "field 'level': unknown field" in pushed.stderr
    assert head_of(remote, "main") == before


def test_review_required_refuses_a_schema_pushed_straight_to_main(
    team: tuple[Path, Path],
) -> None:
    root, _ = team
    vault = Vault.open(root)
    set_review_policy(vault, True, "alice")
    vault.close()
    assert git(root, "push", "-q", "origin", "main", check=False).returncode == 0
    grown = PERSON.replace(b"relations:", b"  - name: team\n    type: string\nrelations:")
    hand_commit(root, {"ontology/entities/person.cqe": grown})
    pushed = git(root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and "changes a schema on refs/heads/main without review" in (
        pushed.stderr
    )


def test_pull_refuses_an_invalid_instance_before_merging(onto: Vault, tmp_path: Path) -> None:
    remote = tmp_path / "plain.git"  # not protected: pull must hold the line itself
    git(tmp_path, "clone", "-q", "--bare", str(onto.root), str(remote))
    mine = clone(str(remote), tmp_path / "mine", eager_index=False)
    mine.close()
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    rel = "entity_instances/person/2026-12/bob.md"
    hand_commit(other, {rel: instance("person", "Bob", level="high").encode()})
    git(other, "push", "-q", "origin", "HEAD:main")
    before = head_of(mine.root)
    with pytest.raises(CheckFailed) as caught:
        pull(Vault.open(mine.root))
    message = caught.value.message
    assert "nothing was merged" in message and rel in message
    assert "field 'name'" in message and "field 'level'" in message
    assert head_of(mine.root) == before


# ---------------------------------------------------------------- queries


def test_entities_follow_references_both_ways(demo: Path) -> None:
    vault = Vault.open(demo)
    owns = vault.entities("person", [("id", "priya-raman")], "owns", identity=WHO)
    assert [m.id for m in owns.matches] == ["priya-raman"]
    assert [r.id for r in owns.matches[0].related] == ["payments-api", "webhook-worker"]
    forward = vault.entities("service", [("name", "dashboard-web")], "owner", identity=WHO)
    assert [r.id for r in forward.matches[0].related] == ["lena-fischer"]
    uses = vault.entities("service", [("id", "payments-api")], "uses", identity=WHO)
    assert [r.id for r in uses.matches[0].related] == ["asyncpg", "redis"]
    same = vault.entities("service", [("id", "payments-api")], "dependency.used_by", identity=WHO)
    assert [r.id for r in same.matches[0].related] == ["asyncpg", "redis"]
    listed = vault.entities("dependency", [("used_by", "payments-api")], identity=WHO)
    assert sorted(m.id for m in listed.matches) == ["asyncpg", "redis"]
    python = vault.entities("service", [("language", "python")], identity=WHO)
    assert [m.id for m in python.matches] == ["payments-api", "webhook-worker"]
    assert owns.audit_ref.startswith("git:")  # a read, on the audit chain
    with pytest.raises(InvalidInput, match=r"it has: owner, uses, dependency\.used_by"):
        vault.entities("service", related="owned_by", identity=WHO)
    with pytest.raises(InvalidInput, match="no field 'colour'"):
        vault.entities("service", [("colour", "red")], identity=WHO)
    with pytest.raises(NotFound, match="kinds: dependency, person, service"):
        vault.entities("contract", identity=WHO)


def test_entities_cli_json_and_phi_withheld(onto: Vault) -> None:
    vault = Vault.open(onto.root)
    vault.ingest_markdown(
        instance("person", "Eve", name="Eve", pii_classification="PHI"), identity=WHO
    )
    args = ["memory", "--vault", str(onto.root), "entities", "person", "--related", "owns"]
    r = CliRunner().invoke(cli, [*args, "--json"])
    assert r.exit_code == 0, r.output
    record = json.loads(r.output)
    assert [i["id"] for i in record["instances"]] == ["ada"] and record["withheld"] == 1
    assert [x["id"] for x in record["instances"][0]["related"]] == ["billing"]
    r = CliRunner().invoke(cli, [*args, "--allow-pii"])
    assert "person eve" in r.output and "owns -> service billing" in r.output


def test_memory_entities_over_the_real_mcp_client(demo: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawql_git", "mcp", "serve", "--vault", str(demo)],
        env=env,
    )
    seen: dict[str, object] = {}

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(
                "memory_entities",
                {"kind": "person", "where": {"name": "Priya Raman"}, "related": "owns"},
            )
            seen["ok"] = result.structured_content
            bad = await session.call_tool("memory_entities", {"kind": "service", "related": "x"})
            seen["bad"] = bad.is_error

    anyio.run(main)
    record = seen["ok"]
    assert isinstance(record, dict)
    related = record["instances"][0]["related"]
    assert [x["id"] for x in related] == ["payments-api", "webhook-worker"]
    assert seen["bad"] is True


# ---------------------------------------------------------------- the README


def readme_lines() -> list[str]:
    block = README.split("<!-- entities:start -->\n", 1)[1].split("<!-- entities:end -->", 1)[0]
    body = block.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_the_readme_ontology_commands_run_as_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env.update(CLAWQL_EMBEDDING_MODEL="hash", CLAWQL_VAULT="demo-vault")
    made = subprocess.run(
        [sys.executable, "-m", "clawql_git", "memory", "init", "demo-vault", "--from", str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    lines = readme_lines()
    assert len(lines) >= 5
    for line in lines:
        words = shlex.split(line, comments=True)
        assert words[0] == "clawql", line
        want = 2 if "exit 2" in line else 0
        done = subprocess.run(
            [sys.executable, "-m", "clawql_git", *words[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == want, f"{line}\n{done.stdout}\n{done.stderr}"
        assert (done.stdout + done.stderr).strip(), line
