"""pytest fixtures: what a test's (or a fixture's) parameter receives, found the way pytest
looks a fixture up and typed by what the fixture returns or yields.

pytest's documented rules ("How to use fixtures", "Fixtures reference"): a test function
(``test*`` at module level or in a ``Test*`` class without ``__init__``, in a ``test_*.py`` /
``*_test.py`` module) or a fixture receives, for each plain parameter, the value of the
fixture of that name: one of its class, else of its module, else of the ``conftest.py`` of its
directory and then of each parent directory (the closest wins; fixtures of plugins are
outside). ``@pytest.fixture(name="x")`` renames; a fixture requesting its own name gets the
one further up. A fixture's parameter is looked up from each test that uses it, so fixtures of
that name further down (in test modules and classes under its conftest) must agree, and no
direct parametrization may override it. Anything else (a decorator that is no pytest mark,
``pytest_generate_tests``, a star import at a level, a fixture whose name is not proven) stays
unknown.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Symbol
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")
PYTEST_FIXTURE = frozenset({"pytest.fixture", "_pytest.fixtures.fixture"})
FUNCTIONS = frozenset({"function", "method"})
VALUE_DEPTH = 1  # the depth a fixture's value is worked out at
Place = tuple[str, str]  # (file, qualname) of a fixture function


def collected(path: str) -> bool:
    """A file pytest reads fixtures (and tests) from: a conftest or a test module."""
    base = posixpath.basename(path)
    return base == "conftest.py" or bool(TEST_FILE.match(base))


def conftests(path: str, index: Collection[str]) -> list[str]:
    """The conftest.py files seen from ``path``, closest first (a conftest itself excluded)."""
    folder = posixpath.dirname(path)
    out = []
    while True:
        here = posixpath.join(folder, "conftest.py") if folder else "conftest.py"
        if here != path and here in index:
            out.append(here)
        if not folder:
            return out
        folder = posixpath.dirname(folder)


def parametrizes(decorator: str, name: str) -> bool:
    """A decorator that may parametrize ``name``: ``pytest.mark.parametrize`` whose argnames
    (``"a, b"``, ``("a", "b")``, ``argnames=``) hold it, or are not plain strings."""
    if "parametrize" not in decorator:
        return False
    try:
        call = ast.parse(decorator.strip(), mode="eval").body
    except SyntaxError:
        return True
    if not isinstance(call, ast.Call):
        return True  # a parametrize mark bound to a name, not read here
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "parametrize"):
        return "parametrize" in ast.unparse(call.func)
    given = [k.value for k in call.keywords if k.arg == "argnames"] or call.args[:1]
    if not given:
        return True
    names = given[0]
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        return name in {n.strip() for n in names.value.split(",")}
    if isinstance(names, (ast.Tuple, ast.List)):
        written = [e.value for e in names.elts if isinstance(e, ast.Constant)]
        if len(written) == len(names.elts) and all(isinstance(w, str) for w in written):
            return name in {str(w).strip() for w in written}
    return True


def fixture_users(paths: Iterable[str], files: Collection[str]) -> set[str]:
    """The collected files under each ``conftest.py`` of ``paths``: their parameters may be
    typed by its fixtures, so they are relinked when it changes."""
    folders = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "conftest.py"}
    prefixes = tuple(f + "/" if f else "" for f in folders)
    return {f for f in files if prefixes and f.startswith(prefixes) and collected(f)}


class PytestFixtures:
    """Fixture lookups over a :class:`Resolver`'s facts (made again when facts change)."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._fixtures: dict[str, list[str]] | None = None  # file -> its fixture functions
        self._names: dict[Place, str | None] = {}
        self._levels: dict[tuple[str, str, str], list[Place] | None] = {}
        self._regions: dict[str, list[str]] = {}  # conftest -> the collected files under it
        self._parametrizing: dict[tuple[str, str], bool] = {}  # (decorator, name)
        self._hooks: dict[str, bool] = {}  # file -> defines pytest_generate_tests
        self._marks: dict[str, bool] = {}  # file -> a pytestmark that may parametrize

    # ------------------------------------------------------------ the parameter

    def parameter(self, path: str, asg: Assignment, ctx: ResolutionNotes, depth: int) -> Entity:
        """What pytest passes the plain parameter ``asg`` of a def, when proven."""
        sym = self.r.index[path].defs.get(asg.scope)
        if sym is None or sym.kind not in FUNCTIONS or not collected(path):
            return UNK
        own = self.fixture_name(path, asg.scope)
        if own == "" or not self._requester(path, sym, own is not None):
            return UNK
        places = self._found(path, asg.scope, asg.target, own == asg.target)
        if places and own is not None:
            below = self._below(path, asg.scope, asg.target)
            places = places + below if below is not None else []
        if not places or self._parametrized(path, sym, asg.target, own is not None):
            return UNK
        ctx.inferred = True
        results = {self.value(p, q, ctx) for p, q in places}
        return results.pop() if len(results) == 1 else UNK

    def value(self, path: str, qual: str, ctx: ResolutionNotes) -> Entity:
        """What a fixture gives: what it yields (a generator), else what it returns. Worked
        out at one depth whoever asks (a chain of fixtures, each through imports, would
        exhaust the resolver's depth), so the resolver's memo both reuses it and cuts a
        cycle of fixtures requesting one another."""
        assigns = self.r.index[path].assigns
        given = assigns.get((qual, "yield")) or assigns.get((qual, "return"))
        return self.r.infer(path, qual, given, ctx, VALUE_DEPTH) if given else UNK

    # ------------------------------------------------------------ who requests

    def _requester(self, path: str, sym: Symbol, fixture: bool) -> bool:
        """A collected test, or a registered fixture (at module level of a conftest or a test
        module, or in a test class), decorated only by pytest marks (and ``fixture``)."""
        classes = self._classes(path, sym.qualname)
        if classes is None or (classes and not TEST_FILE.match(posixpath.basename(path))):
            return False
        if not fixture and not (
            sym.name.startswith("test") and TEST_FILE.match(posixpath.basename(path))
        ):
            return False
        return all(self._mark(path, parent(sym.qualname), d, fixture) for d in sym.decorators)

    def _classes(self, path: str, qual: str) -> list[str] | None:
        """The classes ``qual`` sits in, innermost first, when each is a collected ``Test*``
        class (None when one is not, or when ``qual`` is nested in a function)."""
        defs = self.r.index[path].defs
        out = []
        cur = parent(qual)
        while cur:
            sym = defs.get(cur)
            if sym is None or sym.kind != "class" or not sym.name.startswith("Test"):
                return None
            if f"{cur}.__init__" in defs or f"{cur}.__new__" in defs:
                return None
            out.append(cur)
            cur = parent(cur)
        return out

    def _mark(self, path: str, scope: str, decorator: str, fixture: bool) -> bool:
        """A decorator that leaves the parameters to pytest: ``pytest.mark.*`` (or a module
        name set to one), or, on a fixture, the fixture decorator itself."""
        head = decorator.split("(", 1)[0].strip()
        if head.startswith("pytest.mark."):
            return True
        if fixture and head.rsplit(".", 1)[-1] == "fixture":
            return True
        marks = self.r.index[path].assigns.get(("", head), [])
        return bool(marks) and all(
            a.value.startswith("pytest.mark.") and "parametrize" not in a.value for a in marks
        )

    def _parametrized(self, path: str, sym: Symbol, name: str, fixture: bool) -> bool:
        """``name`` may be parametrized directly (overriding the fixture) for the tests the
        requester serves (a test: itself, its classes, its module's ``pytestmark``; a
        fixture: every test of its module or, a conftest's, of the files under it), or a
        ``pytest_generate_tests`` hook may parametrize anything."""
        files = self._region(path) if fixture else [path]
        if any(self._hooked(f) for f in files + conftests(path, self.r.index)):
            return True
        for f in files:
            defs = self.r.index[f].defs
            if fixture:
                marked = self.r.index[f].facts.symbols
            else:
                owners = [sym.qualname, *(self._classes(path, sym.qualname) or [])]
                marked = [defs[q] for q in owners if q in defs]
            if any(self._parametrizes(d, name) for s in marked for d in s.decorators):
                return True
            if self._marked_module(f):
                return True
        return False

    def _parametrizes(self, decorator: str, name: str) -> bool:
        """``parametrizes``, memoised (a conftest's fixtures read every decorator under it)."""
        if "parametrize" not in decorator:
            return False
        key = (decorator, name)
        if key not in self._parametrizing:
            self._parametrizing[key] = parametrizes(decorator, name)
        return self._parametrizing[key]

    def _hooked(self, path: str) -> bool:
        """``path`` defines a ``pytest_generate_tests`` hook."""
        if path not in self._hooks:
            symbols = self.r.index[path].facts.symbols
            self._hooks[path] = any(s.name == "pytest_generate_tests" for s in symbols)
        return self._hooks[path]

    def _marked_module(self, path: str) -> bool:
        """A ``pytestmark`` of the module or a class that may parametrize (a list of marks
        in a class is not read)."""
        if path not in self._marks:
            self._marks[path] = self._marked_module_uncached(path)
        return self._marks[path]

    def _marked_module_uncached(self, path: str) -> bool:
        for s in self.r.index[path].facts.symbols:
            if s.name == "pytestmark" and ("parametrize" in s.signature or len(s.signature) >= 120):
                return True  # the stored signature is cut at 120 characters
        for a in self.r.index[path].facts.assignments:
            if a.target == "pytestmark" and a.scope and "pytest.mark." not in a.value:
                return True
            if a.target == "pytestmark" and "parametrize" in a.value:
                return True
        return False

    # ------------------------------------------------------------ lookup

    def _found(self, path: str, scope: str, name: str, itself: bool) -> list[Place]:
        """The fixture ``name`` seen from the requester ``scope`` (skipping the requester's
        own level when it requests its own name): [] when none or not proven."""
        classes = self._classes(path, scope) or []
        levels = [(path, c) for c in classes] + [(path, "")]
        levels += [(c, "") for c in conftests(path, self.r.index)]
        for file, klass in levels:
            found = self._level(file, klass, name)
            if found is None:
                return []
            if itself and (path, scope) in found:
                if len(found) > 1:
                    return []
                continue
            if len(found) > 1:
                return []
            if found:
                return found
            if klass and self.r.index[file].defs[klass].bases:
                return []  # a base class may define it
        return []

    def _below(self, path: str, scope: str, name: str) -> list[Place] | None:
        """Fixtures ``name`` under the requester's level (they serve some of its tests
        instead): nested classes; a test module's classes; every test module and conftest
        under a conftest's directory. None when one of them is not proven."""
        out: list[Place] = []
        klass = parent(scope)
        for file in self._region(path):
            if file != path:
                found = self._level(file, "", name)
                if found is None:
                    return None
                out += found
            for qual in self._all_fixtures().get(file, []):
                owner = parent(qual)
                if owner and owner != klass and (not klass or owner.startswith(klass + ".")):
                    named = self.fixture_name(file, qual)
                    if named == "":
                        return None
                    if named == name:
                        out.append((file, qual))
        return out

    def _region(self, path: str) -> list[str]:
        """The collected files whose tests a fixture of ``path`` may serve: its own module, or
        (a conftest) every collected file under its directory."""
        if posixpath.basename(path) != "conftest.py":
            return [path]
        if path not in self._regions:
            folder = posixpath.dirname(path)
            prefix = folder + "/" if folder else ""
            self._regions[path] = [
                f for f in sorted(self.r.index) if f.startswith(prefix) and collected(f)
            ]
        return self._regions[path]

    def _level(self, path: str, klass: str, name: str) -> list[Place] | None:
        """The fixtures ``name`` of one level (a class body, or a module with the fixtures it
        imports); None when the level may hold one unseen."""
        key = (path, klass, name)
        if key not in self._levels:
            self._levels[key] = self._level_uncached(path, klass, name)
        return self._levels[key]

    def _level_uncached(self, path: str, klass: str, name: str) -> list[Place] | None:
        out = []
        for qual in self._all_fixtures().get(path, []):
            if parent(qual) != klass:
                continue
            named = self.fixture_name(path, qual)
            if named == "":
                return None
            if named == name:
                out.append((path, qual))
        if klass:
            return out
        idx = self.r.index[path]
        if idx.stars.get(""):
            return None
        for asg in idx.assigns.get(("", name), []):
            if asg.value.startswith("=") or asg.value.endswith("fixture"):
                return None  # ``name = other_fixture`` / ``name = pytest.fixture(f)``
        for imp in idx.facts.imports:
            if imp.scope or not imp.name:
                continue
            binding = imp.alias or imp.name
            entity = self.r.follow(path, imp, ResolutionNotes(), 1)
            named = self.fixture_name(entity[1], entity[2]) if entity[0] == "def" else None
            if named == "" or (binding == name and named not in (None, name)):
                return None
            if binding == name and entity[0] != "def":
                return None
            if named == name:
                out.append((entity[1], entity[2]))
        return out

    # ------------------------------------------------------------ which functions are fixtures

    def _all_fixtures(self) -> dict[str, list[str]]:
        """Each file's functions decorated ``...fixture`` (proven pytest's or not)."""
        if self._fixtures is None:
            self._fixtures = {}
            for path, idx in self.r.index.items():
                if idx.facts.language != "python":
                    continue
                quals = {a.scope for a in idx.facts.assignments if a.target == "@fixture"}
                if quals:
                    self._fixtures[path] = sorted(quals)
        return self._fixtures

    def fixture_name(self, path: str, qual: str) -> str | None:
        """The name pytest registers the function ``qual`` as; None when it is no fixture, ''
        when its decorator or its ``name=`` is not proven."""
        key = (path, qual)
        if key not in self._names:
            self._names[key] = self._fixture_name(path, qual)
        return self._names[key]

    def _fixture_name(self, path: str, qual: str) -> str | None:
        assigns = self.r.index[path].assigns
        decorators = assigns.get((qual, "@fixture"))
        if not decorators:
            return None
        if not all(self._pytest_fixture(path, parent(qual), a.value) for a in decorators):
            return ""
        renamed = assigns.get((qual, "@name"))
        if renamed:
            return renamed[0].value if len(renamed) == 1 else ""
        return qual.rsplit(".", 1)[-1]

    def _pytest_fixture(self, path: str, scope: str, dotted: str) -> bool:
        """``dotted`` (``pytest.fixture``, ``fixture``) denotes pytest's ``fixture``."""
        head, _, rest = dotted.partition(".")
        entity = self.r.name(path, scope, head, ResolutionNotes(), 1)
        if entity[0] != "ext":
            return False
        return (f"{entity[1]}.{rest}" if rest else entity[1]) in PYTEST_FIXTURE
