"""The Python extractor: tree-sitter facts of one file (symbols, imports, calls with their
scope and context, type evidence, route declarations) and Python's module resolution."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from clawql_git.codegraph.model import (
    Assignment,
    Call,
    FileFacts,
    Import,
    RepoView,
    Supertype,
    Symbol,
    SymbolKind,
)
from clawql_git.codegraph.py_modules import resolve_python_module
from clawql_git.codegraph.py_routes import RouteCollector
from clawql_git.errors import optional_layer

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

    from clawql_git.codegraph.py_fixtures import PytestFixtures
    from clawql_git.codegraph.resolve import Resolver

SKIP = frozenset({"comment", "integer", "float", "true", "false", "none"})
COMPOUND = frozenset(
    {
        "for_statement",
        "with_statement",
        "try_statement",
        "if_statement",
        "while_statement",
        "match_statement",
        "else_clause",
        "elif_clause",
        "except_clause",
        "finally_clause",
        "with_clause",
        "with_item",
        "case_clause",
        "except_group_clause",
        "block",
    }
)
BINDERS = frozenset({"as_pattern_target", "for_in_clause", "lambda_parameters"})
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def text(node: Node | None) -> str:
    """The source text of a node ('' for none)."""
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def docstring_of(body: Node | None) -> str:
    """The docstring: the first statement of a block when it is a string literal."""
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children:
            first = child.named_children[0]
            if first.type == "string":
                return _string_value(first)
        return ""
    return ""


def _string_value(node: Node) -> str:
    parts = [text(c) for c in node.named_children if c.type == "string_content"]
    return "".join(parts).strip()


def literal(node: Node | None) -> str | None:
    """A plain string literal's value, or None when the node is anything else."""
    if node is None or node.type != "string":
        return None
    if any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(text(c) for c in node.named_children if c.type == "string_content")


class _Walker:
    """One pass over one file's tree, collecting facts into ``facts``."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.routes = RouteCollector(facts)
        self.fixtures: set[str] = set()  # qualnames of functions decorated ``...fixture``

    # ------------------------------------------------------------ definitions

    def block(self, node: Node, scope: str, in_class: bool) -> None:
        for child in node.named_children:
            self.statement(child, scope, in_class)

    def statement(self, node: Node, scope: str, in_class: bool) -> None:
        kind = node.type
        if kind == "function_definition":
            self.function(node, scope, in_class, ())
        elif kind == "class_definition":
            self.klass(node, scope, ())
        elif kind == "decorated_definition":
            self.decorated(node, scope, in_class)
        elif kind in ("import_statement", "import_from_statement"):
            self.imports(node, scope)
        elif kind == "expression_statement":
            for child in node.named_children:
                self.expression_statement(child, scope, in_class)
        elif kind == "ERROR":
            self.facts.errors += 1
            self.expr(node, scope, "body")
        elif kind == "return_statement" and scope in self.fixtures:
            self.returned(node, scope, "return")
            self.expr(node, scope, "body")
        elif kind in COMPOUND:
            self.compound(node, scope, in_class)
        else:
            self.expr(node, scope, "body")

    def compound(self, node: Node, scope: str, in_class: bool) -> None:
        """Blocks keep their scope; names bound by for/with/except targets shadow."""
        left = node.child_by_field_name("left") if node.type == "for_statement" else None
        for child in node.named_children:
            if left is not None and child == left:
                self.bind_targets(child, scope)
            elif child.type == "block":
                self.block(child, scope, in_class)
            elif child.type in COMPOUND:
                self.compound(child, scope, in_class)
            else:
                self.expr(child, scope, "body")

    def decorated(self, node: Node, scope: str, in_class: bool) -> None:
        target = node.child_by_field_name("definition")
        decorators = [c for c in node.named_children if c.type == "decorator"]
        names = tuple(text(d)[1:].strip() for d in decorators)
        if target is None:
            return
        name = text(target.child_by_field_name("name"))
        qual = f"{scope}.{name}" if scope else name
        for deco in decorators:
            for child in deco.named_children:
                self.expr(child, scope, "decorator", caller=qual)
                self.routes.decorator(child, qual, target, scope)
                if target.type == "function_definition":
                    self.fixture(child, qual)
        if target.type == "class_definition":
            self.klass(target, scope, names)
        else:
            self.function(target, scope, in_class, names)

    def fixture(self, deco: Node, qual: str) -> None:
        """``@pytest.fixture`` / ``@fixture(name="x")``: the decorator as written (``@fixture``)
        and the ``name=`` it gives (``@name``, '' when not a plain string), so the resolver can
        prove it pytest's; the function's returns and yields are then recorded."""
        fn = deco.child_by_field_name("function") if deco.type == "call" else deco
        if fn is None or not _is_dotted(fn) or text(fn).rsplit(".", 1)[-1] != "fixture":
            return
        line = deco.start_point[0] + 1
        self.fixtures.add(qual)
        self.facts.assignments.append(Assignment("@fixture", text(fn), qual, line))
        args = deco.child_by_field_name("arguments") if deco.type == "call" else None
        for arg in args.named_children if args is not None else ():
            if arg.type == "keyword_argument" and text(arg.child_by_field_name("name")) == "name":
                named = literal(arg.child_by_field_name("value"))
                self.facts.assignments.append(Assignment("@name", named or "", qual, line))

    def returned(self, node: Node, scope: str, how: str) -> None:
        """A fixture's ``return x`` / ``yield x``: what it gives its requesters (``how`` is a
        keyword, so never a name of the function); a yield inside an expression (``x = yield
        v``) or ``yield from`` is recorded too, proving nothing, so the fixture is known to be
        a generator."""
        values = [c for c in node.named_children if c.type != "comment"]
        value = _value(values[0]) if len(values) == 1 else ""
        statement = node.parent is not None and node.parent.type == "expression_statement"
        if how == "yield" and (not statement or any(c.type == "from" for c in node.children)):
            value = ""
        self.facts.assignments.append(Assignment(how, value, scope, node.start_point[0] + 1))

    def function(self, node: Node, scope: str, in_class: bool, decorators: tuple[str, ...]) -> None:
        name = text(node.child_by_field_name("name"))
        qual = f"{scope}.{name}" if scope else name
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        raw = (node.text or b"")[: end - node.start_byte].decode("utf-8", "replace")
        signature = " ".join(raw.split()).rstrip(":").strip()
        self.facts.symbols.append(
            Symbol(
                name=name,
                qualname=qual,
                kind="method" if in_class else "function",
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                signature=signature,
                docstring=docstring_of(body),
                exported=_public(name),
                decorators=decorators,
            )
        )
        params = node.child_by_field_name("parameters")
        if params is not None:
            self.parameters(params, scope, qual)
        ret = node.child_by_field_name("return_type")
        if ret is not None:
            self.expr(ret, scope, "annotation", caller=qual)
        if body is not None:
            self.block(body, qual, False)

    def parameters(self, params: Node, outer: str, qual: str, lambda_: bool = False) -> None:
        """Every parameter is a local binding (typed when annotated); defaults are evaluated
        in the enclosing scope but recorded as calls of this function (``Depends(get_db)``).
        Only a def's plain parameters (no default, no ``*``) are marked ``annotation``
        (pytest may pass them a fixture's value)."""
        for param in params.named_children:
            name_node = param.child_by_field_name("name")
            if param.type == "identifier":
                name_node = param
            elif param.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                name_node = next((c for c in param.named_children if c.type == "identifier"), None)
            elif name_node is None and param.named_children:
                name_node = param.named_children[0]
            ann = param.child_by_field_name("type")
            marked = ann is not None or (param.type == "identifier" and not lambda_)
            if name_node is not None and name_node.type == "identifier":
                self.facts.assignments.append(
                    Assignment(text(name_node), text(ann), qual, param.start_point[0] + 1, marked)
                )
            if ann is not None:
                self.expr(ann, outer, "annotation", caller=qual)
            value = param.child_by_field_name("value")
            if value is not None:
                self.expr(value, outer, "default", caller=qual)

    def klass(self, node: Node, scope: str, decorators: tuple[str, ...]) -> None:
        name = text(node.child_by_field_name("name"))
        qual = f"{scope}.{name}" if scope else name
        supers = node.child_by_field_name("superclasses")
        bases: list[str] = []
        written: list[str] = []
        if supers is not None:
            for arg in supers.named_children:
                base = arg.child_by_field_name("value") if arg.type == "subscript" else arg
                if base is not None and base.type in ("identifier", "attribute"):
                    bases.append(text(base))  # Generic[T] -> Generic
                    written.append(text(arg))
                    self.facts.supertypes.append(
                        Supertype(qual, text(base), arg.start_point[0] + 1, "extends")
                    )
                if arg.type != "keyword_argument":
                    self.expr(arg, scope, "base", caller=qual)
        body = node.child_by_field_name("body")
        self.facts.symbols.append(
            Symbol(
                name=name,
                qualname=qual,
                kind="class",
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                signature=f"class {name}({', '.join(written)})" if written else f"class {name}",
                docstring=docstring_of(body),
                exported=not name.startswith("_"),
                decorators=decorators,
                bases=tuple(bases),
            )
        )
        if body is not None:
            self.block(body, qual, True)

    # ------------------------------------------------------------ imports

    def imports(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            for item in node.named_children:
                if item.type == "aliased_import":
                    module = text(item.child_by_field_name("name"))
                    alias = text(item.child_by_field_name("alias"))
                else:
                    module, alias = text(item), ""
                self.facts.imports.append(Import(module, "", alias, line, scope))
            return
        module_node = node.child_by_field_name("module_name")
        module = text(module_node)
        for item in node.named_children:
            if item == module_node:
                continue
            if item.type == "wildcard_import":
                self.facts.imports.append(Import(module, "*", "*", line, scope))
            elif item.type == "aliased_import":
                name = text(item.child_by_field_name("name"))
                alias = text(item.child_by_field_name("alias"))
                self.facts.imports.append(Import(module, name, alias, line, scope))
            elif item.type == "dotted_name":
                name = text(item)
                self.facts.imports.append(Import(module, name, name, line, scope))

    # ------------------------------------------------------------ statements with bindings

    def expression_statement(self, node: Node, scope: str, in_class: bool) -> None:
        if node.type in ("assignment", "augmented_assignment"):
            self.assignment(node, scope, in_class)
        else:
            self.expr(node, scope, "body")

    def assignment(self, node: Node, scope: str, in_class: bool) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        ann = node.child_by_field_name("type")
        line = node.start_point[0] + 1
        if left is not None and left.type in ("identifier", "attribute"):
            target = text(left)
            value, annotated = "", False
            if ann is not None:
                value, annotated = text(ann), True
            elif right is not None:
                value = _value(right)
            self.facts.assignments.append(Assignment(target, value, scope, line, annotated))
            if not scope and left.type == "identifier":
                self.module_variable(target, node, right)
        elif left is not None:
            self.bind_targets(left, scope)
        if ann is not None:
            self.expr(ann, scope, "annotation")
        if right is not None:
            if right.type in ("assignment", "augmented_assignment"):
                self.assignment(right, scope, in_class)
            else:
                self.expr(right, scope, "body")
            self.routes.assignment(left, right, scope)

    def module_variable(self, name: str, node: Node, right: Node | None) -> None:
        if name == "__all__" and right is not None and right.type in ("list", "tuple"):
            self.facts.exports.extend(
                v for v in (literal(c) for c in right.named_children) if v is not None
            )
        kind: SymbolKind = "constant" if name.isupper() else "variable"
        self.facts.symbols.append(
            Symbol(
                name=name,
                qualname=name,
                kind=kind,
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                signature=" ".join(text(node).split())[:120],
                exported=not name.startswith("_"),
            )
        )

    def bind_targets(self, node: Node, scope: str) -> None:
        """Names bound by tuple targets, for loops, with/except ``as``: untyped locals."""
        stack = [node]
        while stack:
            cur = stack.pop()
            if cur.type == "identifier":
                self.facts.assignments.append(
                    Assignment(text(cur), "", scope, cur.start_point[0] + 1)
                )
            elif cur.type in (
                "pattern_list",
                "tuple_pattern",
                "list_pattern",
                "as_pattern_target",
                "list_splat_pattern",
                "parenthesized_expression",
                "expression_list",
                "tuple",
                "list",
            ):
                stack.extend(cur.named_children)
            else:
                self.expr(cur, scope, "body")

    # ------------------------------------------------------------ expressions

    def injected(self, call: Node, fn: Node, who: str, context: str) -> None:
        """``Depends(get_db)``: the framework calls ``get_db``; record that call too."""
        if text(fn).rsplit(".", 1)[-1] not in INJECTORS:
            return
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is not None and first.type in ("identifier", "attribute") and _is_dotted(first):
            self.facts.calls.append(
                Call(text(first), who, first.start_point[0] + 1, first.start_point[1], context)
            )

    def expr(self, node: Node, scope: str, context: str, caller: str | None = None) -> None:
        """Every call under ``node`` (iteratively: deep expressions must not recurse)."""
        stack = [node]
        who = scope if caller is None else caller
        while stack:
            cur = stack.pop()
            kind = cur.type
            if kind in SKIP:
                continue
            if kind == "string":  # only f-string interpolations hold calls
                stack.extend(c for c in cur.named_children if c.type == "interpolation")
                continue
            if kind == "call":
                fn = cur.child_by_field_name("function")
                if fn is not None:
                    self.facts.calls.append(
                        Call(
                            callee_text(fn),
                            who,
                            cur.start_point[0] + 1,
                            cur.start_point[1],
                            context,
                        )
                    )
                    self.injected(cur, fn, who, context)
                    if context == "body":
                        self.routes.call(cur, fn, scope)
            elif kind == "named_expression":
                name = cur.child_by_field_name("name")
                if name is not None:
                    self.facts.assignments.append(
                        Assignment(text(name), "", scope, cur.start_point[0] + 1)
                    )
            elif kind == "as_pattern_target":
                self.bind_targets(cur, scope)
                continue
            elif kind == "for_in_clause":
                left = cur.child_by_field_name("left")
                if left is not None:
                    self.bind_targets(left, scope)
                stack.extend(c for c in reversed(cur.named_children) if c != left)
                continue
            elif kind == "lambda_parameters":
                if scope:  # a lambda's names shadow inside a function; never module names
                    self.parameters(cur, scope, scope, lambda_=True)
                continue
            elif kind in ("function_definition", "class_definition", "decorated_definition"):
                self.statement(cur, scope, False)
                continue
            elif kind == "ERROR":
                self.facts.errors += 1
            elif kind == "yield" and scope in self.fixtures:
                self.returned(cur, scope, "yield")
            stack.extend(reversed(cur.named_children))


INJECTORS = frozenset({"Depends", "Security"})


def _public(name: str) -> bool:
    """Visible outside the module: no leading underscore, or a dunder."""
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def callee_text(fn: Node) -> str:
    """The callee as written; ``Engine(db).run`` is normalised to ``Engine().run`` (a method
    of a freshly constructed object, which the resolver can type)."""
    if fn.type == "attribute":
        obj = fn.child_by_field_name("object")
        if obj is not None and obj.type == "call":
            inner = obj.child_by_field_name("function")
            if inner is not None and _is_dotted(inner):
                return f"{text(inner)}().{text(fn.child_by_field_name('attribute'))}"
    return text(fn)


def _value(right: Node) -> str:
    """What an assigned (or returned) expression proves: a call's callee (``Foo``, ``a.make``),
    ``=name`` for an alias of another name, '' for anything else."""
    if right.type == "call":
        fn = right.child_by_field_name("function")
        return text(fn) if fn is not None and _is_dotted(fn) else ""
    if right.type in ("identifier", "attribute"):
        return "=" + text(right)
    return ""


def _is_dotted(node: Node) -> bool:
    raw = node.text or b""
    return bool(raw) and all(chr(b) in NAME_CHARS for b in raw)


class PythonExtractor:
    """Python through ``tree_sitter_python``."""

    suffixes: ClassVar[dict[str, str]] = {".py": "python", ".pyi": "python"}
    version = "4"  # bump when the facts change: stored facts of another version are re-parsed

    def __init__(self) -> None:
        self._parser: Parser | None = None

    def parser(self) -> Parser:
        if self._parser is None:
            with optional_layer("the code graph", "codegraph"):
                import tree_sitter_python
                from tree_sitter import Language, Parser

            self._parser = Parser(Language(tree_sitter_python.language()))
        return self._parser

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        tree = self.parser().parse(source)
        facts = FileFacts(path=path, language=language)
        root = tree.root_node
        facts.module_doc = docstring_of(root)
        walker = _Walker(facts)
        walker.block(root, "", False)
        return facts

    def parameter_resolver(self, resolver: Resolver) -> PytestFixtures:
        """Test and fixture parameters typed by pytest's fixtures (``py_fixtures``)."""
        from clawql_git.codegraph.py_fixtures import PytestFixtures

        return PytestFixtures(resolver)

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """Relative imports from the importer's package; absolute ones through the map of
        dotted module names (package roots found by walking up ``__init__.py`` files)."""
        return resolve_python_module(importer, module, repo)


EXTRACTOR = PythonExtractor()
