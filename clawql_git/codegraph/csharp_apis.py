"""What the C# resolver knows of outside libraries' documented APIs, for values declared with a
repository class as a type argument: the collections of System.Collections.Generic and what
System.Linq's ``Enumerable`` methods give (.NET API reference), Ardalis.Specification's
repositories (``IReadRepositoryBase<T>`` / ``IRepositoryBase<T>``, also re-exported by
Ardalis.SharedKernel and NimblePros.SharedKernel), and the type arguments a declaration gives
a base (FastEndpoints' ``Endpoint<TRequest, TResponse, TMapper>``).
"""

from __future__ import annotations

import re

from clawql_git.codegraph.java_resolve import segments

# collections of one element type (System.Collections.Generic, System.Linq); a value of one
# declared with a repository class as its type argument is an 'elem' entity of that class
CONTAINERS = frozenset(
    {
        "IEnumerable", "ICollection", "IList", "IReadOnlyCollection", "IReadOnlyList", "List",
        "HashSet", "ISet", "IReadOnlySet", "SortedSet", "LinkedList", "Queue", "Stack",
        "IQueryable", "IOrderedEnumerable", "IOrderedQueryable",
    }
)  # fmt: skip
# System.Linq's Enumerable and List<T>'s own methods: those giving an element...
ELEMENTS = frozenset(
    {
        "First", "FirstOrDefault", "Last", "LastOrDefault", "Single", "SingleOrDefault",
        "ElementAt", "ElementAtOrDefault", "Find", "FindLast", "Dequeue", "Peek", "Pop",
    }
)  # fmt: skip
# ...and those giving a sequence of the same elements
SAME_ELEMENTS = frozenset(
    {
        "Where", "OrderBy", "OrderByDescending", "ThenBy", "ThenByDescending", "Skip", "Take",
        "SkipWhile", "TakeWhile", "Distinct", "ToList", "ToArray", "ToHashSet", "AsEnumerable",
        "AsQueryable", "AsReadOnly", "FindAll",
    }
)  # fmt: skip
# Ardalis.Specification's repositories (also re-exported by Ardalis.SharedKernel and
# NimblePros.SharedKernel): ``IRepository<Order>``; what awaiting their methods gives
REPOSITORIES = frozenset(
    {"IRepository", "IReadRepository", "IRepositoryBase", "IReadRepositoryBase", "RepositoryBase"}
)
REPOSITORY_SPACES = frozenset(
    {"Ardalis.Specification", "Ardalis.SharedKernel", "NimblePros.SharedKernel"}
)
ONE_ENTITY = frozenset({"GetByIdAsync", "AddAsync"})  # Task<T>
# Task<T?> / Task<List<T>> for an ``ISpecification<T>``, a TResult for a projecting
# ``ISpecification<T, TResult>`` (so only when the repository declares no such spec)
BY_SPECIFICATION = frozenset({"FirstOrDefaultAsync", "SingleOrDefaultAsync"})
ENTITIES = frozenset({"ListAsync", "AddRangeAsync"})
_PROJECTION = re.compile(r"Specification<[^<>]+,[^<>]+>")
COLLECTION_SPACES = frozenset({"System.Collections.Generic", "System.Linq"})
# the hosting APIs of ASP.NET Core, the .NET generic host and .NET Aspire: what a static
# factory of a type (of that namespace) gives...
STATIC_MEMBERS = {
    ("WebApplication", "CreateBuilder()"): "WebApplicationBuilder",
    ("WebApplication", "CreateSlimBuilder()"): "WebApplicationBuilder",
    ("Host", "CreateApplicationBuilder()"): "HostApplicationBuilder",
    ("DistributedApplication", "CreateBuilder()"): "IDistributedApplicationBuilder",
}
STATIC_SPACES = {
    "WebApplication": "Microsoft.AspNetCore.Builder",
    "Host": "Microsoft.Extensions.Hosting",
    "DistributedApplication": "Aspire.Hosting",
}
# ...what a member of an instance gives (``()``: a method)...
OUTSIDE_MEMBERS = {
    ("WebApplicationBuilder", "Build()"): "WebApplication",
    ("WebApplicationBuilder", "Services"): "IServiceCollection",
    ("WebApplicationBuilder", "Configuration"): "ConfigurationManager",
    ("WebApplicationBuilder", "Logging"): "ILoggingBuilder",
    ("WebApplicationBuilder", "Environment"): "IWebHostEnvironment",
    ("HostApplicationBuilder", "Build()"): "IHost",
    ("HostApplicationBuilder", "Services"): "IServiceCollection",
    ("IDistributedApplicationBuilder", "Build()"): "DistributedApplication",
}
# ...and the interfaces a type implements (a constraint ``where T : I`` it satisfies)
IMPLEMENTS = {
    "WebApplicationBuilder": frozenset({"IHostApplicationBuilder"}),
    "HostApplicationBuilder": frozenset({"IHostApplicationBuilder"}),
    "WebApplication": frozenset({"IHost", "IApplicationBuilder", "IEndpointRouteBuilder"}),
}


def generic_kind(name: str, spaces: set[str]) -> str:
    """'elem' for a collection type ``name`` (without type arguments), 'repo' for a
    repository type, with one of its namespaces among ``spaces`` (in scope); else ''."""
    if name in CONTAINERS and spaces & COLLECTION_SPACES:
        return "elem"
    return "repo" if name in REPOSITORIES and spaces & REPOSITORY_SPACES else ""


def linq_gives(name: str) -> str:
    """What ``xs.name(...)`` gives for a collection ``xs``: 'one' element, 'many' (the same
    elements), '' (anything else, or not known)."""
    if name in ELEMENTS:
        return "one"
    return "many" if name in SAME_ELEMENTS else ""


def repository_gives(name: str, projecting: bool) -> str:
    """What awaiting ``repo.name(...)`` gives, ``repo`` an ``IRepository<T>``: 'one' ``T``,
    'many' (a list of them) or ''; ``projecting``: the repository declares a projecting
    specification, which the methods taking one answer with a ``TResult``."""
    if name in ONE_ENTITY or (name in BY_SPECIFICATION and not projecting):
        return "one"
    return "many" if name in ENTITIES and not projecting else ""


def projects(signature: str) -> bool:
    """Whether a class declaration derives from ``Specification<T, TResult>``."""
    return _PROJECTION.search(signature) is not None


def base_arguments(signature: str, base: str) -> list[str]:
    """The type arguments a type declaration gives its base ``base`` (``class A : B<X,
    C<Y>>`` -> ['X', 'C<Y>'] for 'B'), [] when it has no such base."""
    found = re.search(rf"[:,]\s*(?:[\w.]+\.)?{base}\s*<", signature)
    if found is None:
        return []
    args: list[str] = []
    depth, start = 0, found.end()
    for i in range(found.end(), len(signature)):
        ch = signature[i]
        if ch == "<":
            depth += 1
        elif ch == ">" and depth == 0:
            return [*args, signature[start:i].strip()]
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(signature[start:i].strip())
            start = i + 1
    return []


def type_parameter_bound(signature: str, name: str, parameter: str) -> str:
    """The constraint ``where T : Bound`` a method ``name<T>`` puts on its type parameter
    ``parameter`` (its first one written); '' when ``parameter`` is none of its own."""
    own = re.search(rf"\b{re.escape(name)}\s*<([^>]*)>\s*\(", signature)
    if own is None or parameter not in [p.strip() for p in own.group(1).split(",")]:
        return ""
    bound = re.search(rf"\bwhere\s+{re.escape(parameter)}\s*:\s*([A-Za-z_][\w.]*)", signature)
    return bound.group(1) if bound is not None else ""


def satisfies(written: str, bound: str) -> bool:
    """Whether the outside type ``written`` is ``bound`` or implements it."""
    return written == bound or bound in IMPLEMENTS.get(written, frozenset())


def returns_parameter(signature: str, name: str, parameter: str) -> bool:
    """Whether method ``name`` is declared to return its type parameter ``parameter``
    (``static TBuilder AddDefaults<TBuilder>(this TBuilder b)``)."""
    return re.search(rf"\b{re.escape(parameter)}\s+{re.escape(name)}\s*<", signature) is not None


ARITY = re.compile(r"`(\d+)")  # ``List`1``: lang_csharp's mark of a generic ``new``


def marked_segments(callee: str) -> list[str] | None:
    """``segments`` of a C# callee, each keeping its generic mark (``Foo`1().Bar`` ->
    ['Foo`1()', 'Bar'])."""
    plain = segments(ARITY.sub("", callee))
    if plain is None:
        return None
    marked = callee.split(".")
    return marked if len(marked) == len(plain) else plain


def split_arity(part: str) -> tuple[str, int]:
    """``List`1`` -> ('List', 1); ``Foo`` -> ('Foo', 0)."""
    name, _, count = part.partition("`")
    return name, int(count) if count.isdigit() else 0


def written_arity(written: str) -> int:
    """How many type arguments a written type gives its name (``Dictionary<K, List<V>>``: 2,
    ``Foo``: 0)."""
    start = written.find("<")
    if start < 0:
        return 0
    depth, count = 0, 1
    for ch in written[start + 1 : -1]:
        depth += (ch == "<") - (ch == ">")
        count += ch == "," and depth == 0
    return count


def type_parameters(signature: str, name: str) -> int:
    """How many type parameters the declaration of type ``name`` takes (``record
    PagedResult<T>(...)``: 1, ``class List``: 0)."""
    found = re.search(
        rf"\b(?:class|struct|interface|record)\s+(?:class\s+|struct\s+)?{re.escape(name)}\s*<([^>]*)>",
        signature,
    )
    return len(found.group(1).split(",")) if found is not None else 0
