"""Where PHP code proves a variable's class for one block of code: ``if ($x instanceof Foo)``
(PHP manual, "Type Operators"), and for the rest of a block after an assertion of it
(PHPUnit's ``assertInstanceOf(Foo::class, $x)``, ``assert($x instanceof Foo)``); the blocks'
spans; and whether a declared type leaves room for a docblock's (``array $xs`` with
``@param Foo[] $xs``)."""

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


def assertions(call: Node) -> list[tuple[Node, Node]]:
    """The ``(subject, class name)`` a call asserts, as :func:`instanceofs`: PHPUnit's
    ``$this->assertInstanceOf(Foo::class, $x)`` (also ``self::``, ``static::``,
    ``Assert::``), which fails the test unless ``$x`` is a ``Foo``, and ``assert($x
    instanceof Foo)`` (PHP manual, "assert")."""
    args = [a.named_children[0] for a in _arguments(call) if a.named_children]
    function = call.type == "function_call_expression"
    written = text(call.child_by_field_name("function" if function else "name"))
    written = written.lstrip("\\").lower()
    if function and written == "assert" and args:
        return instanceofs(args[0])
    if written != "assertinstanceof" or len(args) < 2 or not _class_constant(args[0]):
        return []
    receiver = call.child_by_field_name("object")
    if call.type == "member_call_expression" and text(receiver) != "$this":
        return []
    return [(args[1], args[0].named_children[0])]


def after(statement: Node) -> Span | None:
    """The rest of the block after ``statement`` (an expression statement of a ``{ }``
    block, so run whenever the code after it is), or None."""
    block = statement.parent
    if statement.type != "expression_statement" or block is None:
        return None
    if block.type != "compound_statement":
        return None
    return (end_line(statement), statement.end_point[1], end_line(block), block.end_point[1])


def rebinds_after(statement: Node, written: str) -> bool:
    """Whether a statement after ``statement`` in its block may assign ``written`` again."""
    sibling = statement.next_named_sibling
    while sibling is not None:
        if rebinds(sibling, written):
            return True
        sibling = sibling.next_named_sibling
    return False


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type == "argument"] if args is not None else []


def _class_constant(node: Node) -> bool:
    """``Foo::class``."""
    parts = node.named_children
    return (
        node.type == "class_constant_access_expression"
        and len(parts) == 2
        and parts[0].type in _CLASS_NAMES
        and text(parts[1]).lower() == "class"
    )


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
