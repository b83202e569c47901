"""The vault's side of the ontology: entity queries read through the one reader (PHI withheld
unless allowed, the read recorded) and schema changes written through the one writer (routed
by the review policy like any write, refused when they would leave instances invalid)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from clawql_git.errors import InvalidInput
from clawql_git.gitstore import Tree
from clawql_git.model.identity import Identity
from clawql_git.ontology import EntityMatch, EntityQuery, GitView, parse_schema, run_query
from clawql_git.ontology.query import relation_names
from clawql_git.ontology.schema import kind_of_schema_path, schema_path
from clawql_git.ontology.validate import Ontology
from clawql_git.vault.reader import Reader
from clawql_git.vault.writer import Plan, Writer, WriteResult

DOOR = "entities"
SCHEMA_EVENT = "MEMORY_ONTOLOGY"


@dataclass(frozen=True)
class EntityAnswer:
    """What an entity query returned (PHI instances withheld unless allowed) and its read."""

    query: EntityQuery
    matches: list[EntityMatch]
    withheld: int
    relations: list[str]
    audit_ref: str = ""

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "kind": self.query.kind,
            "where": [f"{k}={v}" for k, v in self.query.where],
            "related": self.query.related or None,
            "relations": self.relations,
            "count": len(self.matches),
            "withheld": self.withheld,
            "audit_ref": self.audit_ref or None,
            "instances": [m.to_record() for m in self.matches],
        }


def query_entities(
    reader: Reader, query: EntityQuery, ident: Identity, allow_pii: bool
) -> EntityAnswer:
    """Run ``query`` at HEAD; every instance returned is read through the reader."""
    commit = reader.commit_at(None)
    onto = Ontology(GitView(reader.store, commit.tree))
    matches = run_query(onto, query)
    paths = list(dict.fromkeys(p for m in matches for p in m.paths()))
    loaded = [reader.load(commit.tree, p) for p in paths]
    read = reader.read_many(DOOR, commit, loaded, ident, allow_pii)
    hidden = {e.path for e in read.refused}
    shown = [m.without(hidden) for m in matches if m.path not in hidden]
    names = relation_names(onto, onto.schemas[query.kind])
    return EntityAnswer(query, shown, len(hidden), names, read.audit_ref)


def write_schemas(writer: Writer, texts: Sequence[str | bytes], ident: Identity) -> WriteResult:
    """Add or change the schemas the documents' ``kind`` names, together in one
    MEMORY_ONTOLOGY commit (kinds that reference each other land at once), routed like any
    write (a proposal when review is required); the writer refuses it, naming them, when it
    would leave instances invalid."""
    files: dict[str, bytes | None] = {}
    for text in texts:
        data = text.encode("utf-8") if isinstance(text, str) else text
        files[schema_path(parse_schema("the schema", data).kind)] = data
    if not files:
        raise InvalidInput("no schema given")
    kinds = ", ".join(kind_of_schema_path(p) for p in files)

    def prepare(tree: Tree | None) -> Plan:
        return Plan(SCHEMA_EVENT, {}, f"schema {kinds}", raw_files=dict(files))

    result = writer.write(prepare, writer.identity(ident))
    return replace(result, path=next(iter(files)), paths=tuple(files))
