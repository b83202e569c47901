"""Holding ``entity_instance`` entries to their kind's schema. One check for every door: the
writer (before a commit), ``memory check`` (a branch), the protected remote and pull (each
pushed or pulled commit). It looks at what changed: changed instances, every instance of a kind
whose schema changed, and the referrers of an instance removed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import Any

from clawql_git.errors import ClawqlError, EntityInvalid
from clawql_git.gitstore import Repo, Tree
from clawql_git.model.entry import parse_yaml_mapping, split_frontmatter
from clawql_git.model.paths import is_entry_path
from clawql_git.ontology.schema import (
    ENVELOPE,
    INSTANCE_DIR,
    SCHEMA_DIR,
    FieldSpec,
    Schema,
    SchemaError,
    cross_problems,
    is_schema_path,
    kind_of_schema_path,
    parse_schema,
)
from clawql_git.ontology.view import GitView, TreeView

INSTANCE_TYPE = "entity_instance"
SHOWN = 10  # problems named in one error message


@dataclass(frozen=True)
class EntityProblem:
    """One thing wrong with an instance or a schema, naming the field when there is one."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: field {self.field!r}" if self.field else self.path
        return f"{where}: {self.message}"

    def to_record(self) -> dict[str, str]:
        """JSON-safe view."""
        return {"path": self.path, "field": self.field, "message": self.message}


@dataclass(frozen=True)
class Instance:
    """An entity instance as the checks and queries see it: its path, kind, id and fields."""

    path: str
    kind: str
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        """What a reference names: the file stem (``priya-raman``)."""
        return PurePosixPath(self.path).stem


class Ontology:
    """The schemas of a tree and, loaded when first asked for, the instances of each kind."""

    def __init__(self, view: TreeView) -> None:
        self.view = view
        self.schemas: dict[str, Schema] = {}
        self.broken: dict[str, str] = {}  # kind -> why its schema does not parse
        for path in view.files_under(SCHEMA_DIR):
            if is_schema_path(path) and path.count("/") == 2:
                self._load(path)
        self._instances: dict[str, list[Instance]] = {}
        self._ids: dict[str, set[str]] = {}

    def _load(self, path: str) -> None:
        try:
            schema = parse_schema(path, self.view.read(path) or b"")
        except SchemaError as exc:
            self.broken[kind_of_schema_path(path)] = exc.message
            return
        self.schemas[schema.kind] = schema

    def instances(self, kind: str) -> list[Instance]:
        """Every instance under ``entity_instances/<kind>/`` that parses."""
        if kind not in self._instances:
            found = (read_instance(self.view, p) for p in self.view.files_under(_folder(kind)))
            self._instances[kind] = [i for i in found if i is not None]
        return self._instances[kind]

    def ids(self, kind: str) -> set[str]:
        """The ids a reference to ``kind`` may name: the stems of the entry files under its
        folder (listed, not read: a file there that is no instance is the contract's to
        report)."""
        if kind in self._instances:
            return {i.id for i in self._instances[kind]}
        if kind not in self._ids:
            paths = self.view.files_under(_folder(kind))
            self._ids[kind] = {PurePosixPath(p).stem for p in paths if is_entry_path(p)}
        return self._ids[kind]


def _folder(kind: str) -> str:
    return f"{INSTANCE_DIR}/{kind}"


def read_instance(view: TreeView, path: str) -> Instance | None:
    """The instance at ``path``, or None when it is none (another type, no frontmatter, not
    parseable: the entry contract reports those) or is archived."""
    if not is_entry_path(path) or path.startswith("archive/"):
        return None
    data = view.read(path)
    if data is None or INSTANCE_TYPE.encode() not in data:
        return None
    try:
        fm, _ = split_frontmatter(data.decode("utf-8"))
        meta = parse_yaml_mapping(fm or "")
    except (UnicodeDecodeError, ClawqlError):
        return None
    if meta.get("type") != INSTANCE_TYPE:
        return None
    return Instance(path, str(meta.get("entity_kind") or ""), meta)


# ---------------------------------------------------------------- one instance


def instance_problems(inst: Instance, onto: Ontology) -> list[EntityProblem]:
    """What is wrong with one instance against its kind's schema."""
    if not inst.kind:
        return [_p(inst, "entity_kind", "an entity_instance names its kind in 'entity_kind'")]
    if not inst.path.startswith(f"{_folder(inst.kind)}/"):
        where = f"{_folder(inst.kind)}/"
        return [_p(inst, "entity_kind", f"an instance of {inst.kind!r} lives under {where}")]
    schema = onto.schemas.get(inst.kind)
    if schema is None:
        why = onto.broken.get(inst.kind)
        if why:
            return [_p(inst, "entity_kind", f"the schema of {inst.kind!r} is invalid: {why}")]
        known = ", ".join(sorted(onto.schemas)) or "none"
        return [
            _p(
                inst,
                "entity_kind",
                f"no schema for kind {inst.kind!r} ({SCHEMA_DIR}/{inst.kind}.cqe); kinds: {known}",
            )
        ]
    out = [
        _p(inst, f.name, f"required by the {inst.kind} schema, missing")
        for f in schema.fields
        if f.required and inst.meta.get(f.name) is None
    ]
    names = {f.name for f in schema.fields}
    for key in sorted(set(inst.meta) - ENVELOPE - names):
        out.append(
            _p(inst, key, f"unknown field for kind {inst.kind!r} (its fields: {sorted(names)})")
        )
    for spec in schema.fields:
        value = inst.meta.get(spec.name)
        if value is not None:
            out += [_p(inst, spec.name, m) for m in value_problems(spec, value, onto)]
    return out


def _p(inst: Instance, field: str, message: str) -> EntityProblem:
    return EntityProblem(inst.path, field, message)


def value_problems(spec: FieldSpec, value: Any, onto: Ontology) -> list[str]:
    """Why ``value`` does not fit the field's type ([] when it does)."""
    if not spec.type.is_list:
        problem = _one(spec, value, onto)
        return [problem] if problem else []
    if not isinstance(value, list):
        return [f"expected {spec.type}, got {_show(value)}"]
    found = [(n, _one(spec, item, onto)) for n, item in enumerate(value)]
    return [f"item {n}: {problem}" for n, problem in found if problem]


def _one(spec: FieldSpec, value: Any, onto: Ontology) -> str:
    base = spec.type.base
    if base == "reference":
        return _reference(spec.type.target, value, onto)
    if base == "enum":
        return "" if str(value) in spec.values else f"{_show(value)} is not one of {spec.values}"
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "date": isinstance(value, date) or _iso_date(value),
    }[base]
    return "" if ok else f"expected {base}, got {_show(value)}"


def _reference(kind: str, value: Any, onto: Ontology) -> str:
    if not isinstance(value, str) or not value:
        return f"expected the id of a {kind} instance, got {_show(value)}"
    if value not in onto.ids(kind):
        return (
            f"references {kind} {value!r}, and there is no such instance "
            f"(no {_folder(kind)}/.../{value}.md)"
        )
    return ""


def _iso_date(value: Any) -> bool:
    try:
        date.fromisoformat(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _show(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


# ---------------------------------------------------------------- a tree


def tree_problems(
    view: TreeView, changed: Iterable[str], removed: Iterable[str] = ()
) -> list[EntityProblem]:
    """Every problem a change brings: ``changed`` files (entries or schemas) are checked in
    ``view`` (the tree after the change), as is every instance of a kind whose schema changed
    and every referrer of an instance ``removed``."""
    changed, removed = list(changed), list(removed)
    schemas = [p for p in [*changed, *removed] if is_schema_path(p)]
    candidates = [p for p in changed if is_entry_path(p)]
    gone = [p for p in removed if p.startswith(f"{INSTANCE_DIR}/")]
    if not schemas and not gone and not _any_instance(view, candidates):
        return []  # the common case: no entity touched, nothing else read
    onto = Ontology(view)
    out = [_schema_problem(onto, p) for p in schemas if p in changed]
    problems = [p for p in out if p is not None]
    if schemas:
        problems += [EntityProblem(p, "", m) for p, m in cross_problems(onto.schemas)]
    found = {i.path: i for i in (read_instance(view, p) for p in candidates) if i is not None}
    for kind in {kind_of_schema_path(p) for p in schemas}:
        found.update({i.path: i for i in onto.instances(kind)})
    for inst in found.values():
        problems += instance_problems(inst, onto)
    problems += _dangling(onto, gone, set(found))
    return list(dict.fromkeys(problems))


def _any_instance(view: TreeView, paths: list[str]) -> bool:
    return any(read_instance(view, p) is not None for p in paths)


def _schema_problem(onto: Ontology, path: str) -> EntityProblem | None:
    why = onto.broken.get(kind_of_schema_path(path))
    return EntityProblem(path, "", why.removeprefix(f"{path}: ")) if why else None


def _dangling(onto: Ontology, gone: list[str], checked: set[str]) -> list[EntityProblem]:
    """Instances left referencing an instance the change removes (and not checked already)."""
    out: list[EntityProblem] = []
    for path in gone:
        kind = path.split("/")[1] if path.count("/") >= 2 else ""
        stem = PurePosixPath(path).stem
        if not kind or stem in onto.ids(kind):
            continue  # moved, or another file still answers to the id
        for schema in onto.schemas.values():
            specs = [f for f in schema.references() if f.type.target == kind]
            for inst in onto.instances(schema.kind) if specs else []:
                out += [
                    _p(inst, f.name, f"references {kind} {stem!r}, which the change removes")
                    for f in specs
                    if inst.path not in checked and stem in _values(inst.meta.get(f.name))
                ]
    return out


def _values(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def check_tree(view: TreeView, changed: Iterable[str], removed: Iterable[str] = ()) -> None:
    """Raise :class:`EntityInvalid` (exit 2) naming every problem the change brings."""
    changed, removed = list(changed), list(removed)
    problems = tree_problems(view, changed, removed)
    if not problems:
        return
    touched = set(changed) | set(removed)
    schemas = [p for p in touched if is_schema_path(p)]
    others = sorted({p.path for p in problems if p.path not in touched})
    lead = ""
    if schemas and others:
        lead = (
            f"the change to {', '.join(sorted(schemas))} would leave {len(others)} "
            f"instance(s) invalid ({', '.join(others[:SHOWN])}); "
        )
    elif others:
        lead = f"the change leaves {len(others)} instance(s) invalid; "
    raise EntityInvalid(lead, [str(p) for p in problems])


def change_problems(repo: Repo, old: Tree | None, new: Tree | None) -> list[EntityProblem]:
    """The problems the change from tree ``old`` to tree ``new`` brings (a commit against its
    first parent, a branch against its merge base)."""
    diff = repo.diff_paths(old, new)
    changed = [p for p, _, blob in diff if blob is not None]
    removed = [p for p, _, blob in diff if blob is None]
    return tree_problems(GitView(repo, new), changed, removed)
