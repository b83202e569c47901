"""Entity schemas: one ``ontology/entities/<kind>.cqe`` file (YAML) per kind, parsed once into
frozen values. A schema names its kind, its fields (type, required, description) and its
relations (the references of other kinds seen from this one)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clawql_git.errors import ClawqlError, InvalidInput
from clawql_git.model.entry import parse_yaml_mapping

SCHEMA_DIR = "ontology/entities"
SCHEMA_SUFFIX = ".cqe"
INSTANCE_DIR = "entity_instances"
SCALARS = ("string", "integer", "number", "boolean", "date", "enum")
# Frontmatter keys every entry may carry (the entry format's own): never schema fields.
ENVELOPE = frozenset(
    {
        "type",
        "title",
        "description",
        "timestamp",
        "tags",
        "aliases",
        "agent_id",
        "session_id",
        "correlation_id",
        "project",
        "verdict",
        "confidence_score",
        "status",
        "superseded_by",
        "retraction_reason",
        "page_index_path",
        "page_index_categories",
        "pii_classification",
        "source_path",
        "resource",
        "worm_ref",
        "worm_ref_first",
        "entity_kind",
    }
)
_KIND_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_LIST_RE = re.compile(r"list[\[(](.+)[\])]")
_REF_RE = re.compile(r"reference[\[(]([a-z0-9][a-z0-9_-]*)[\])]")
_SCHEMA_KEYS = frozenset({"kind", "description", "fields", "relations"})
_FIELD_KEYS = frozenset({"name", "type", "required", "description", "values"})
_RELATION_KEYS = frozenset({"name", "kind", "field", "description"})


@dataclass(frozen=True)
class FieldType:
    """A field's type: a scalar, ``reference(kind)``, or ``list[...]`` of either."""

    base: str  # one of SCALARS or "reference"
    target: str = ""  # the kind a reference points at
    is_list: bool = False

    def __str__(self) -> str:
        one = f"reference({self.target})" if self.base == "reference" else self.base
        return f"list[{one}]" if self.is_list else one


@dataclass(frozen=True)
class FieldSpec:
    """One field of a kind."""

    name: str
    type: FieldType
    required: bool = False
    description: str = ""
    values: tuple[str, ...] = ()  # an enum's allowed values


@dataclass(frozen=True)
class Relation:
    """A named inverse relation: the instances of ``kind`` whose ``field`` references this
    kind's instance (``person.owns`` = the services whose ``owner`` is that person)."""

    name: str
    kind: str
    field: str
    description: str = ""


@dataclass(frozen=True)
class Schema:
    """A parsed ``.cqe`` file."""

    kind: str
    path: str
    fields: tuple[FieldSpec, ...]
    relations: tuple[Relation, ...] = ()
    description: str = ""

    def field(self, name: str) -> FieldSpec | None:
        """The field called ``name``, or None."""
        return next((f for f in self.fields if f.name == name), None)

    def references(self) -> list[FieldSpec]:
        """The fields that point at other instances."""
        return [f for f in self.fields if f.type.base == "reference"]

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "kind": self.kind,
            "path": self.path,
            "fields": [
                {"name": f.name, "type": str(f.type), "required": f.required} for f in self.fields
            ],
            "relations": [
                {"name": r.name, "kind": r.kind, "field": r.field} for r in self.relations
            ],
        }


class SchemaError(InvalidInput):
    """A ``.cqe`` file that is not a valid schema (exit 2)."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.path = path


def schema_path(kind: str) -> str:
    """Where the schema of ``kind`` lives."""
    return f"{SCHEMA_DIR}/{kind}{SCHEMA_SUFFIX}"


def is_schema_path(path: str) -> bool:
    """True for an entity schema file."""
    return path.startswith(f"{SCHEMA_DIR}/") and path.endswith(SCHEMA_SUFFIX)


def kind_of_schema_path(path: str) -> str:
    """The kind a schema path names (``ontology/entities/service.cqe`` -> ``service``)."""
    return path.rsplit("/", 1)[-1].removesuffix(SCHEMA_SUFFIX)


def parse_schema(path: str, data: bytes) -> Schema:
    """Parse one schema file; :class:`SchemaError` names what is wrong with it."""
    try:
        doc = parse_yaml_mapping(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SchemaError(path, "not UTF-8 text") from exc
    except ClawqlError as exc:
        raise SchemaError(path, exc.message.replace("frontmatter", "the schema")) from exc
    _unknown_keys(path, "the schema", doc, _SCHEMA_KEYS)
    kind = str(doc.get("kind") or "")
    if not _KIND_RE.match(kind):
        raise SchemaError(path, f"'kind' must be a lowercase name, got {kind!r}")
    if path.startswith(f"{SCHEMA_DIR}/") and kind != kind_of_schema_path(path):
        raise SchemaError(path, f"kind {kind!r} must match the file name ({schema_path(kind)})")
    fields = tuple(_field(path, item) for item in _items(path, doc, "fields"))
    names = [f.name for f in fields]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise SchemaError(path, f"field {dup!r} is declared twice")
    relations = tuple(_relation(path, item) for item in _items(path, doc, "relations"))
    clash = next((r.name for r in relations if r.name in names), None)
    if clash:
        raise SchemaError(path, f"relation {clash!r} has the name of a field")
    return Schema(kind, path, fields, relations, str(doc.get("description") or ""))


def _items(path: str, doc: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = doc.get(key) or []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise SchemaError(path, f"{key!r} must be a list of mappings")
    return items


def _unknown_keys(path: str, where: str, doc: Mapping[str, Any], known: frozenset[str]) -> None:
    unknown = sorted(set(doc) - known)
    if unknown:
        raise SchemaError(
            path, f"{where} has unknown key(s) {unknown} (allowed: {', '.join(sorted(known))})"
        )


def _field(path: str, item: Mapping[str, Any]) -> FieldSpec:
    name = str(item.get("name") or "")
    _unknown_keys(path, f"field {name!r}", item, _FIELD_KEYS)
    if not name:
        raise SchemaError(path, "a field has no 'name'")
    if name in ENVELOPE:
        raise SchemaError(path, f"field {name!r} is an entry frontmatter key, not a schema field")
    ftype = parse_type(path, name, str(item.get("type") or ""))
    values = item.get("values") or []
    if ftype.base == "enum" and (not isinstance(values, list) or not values):
        raise SchemaError(path, f"field {name!r} is an enum: list its 'values'")
    if ftype.base != "enum" and values:
        raise SchemaError(path, f"field {name!r} has 'values' but is not an enum")
    required = item.get("required", False)
    if not isinstance(required, bool):
        raise SchemaError(path, f"field {name!r}: 'required' must be true or false")
    desc = str(item.get("description") or "")
    return FieldSpec(name, ftype, required, desc, tuple(str(v) for v in values))


def parse_type(path: str, name: str, text: str) -> FieldType:
    """``string``, ``integer``, ``number``, ``boolean``, ``date``, ``enum``,
    ``reference(kind)``, and ``list[T]`` of any of them."""
    spelled = "".join(text.split())
    inner = _LIST_RE.fullmatch(spelled)
    one = inner.group(1) if inner else spelled
    ref = _REF_RE.fullmatch(one)
    if ref:
        return FieldType("reference", ref.group(1), inner is not None)
    if one in SCALARS:
        return FieldType(one, "", inner is not None)
    raise SchemaError(
        path,
        f"field {name!r}: type {text!r} is not one of {', '.join(SCALARS)}, "
        "reference(<kind>) or list[<type>]",
    )


def _relation(path: str, item: Mapping[str, Any]) -> Relation:
    name = str(item.get("name") or "")
    _unknown_keys(path, f"relation {name!r}", item, _RELATION_KEYS)
    kind, field = str(item.get("kind") or ""), str(item.get("field") or "")
    if not name or not kind or not field:
        raise SchemaError(path, f"relation {name!r} needs 'name', 'kind' and 'field'")
    return Relation(name, kind, field, str(item.get("description") or ""))


def cross_problems(schemas: Mapping[str, Schema]) -> list[tuple[str, str]]:
    """(schema path, problem) for references and relations that name no kind or field."""
    out: list[tuple[str, str]] = []
    for schema in schemas.values():
        for spec in schema.references():
            if spec.type.target not in schemas:
                out.append((schema.path, _no_kind(spec.name, spec.type.target)))
        for rel in schema.relations:
            other = schemas.get(rel.kind)
            back = other.field(rel.field) if other else None
            if back is None or back.type.base != "reference" or back.type.target != schema.kind:
                out.append(
                    (
                        schema.path,
                        f"relation {rel.name!r}: {rel.kind}.{rel.field} is no reference to "
                        f"{schema.kind}",
                    )
                )
    return out


def _no_kind(field: str, kind: str) -> str:
    return f"field {field!r} references kind {kind!r}, which has no schema ({schema_path(kind)})"
