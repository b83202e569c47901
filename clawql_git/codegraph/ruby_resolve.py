"""Ruby call resolution: a call to ``self`` inside a block given to a method of the
repository that evaluates the block with another ``self`` (``ruby_blocks``) is not resolved
in the scope the block is written in.

Ruby's docs (``BasicObject#instance_eval``, ``Module#class_eval``, ``Class.new``): the block
runs with ``self`` the receiver (the new class), so its bare names are that object's
methods, not the enclosing class's or spec's. A method changes the ``self`` of the block it
is given when it hands its ``&block`` to one of those, or to a method of the repository that
does (followed :data:`MAX_FORWARDS` deep). When the method a block is given to on ``self``
is not resolved (``mock_app`` of a class reopened in two files), a method of the repository
of that name that would change the block's ``self`` is reason enough to leave its calls (not
to resolve them: nothing is resolved by name). Not when it evaluates the block on its own
``self`` and is called on the ``self`` of the block's site (``define_method(name, &block)``
in a class method called in the class body: the block is a method of that class). Such
calls are left unresolved; every other call resolves as :class:`Resolver` resolves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Call
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes
from clawql_git.codegraph.ruby_blocks import BLOCK_FORWARD, EVAL, KEEP, SEPARATOR, site

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

MAX_FORWARDS = 4


class RubyCalls:
    """The call resolver ``lang_ruby`` brings (``call_resolver``), on a Resolver's facts."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._evaluates: dict[tuple[str, str, bool], bool] = {}
        self._forwarders: dict[str, list[tuple[str, str]]] | None = None

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` denotes; unknown inside a block evaluated with another ``self``."""
        marks = self.resolver.index[path].assigns.get((call.caller, site(call.line, call.column)))
        if marks and any(self._changes_self(path, scope, o) for o in self._owners(marks[0].value)):
            return UNK
        return self.resolver.callee(path, scope, call.callee, ctx)

    @staticmethod
    def _owners(value: str) -> list[str]:
        return value.split(SEPARATOR)

    def _changes_self(self, path: str, scope: str, given_to: str) -> bool:
        """Whether the method a block is given to (as written in ``scope``) evaluates it with
        another ``self``. Outer blocks are asked first: by then ``self`` is the lexical one."""
        if given_to == EVAL:  # ``klass.class_eval do``: ``ruby_blocks.block_owner``
            return True
        found = self.resolver.callee(path, scope, given_to, ResolutionNotes())
        if found[0] == "def":
            return self.evaluates(found[1], found[2], on_self(given_to), MAX_FORWARDS)
        if found[0] != "unk" or not on_self(given_to):
            return False
        named = self.forwarders().get(given_to.rsplit(".", 1)[-1], [])
        return any(self.evaluates(f, qual, True, MAX_FORWARDS) for f, qual in named)

    def forwarders(self) -> dict[str, list[tuple[str, str]]]:
        """Method name -> the (file, qualname) of the Ruby methods handing on their block."""
        if self._forwarders is None:
            self._forwarders = {}
            for path, idx in sorted(self.resolver.index.items()):
                if idx.facts.language != "ruby":
                    continue
                for scope, target in idx.assigns:
                    if target == BLOCK_FORWARD:
                        name = scope.rsplit(".", 1)[-1]
                        self._forwarders.setdefault(name, []).append((path, scope))
        return self._forwarders

    def evaluates(self, path: str, qual: str, same_self: bool, depth: int) -> bool:
        """Whether the method ``qual`` of ``path`` (called on the ``self`` of the block's
        site when ``same_self``) hands its ``&block`` to a method that evaluates it with
        another ``self``, directly or through methods of the repository."""
        key = (path, qual, same_self)
        if key not in self._evaluates:
            self._evaluates[key] = False  # a method handing its block to itself
            forwards = self.resolver.index[path].assigns.get((qual, BLOCK_FORWARD), [])
            self._evaluates[key] = any(
                self._forward_changes(path, qual, f.value, same_self, depth) for f in forwards
            )
        return self._evaluates[key]

    def _forward_changes(
        self, path: str, qual: str, given_to: str, same_self: bool, depth: int
    ) -> bool:
        if given_to in (EVAL, KEEP):
            return given_to == EVAL or not same_self
        if depth <= 0:
            return False
        found = self.resolver.callee(path, qual, given_to, ResolutionNotes())
        if found[0] != "def":
            return False
        return self.evaluates(found[1], found[2], same_self and on_self(given_to), depth - 1)


def on_self(callee: str) -> bool:
    """Whether a callee as recorded is called on ``self``: ``m``, ``self.m``."""
    return "." not in callee or (callee.startswith("self.") and callee.count(".") == 1)
