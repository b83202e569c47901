"""Where PHP code proves a variable's class for one block of code: ``if ($x instanceof Foo)``
(PHP manual, "Type Operators") and the blocks' spans; and whether a declared type leaves room
for a docblock's (``array $xs`` with ``@param Foo[] $xs``)."""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.lua_scopes import Span
from clawql_git.codegraph.php_docs import OPEN_TYPES
from clawql_git.codegraph.ts_util import collapse, end_line, line, text

_CLASS_NAMES = frozenset({"name", "qualified_name", "relative_name"})
_ASSIGNS = frozenset(
    {
        "assignment_expression",
        "reference_assignment_expression",
        "augmented_assignment_expression",
    }
)


def is_open(declared: Node | None) -> bool:
    """Whether a declared type says nothing of a class (none, ``array``, ``mixed``...), so
    that a docblock's type may be read instead."""
    return declared is None or collapse(text(declared)).lower() in OPEN_TYPES


def span_of(node: Node) -> Span:
    """(line, column, end line, end column) of ``node``, lines from 1 as ``Call.line``."""
    return (line(node), node.start_point[1], end_line(node), node.end_point[1])


def instanceofs(condition: Node | None) -> list[tuple[Node, Node]]:
    """The ``$x instanceof Foo`` an ``if`` condition proves, as (subject, class name): the
    condition itself or one of its ``&&`` operands (not under ``!`` or ``||``)."""
    if condition is None:
        return []
    if condition.type == "parenthesized_expression" and condition.named_children:
        return instanceofs(condition.named_children[0])
    if condition.type != "binary_expression":
        return []
    op = text(condition.child_by_field_name("operator")).lower()
    left = condition.child_by_field_name("left")
    right = condition.child_by_field_name("right")
    if op in ("&&", "and"):
        return [*instanceofs(left), *instanceofs(right)]
    if op != "instanceof" or left is None or right is None or right.type not in _CLASS_NAMES:
        return []
    return [(left, right)]


def rebinds(block: Node, written: str) -> bool:
    """Whether ``block`` may assign ``written`` (``$x``, ``$this->x``) again: an assignment,
    a ``foreach`` or a ``catch`` naming it."""
    stack = [block]
    while stack:
        node = stack.pop()
        targets: list[Node | None] = []
        if node.type in _ASSIGNS:
            targets = [node.child_by_field_name("left")]
        elif node.type == "foreach_statement":
            targets = [*node.named_children[1:2]]
        elif node.type == "catch_clause":
            targets = [node.child_by_field_name("name")]
        if any(t is not None and _mentions(t, written) for t in targets):
            return True
        stack.extend(node.named_children)
    return False


def _mentions(node: Node, written: str) -> bool:
    if collapse(text(node)) == written:
        return True
    return any(_mentions(c, written) for c in node.named_children)
