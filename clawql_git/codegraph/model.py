"""What a language extractor hands to the code graph: plain facts about one file.

An extractor (one module per language family under ``codegraph/``) turns a file's bytes into
a :class:`FileFacts` without looking at any other file. Resolution (which definition a call
or an import points at) happens later, across files, in the resolver; an extractor only
records names as written, plus the local context that resolution needs (the enclosing
scope, the receiver expression, the import aliases).

Lines are 1-based and inclusive. ``qualname`` is the dotted path inside the file
(``Class.method``, ``outer.inner``); the module name is not part of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

SymbolKind = Literal[
    "function",
    "class",
    "method",
    "interface",
    "type",
    "enum",
    "struct",
    "trait",
    "variable",
    "constant",
    "module",
    "extension",
]

DECLARATION = "declaration"  # C/C++: the decorator of a function declared here, not defined


@dataclass(frozen=True)
class Symbol:
    """A definition: function, class, method, interface, type, module-level variable."""

    name: str
    qualname: str
    kind: SymbolKind
    line: int
    end_line: int
    signature: str = ""
    docstring: str = ""
    exported: bool = True  # visible outside the file (Python: no leading underscore / __all__)
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()  # base classes / implemented interfaces, as written
    returns: str = ""  # Java: the declared return type with its type arguments ('' for none)
    params: int = -1  # Java: how many parameters (-1 unknown)
    variadic: bool = False  # Java: the last parameter is ``T...``
    # Swift: each parameter's argument label ('_' for none) and ':' the type it names ('{}'
    # a function type), ``...`` after a variadic one, ``=`` after one with a default value
    # (``f(_ a: Int, b: Int = 1)`` -> ('_:Int', 'b:Int='))
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Import:
    """One imported name, as written: ``from .a import b as c`` -> module '.a', name 'b', alias 'c'.

    ``name`` is empty for a whole-module import (``import os.path``, ``import x from './x'``
    default imports use name 'default'). ``module`` keeps relative dots / ``./`` prefixes;
    the resolver turns it into a file of the repository, or leaves it external.
    """

    module: str
    name: str
    alias: str
    line: int
    scope: str = ""  # qualname of the enclosing function when the import is local


@dataclass(frozen=True)
class Call:
    """A call site: ``callee`` as written (``self.db.get``, ``Depends``, ``fmt.Println``).

    ``caller`` is the qualname of the enclosing function/method ('' at module level).
    ``context`` says where the call sits: 'body', 'decorator', 'default' (a parameter default),
    'annotation', 'base' (a class base expression).
    """

    callee: str
    caller: str
    line: int
    column: int = 0
    context: str = "body"
    # Java: the argument count of each call of the callee chain, left to right, the call
    # itself last (``a.b(x).c(y, z)`` -> (1, 2)); empty when not recorded
    args: tuple[int, ...] = ()
    # Swift: the argument labels of each call of the callee chain, left to right, each call's
    # joined by ',' ('_' an unlabelled argument, '{' a trailing closure): ``a.b(x, y: 1).c {}``
    # -> ('_,y', '{')
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assignment:
    """Type evidence for receivers: ``self.db = Database()`` / ``db: Database`` / ``x = Foo()``.

    ``target`` as written (``self.db``, ``x``); ``value`` the callee or annotation name as
    written (``Database``, ``mod.Database``); ``scope`` the enclosing qualname.
    """

    target: str
    value: str
    scope: str
    line: int
    annotation: bool = False
    # Swift: a value that is a call, the argument labels of each call of its chain (as
    # ``Call.labels``): ``x = s.request(u, method: .get)`` -> ('_,method',)
    labels: tuple[str, ...] = ()
    # Go: (line, column, end line, end column) where a local declaration is in scope, from the
    # end of its declaration to the end of its block; empty for anything else
    span: tuple[int, ...] = ()


@dataclass(frozen=True)
class Route:
    """One HTTP (or websocket) route as declared in this file, before prefixes are joined.

    ``owner`` is the variable/object the route is registered on (``bp``, ``router``, ``app``),
    or the controller class for decorator frameworks; ``handler`` the handler's qualname (or
    the name as written when it is referenced, e.g. ``views.index``). Prefix relations
    (``app.register_blueprint(bp, url_prefix='/x')``, ``app.include_router(r, prefix=...)``,
    ``app.use('/api', router)``, ``@Controller('cats')``, Django ``include()``) are
    :class:`Mount` facts; the graph joins them.
    """

    path: str
    methods: tuple[str, ...]
    handler: str
    owner: str
    line: int
    framework: str
    middleware: tuple[str, ...] = ()
    websocket: bool = False


@dataclass(frozen=True)
class Mount:
    """``parent`` mounts ``child`` under ``prefix`` (names as written, resolved later)."""

    parent: str
    child: str
    prefix: str
    line: int
    framework: str
    middleware: tuple[str, ...] = ()


@dataclass(frozen=True)
class RouterDef:
    """A variable bound to an app/router constructor: ``bp = Blueprint('x', __name__,
    url_prefix='/x')``, ``r = APIRouter(prefix='/v1')``, ``const api = express.Router()``."""

    name: str
    constructor: str
    prefix: str
    line: int
    framework: str


@dataclass(frozen=True)
class Supertype:
    """``child`` derives from ``base``: a class base, an ``extends``/``implements`` clause, an
    embedded Go struct or interface, a Rust supertrait or ``impl Trait for Type``.

    ``child`` is the subtype's qualname in this file (for a Rust ``impl`` of a type defined
    elsewhere, the type as written there); ``base`` as written with type arguments dropped
    (``Generic[T]`` -> ``Generic``, ``abc.ABC`` stays dotted); ``relation`` is 'extends',
    'implements' or 'embeds'; ``line`` is where the base is written.
    """

    child: str
    base: str
    line: int
    relation: str
    scope: str = ""  # where ``child`` and ``base`` are looked up (a Rust impl's module scope)


@dataclass
class FileFacts:
    """Everything one extractor found in one file."""

    path: str  # repository-relative, POSIX separators
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    routers: list[RouterDef] = field(default_factory=list)
    supertypes: list[Supertype] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)  # explicit export lists (__all__, export {})
    module_doc: str = ""
    errors: int = 0  # tree-sitter ERROR nodes seen (the file is still indexed)


class RepoView(Protocol):
    """The repository as the resolver sees it: its indexed files (repository-relative, POSIX)."""

    files: frozenset[str]

    def read(self, path: str) -> bytes: ...


class Extractor(Protocol):
    """One language family, exposed by its module as ``EXTRACTOR``.

    ``suffixes`` maps file suffixes to language names (``{".ts": "typescript", ".tsx": "tsx"}``).
    ``extract`` sees one file only. ``resolve_module`` turns an import's ``module`` as written
    in ``importer`` into the repository files it denotes (a Go package is a directory, so
    several files; Java ``com.acme.Foo`` one file; ``./util`` -> ``util.ts`` or
    ``util/index.ts``); an empty list means external (stdlib, third party) and nothing of the
    repository may be resolved through it.
    """

    suffixes: dict[str, str]

    def extract(self, path: str, source: bytes, language: str) -> FileFacts: ...

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]: ...
