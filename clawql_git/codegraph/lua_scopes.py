"""Where a Lua local is seen: the blocks being walked and the locals each declares.

The Lua 5.4 manual (§3.5): "Lua is a lexically scoped language. The scope of a local
variable begins at the first statement after its declaration and lasts until the last
non-void statement of the innermost block that includes the declaration"; parameters are
locals of the function's body (§3.4.11) and loop variables of the loop's body (§3.3.5). A
declaration's span is (line, column, end line, end column), lines from 1 as ``Call.line``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[int, int]
Span = tuple[int, ...]
FILE_END: Point = (1 << 30, 0)
FIELD: Span = (0,)  # the span of a table field's setting: no local's, seen by no lookup


def in_span(span: Span, at: Point) -> bool:
    """Is ``at`` inside ``span`` (a declaration's reach)?"""
    return len(span) == 4 and (span[0], span[1]) <= at <= (span[2], span[3])


@dataclass
class Block:
    """A block: the function it belongs to ('' for the file), where it ends, its locals."""

    function: str
    end: Point
    names: dict[str, Span] = field(default_factory=dict)


class Blocks:
    """The blocks around the walk, innermost last (the file's chunk first)."""

    def __init__(self) -> None:
        self.stack = [Block("", FILE_END)]

    def open(self, function: str, end: Point) -> None:
        self.stack.append(Block(function, end))

    def close(self) -> None:
        self.stack.pop()

    def declare(self, name: str, start: Point) -> Span:
        """A local ``name`` of the innermost block, seen from ``start`` to the block's end."""
        block = self.stack[-1]
        span = (*start, *block.end)
        block.names[name] = span
        return span

    def visible(self, name: str) -> tuple[str, Span] | None:
        """The function and span of the declaration of ``name`` seen here; None: a global."""
        for block in reversed(self.stack):
            span = block.names.get(name)
            if span is not None:
                return block.function, span
        return None
