"""What ``this`` is in JS functions that are not methods written in a class or an object.

An anonymous function (``function () {...}``, not an arrow) has its own ``this``, which
its caller gives (MDN, ``this``): in a callback it is not the enclosing method's. Calls of
``this.m`` in one are recorded against the call site (an assignment ``this@LINE:COL`` ->
``=receiver``, or '?' when unknown; see :func:`site`), since the calls of an anonymous
function belong to the enclosing definition. The receiver is known for a function assigned
to a member (``app.response.shout = function``, ``app[method] = function``: called as
``app.response.shout()``, ``this`` is ``app.response``) and for accessors.

Accessors:

MDN, ``Object.defineProperty``: a getter (setter) is called with ``this`` the object through
which the property is read (set). A function written as the ``get``/``set`` of the
descriptor in ``Object.defineProperty(obj, key, {get: function g() {...}})`` is defined on
``obj``; so is one passed to a helper of the same file that does exactly that with its
parameters (express's ``function defineGetter(obj, name, getter) {
Object.defineProperty(obj, name, {get: getter}) }`` called as ``defineGetter(req, 'host',
function host() {...})``).
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.js_routes import arguments
from clawql_git.codegraph.ts_util import string_value, text

ACCESSORS = frozenset({"get", "set"})
DEFINE = "Object.defineProperty"
Helpers = dict[str, tuple[int, int]]  # helper name -> (object parameter, accessor parameter)


def defined_on(fn: Node, helpers: Helpers) -> Node | None:
    """The object argument ``fn`` is made an accessor of, directly or through one of the
    file's ``helpers``; None for any other function."""
    parent = fn.parent
    if parent is not None and parent.type == "pair" and _key(parent) in ACCESSORS:
        call = _call_of(parent.parent)
        given = arguments(call.child_by_field_name("arguments")) if call else []
        if call is not None and _callee(call) == DEFINE and len(given) == 3:
            return given[0] if given[2] == parent.parent else None
        return None
    call = _call_of(fn)
    helper = helpers.get(_callee(call)) if call is not None else None
    if call is None or helper is None:
        return None
    given = arguments(call.child_by_field_name("arguments"))
    obj, accessor = helper
    return given[obj] if len(given) > max(helper) and given[accessor] == fn else None


def site(line: int, column: int) -> str:
    """The assignment target that says what ``this`` is at the call at (line, column)."""
    return f"this@{line}:{column}"


def assigned_to(fn: Node) -> Node | None:
    """The object an anonymous function is assigned to a member of: ``app`` of ``app.m =
    function`` and of ``app[k] = function``; None otherwise."""
    parent = fn.parent
    left = parent.child_by_field_name("left") if parent is not None else None
    if parent is None or parent.type != "assignment_expression" or left is None:
        return None
    if parent.child_by_field_name("right") != fn:
        return None
    if left.type not in {"member_expression", "subscript_expression"}:
        return None
    return left.child_by_field_name("object")


def helpers(root: Node) -> Helpers:
    """Module-level ``function f(obj, ..., getter)`` whose body is one
    ``Object.defineProperty(obj, key, {get: getter})`` (or ``set``) with its parameters."""
    found: Helpers = {}
    for statement in root.named_children:
        if statement.type != "function_declaration":
            continue
        params = statement.child_by_field_name("parameters")
        names = [text(p) for p in params.named_children] if params is not None else []
        body = statement.child_by_field_name("body")
        inner = [s for s in body.named_children if s.type != "comment"] if body else []
        call = inner[0].named_children[0] if len(inner) == 1 and inner[0].named_children else None
        used = _defined_with(call) if call is not None else None
        if used is not None and used[0] in names and used[1] in names:
            found[text(statement.child_by_field_name("name"))] = (
                names.index(used[0]),
                names.index(used[1]),
            )
    return found


def _defined_with(call: Node) -> tuple[str, str] | None:
    """(object, accessor) names of ``Object.defineProperty(object, key, {get: accessor})``."""
    given = arguments(call.child_by_field_name("arguments"))
    if call.type != "call_expression" or _callee(call) != DEFINE or len(given) != 3:
        return None
    if given[0].type != "identifier" or given[2].type != "object":
        return None
    accessors = [
        p.child_by_field_name("value")
        for p in given[2].named_children
        if p.type == "pair" and _key(p) in ACCESSORS
    ]
    if len(accessors) != 1 or accessors[0] is None or accessors[0].type != "identifier":
        return None
    return text(given[0]), text(accessors[0])


def _call_of(node: Node | None) -> Node | None:
    """The call ``node`` is an argument of."""
    args = node.parent if node is not None else None
    call = args.parent if args is not None and args.type == "arguments" else None
    return call if call is not None and call.type == "call_expression" else None


def _callee(call: Node) -> str:
    function = call.child_by_field_name("function")
    return text(function) if function is not None else ""


def _key(pair: Node) -> str:
    key = pair.child_by_field_name("key")
    return (string_value(key) or text(key)) if key is not None else ""
