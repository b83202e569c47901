"""Queries against the schema: the instances of a kind, filtered by field values, each with the
instances one relation reaches, following a reference forwards (a service's ``owner``) or
backwards (the services whose ``owner`` is this person)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from clawql_git.errors import InvalidInput, NotFound
from clawql_git.model.entry import jsonable
from clawql_git.ontology.schema import SCHEMA_DIR, Schema
from clawql_git.ontology.validate import Instance, Ontology

PSEUDO_FIELDS = ("id", "title", "status")  # filterable besides the schema's own fields


@dataclass(frozen=True)
class EntityQuery:
    """``kind``, ``where`` pairs (all must hold; a list field holds a value it contains) and
    the relation to follow from each match ("" for none)."""

    kind: str
    where: tuple[tuple[str, str], ...] = ()
    related: str = ""


@dataclass(frozen=True)
class Link:
    """How a relation is followed: forwards through ``field`` of the queried kind, or backwards
    through ``field`` of ``kind`` (the instances that reference the match)."""

    name: str
    kind: str
    field: str
    backwards: bool


@dataclass(frozen=True)
class EntityMatch:
    """One instance the query found, and the instances its relation reaches."""

    path: str
    id: str
    kind: str
    title: str
    fields: dict[str, Any]
    related: tuple[EntityMatch, ...] = field(default=())
    relation: str = ""

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "path": self.path,
            "title": self.title,
            "fields": jsonable(self.fields),
        }
        if self.relation:
            out["relation"] = self.relation
            out["related"] = [r.to_record() for r in self.related]
        return out

    def paths(self) -> list[str]:
        """This instance's path and those of everything it carries."""
        return [self.path, *(r.path for r in self.related)]

    def without(self, hidden: set[str]) -> EntityMatch:
        """This match with the related instances in ``hidden`` left out."""
        return replace(self, related=tuple(r for r in self.related if r.path not in hidden))


def run_query(onto: Ontology, query: EntityQuery) -> list[EntityMatch]:
    """The instances of ``query.kind`` that match, in path order."""
    schema = _schema(onto, query.kind)
    for name, _ in query.where:
        if name not in PSEUDO_FIELDS and schema.field(name) is None:
            raise InvalidInput(
                f"--where {name}: {query.kind} has no field {name!r} "
                f"(fields: {', '.join([*PSEUDO_FIELDS, *(f.name for f in schema.fields)])})"
            )
    link = resolve_relation(onto, schema, query.related) if query.related else None
    found = [i for i in onto.instances(query.kind) if _matches(i, query.where)]
    return [_match(onto, i, link) for i in found]


def _schema(onto: Ontology, kind: str) -> Schema:
    schema = onto.schemas.get(kind)
    if schema is None:
        known = ", ".join(sorted(onto.schemas)) or "none"
        raise NotFound(f"no entity kind {kind!r} ({SCHEMA_DIR}/{kind}.cqe); kinds: {known}")
    return schema


def resolve_relation(onto: Ontology, schema: Schema, name: str) -> Link:
    """A reference field of the kind, a relation its schema names, or ``<kind>.<field>`` of a
    kind that references it."""
    spec = schema.field(name)
    if spec is not None and spec.type.base == "reference":
        return Link(name, spec.type.target, name, backwards=False)
    rel = next((r for r in schema.relations if r.name == name), None)
    if rel is not None:
        return Link(name, rel.kind, rel.field, backwards=True)
    kind, _, fname = name.partition(".")
    other = onto.schemas.get(kind)
    spec = other.field(fname) if other is not None else None
    if spec is not None and spec.type.target == schema.kind:
        return Link(name, kind, fname, backwards=True)
    raise InvalidInput(
        f"--related {name}: {schema.kind} has no such relation (it has: "
        f"{', '.join(relation_names(onto, schema)) or 'none'})"
    )


def relation_names(onto: Ontology, schema: Schema) -> list[str]:
    """Every name ``--related`` takes for this kind."""
    names = [f.name for f in schema.references()] + [r.name for r in schema.relations]
    for other in onto.schemas.values():
        names += [
            f"{other.kind}.{f.name}" for f in other.references() if f.type.target == schema.kind
        ]
    return names


def _matches(inst: Instance, where: Iterable[tuple[str, str]]) -> bool:
    for name, wanted in where:
        value = inst.id if name == "id" else inst.meta.get(name)
        values = value if isinstance(value, list) else [value]
        if wanted not in [str(v) for v in values if v is not None]:
            return False
    return True


def _match(onto: Ontology, inst: Instance, link: Link | None) -> EntityMatch:
    related: list[Instance] = []
    if link is not None and link.backwards:
        related = [i for i in onto.instances(link.kind) if inst.id in _ids(i.meta.get(link.field))]
    elif link is not None:
        wanted = _ids(inst.meta.get(link.field))
        related = [i for i in onto.instances(link.kind) if i.id in wanted]
    match = _plain(onto, inst)
    if link is None:
        return match
    return replace(match, related=tuple(_plain(onto, r) for r in related), relation=link.name)


def _plain(onto: Ontology, inst: Instance) -> EntityMatch:
    schema = onto.schemas.get(inst.kind)
    names = [f.name for f in schema.fields] if schema else []
    values = {n: inst.meta[n] for n in names if n in inst.meta}
    return EntityMatch(inst.path, inst.id, inst.kind, str(inst.meta.get("title") or ""), values)


def _ids(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(v) for v in items if v is not None]
