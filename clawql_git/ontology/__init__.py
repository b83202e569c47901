"""The enterprise ontology: entity schemas (``ontology/entities/<kind>.cqe``), the checks that
hold ``entity_instance`` entries to them, and queries that follow references both ways."""

from clawql_git.ontology.query import EntityMatch, EntityQuery, run_query
from clawql_git.ontology.schema import FieldSpec, Relation, Schema, parse_schema, schema_path
from clawql_git.ontology.validate import EntityProblem, change_problems, check_tree, tree_problems
from clawql_git.ontology.view import GitView, Overlay, TreeView

__all__ = [
    "EntityMatch",
    "EntityProblem",
    "EntityQuery",
    "FieldSpec",
    "GitView",
    "Overlay",
    "Relation",
    "Schema",
    "TreeView",
    "change_problems",
    "check_tree",
    "parse_schema",
    "run_query",
    "schema_path",
    "tree_problems",
]
