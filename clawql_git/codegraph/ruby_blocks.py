"""Ruby blocks whose ``self`` may not be the ``self`` of where they are written.

A block keeps the ``self`` of the code it is written in, unless the method it is given to
evaluates it with another one (Ruby's docs: ``BasicObject#instance_eval``/``instance_exec``,
``Module#class_eval``/``module_eval``/``class_exec``, ``Class.new(super) { }``,
``Module.new { }``, ``Module#define_method``). The extractor records two kinds of evidence
as assignments, read by ``ruby_resolve``:

- a method that hands its ``&block`` parameter on: target ``&block``, value ``eval`` when
  the method it goes to is one of those called on another object (``klass.class_eval``,
  ``Class.new``, or on ``self`` inside a block, whose ``self`` is not known), ``self`` when
  it is one of those called on the method's own ``self`` in its body (``define_method(n,
  &block)`` in a class method makes the block a method of that class: the names it calls
  are the class's, as where the call is written, when the method is called on that
  ``self``; so does ``sub = Class.new(self); sub.class_eval(&block)``: ``sub`` inherits
  them), else that method's callee as written (``Sinatra.new``), to be followed by the
  resolver;
- a call that goes to ``self`` (a bare name, ``self.x``, ``@x.y``) inside blocks given to
  calls: target ``self@LINE:COL``, value the callees the blocks are given to, outermost
  first, joined by ``;``; ``eval`` for a block given straight to one of those methods on
  another object (``klass.class_eval do``, ``Class.new(Base) do``, ``Struct.new(:a) do``).
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.ts_util import text

BLOCK_FORWARD = "&block"
EVAL = "eval"
KEEP = "self"
SUBCLASS_OF_SELF = "Class.new(self)"
SEPARATOR = ";"
EVALS = frozenset(
    {
        "instance_eval",
        "instance_exec",
        "class_eval",
        "class_exec",
        "module_eval",
        "module_exec",
        "define_method",
        "define_singleton_method",
    }
)
_BUILDERS = frozenset({"Class", "Module"})  # ``Class.new(base, &b)``, ``Module.new(&b)``
_CLASS_BLOCKS = frozenset({"Class.new", "Module.new", "Struct.new", "Data.define"})


def site(line: int, column: int) -> str:
    """The assignment target of a call site's enclosing blocks."""
    return f"self@{line}:{column}"


def block_parameter(params: Node | None) -> str:
    """The name of a method's ``&block`` parameter ('&' when anonymous), '' when none."""
    for param in params.named_children if params is not None else []:
        if param.type == "block_parameter":
            name = param.child_by_field_name("name")
            return text(name) if name is not None else "&"
    return ""


def forwards(args: Node | None, block: str) -> bool:
    """Whether a call's arguments hand on the block parameter named ``block``."""
    for arg in args.named_children if args is not None else []:
        if arg.type == "block_argument":
            given = arg.named_children
            if (text(given[0]) if given else "&") == block:
                return True
    return False


def forward_target(method: str, receiver: str, callee: str, in_block: bool) -> str:
    """What a ``&block`` handed to ``receiver.method`` (recorded as ``callee``) is given to:
    ``self`` for the methods that evaluate it on the method's own ``self``, ``eval`` for
    them on anything else, else the callee to follow."""
    if method in EVALS:
        return KEEP if receiver in ("", "self") and not in_block else EVAL
    if method == "new" and receiver in _BUILDERS:
        return EVAL
    return callee


def block_owner(method: str, receiver: str, callee: str) -> str:
    """What a literal block given to ``receiver.method`` (recorded as ``callee``) is given
    to: ``eval`` when that evaluates it on another object, else the callee to resolve."""
    if method in EVALS and receiver not in ("", "self"):
        return EVAL
    return EVAL if f"{receiver}.{method}" in _CLASS_BLOCKS else callee


def self_based(callee: str, locals_: list[set[str]]) -> bool:
    """Whether a callee as recorded goes to ``self``: a bare name, ``self.x`` (``@x.y`` is
    recorded as ``self.x.y``), a method's result ``m.y``; not a local, nor a constant."""
    head = callee.split(".", 1)[0]
    if not head or head[:1].isupper() or "(" in head:
        return False
    if head == "self" or "." not in callee:
        return True
    return not any(head in scope for scope in locals_)
