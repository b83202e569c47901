"""C# project files: the ``using`` directives a ``.csproj`` gives every file of its project, and
the projects it references (whose types its files see).

An SDK-style project with ``<ImplicitUsings>enable</ImplicitUsings>`` (in the ``.csproj`` or a
``Directory.Build.props`` above it) imports its SDK's namespaces into every file as global
usings, and each ``<Using Include="A.B" />`` item adds ``global using A.B;`` (``Static="true"``:
``global using static``; ``Alias="X"``: an alias, left out here). The project of a file is the
nearest directory above it holding ``NAME/NAME.csproj`` (the file named like its directory, as
``dotnet new`` writes it); a file in no such directory gets nothing.

These files are read when resolving, so an edit of one alone changes edges: the indexer keeps
their digests and relinks the C# files :func:`project_users` names when one changes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping

from clawql_git.codegraph.model import Import, RepoView

# the namespaces ``ImplicitUsings`` brings, per SDK ("Implicit using directives", .NET docs)
BASE = (
    "System",
    "System.Collections.Generic",
    "System.IO",
    "System.Linq",
    "System.Net.Http",
    "System.Threading",
    "System.Threading.Tasks",
)
HOSTING = (
    "Microsoft.Extensions.Configuration",
    "Microsoft.Extensions.DependencyInjection",
    "Microsoft.Extensions.Hosting",
    "Microsoft.Extensions.Logging",
)
WEB = (
    "System.Net.Http.Json",
    "Microsoft.AspNetCore.Builder",
    "Microsoft.AspNetCore.Hosting",
    "Microsoft.AspNetCore.Http",
    "Microsoft.AspNetCore.Routing",
    *HOSTING,
)
SDK_USINGS = {
    "Microsoft.NET.Sdk": BASE,
    "Microsoft.NET.Sdk.Web": (*BASE, *WEB),
    "Microsoft.NET.Sdk.Worker": (*BASE, *HOSTING),
    "Microsoft.NET.Sdk.WindowsDesktop": BASE,
}
SDK = re.compile(rb"<Project\s[^>]*\bSdk=\"([^\"/]+)")
IMPLICIT = re.compile(rb"<ImplicitUsings>\s*(\w+)\s*</ImplicitUsings>")
USING = re.compile(rb"<Using\s+Include=\"([A-Za-z_][\w.]*)\"([^>]*)/?>")


REFERENCE = re.compile(rb"<ProjectReference\s+Include=\"([^\"]+\.csproj)\"")
PROPS = "Directory.Build.props"
# what discovery lists besides the sources: the candidates for :func:`is_project_file`
PROJECT_SUFFIXES = {".csproj": "msbuild", ".props": "msbuild"}


def is_project_file(path: str) -> bool:
    """Whether resolving C# reads ``path``: a ``.csproj`` or a ``Directory.Build.props``."""
    return path.endswith(".csproj") or posixpath.basename(path) == PROPS


def project_users(
    old: Mapping[str, str], new: Mapping[str, str], files: Collection[str], repo: RepoView
) -> set[str]:
    """The C# files of ``files`` whose calls may resolve otherwise once the project files
    went from ``old`` to ``new`` (path -> content digest; ``repo`` holds the new ones).
    A ``.csproj`` that appears or vanishes moves files between projects, which changes what
    every project sees: all of ``files``. An edited one changes its project's usings and
    references, and so the compilation of every project referencing it, directly or not: the
    files under those projects' directories. A ``Directory.Build.props`` gives the projects
    under its directory their ImplicitUsings: the files under it."""
    changed = {p for p in old.keys() | new.keys() if old.get(p) != new.get(p)}
    edited = {p for p in changed if p.endswith(".csproj")}
    if any((p in old) != (p in new) for p in edited):
        return set(files)
    folders = {posixpath.dirname(p) for p in changed | _referrers(edited, new, repo)}
    prefixes = tuple(f + "/" if f else "" for f in folders)
    return {f for f in files if prefixes and f.startswith(prefixes)}


def _referrers(targets: set[str], projects: Collection[str], repo: RepoView) -> set[str]:
    """The ``.csproj`` files of ``projects`` referencing one of ``targets``, directly or not."""
    referenced_by: dict[str, set[str]] = {}
    for project in projects:
        if project.endswith(".csproj"):
            for other in references(project, _read(repo, project) or b""):
                referenced_by.setdefault(other, set()).add(project)
    out: set[str] = set()
    queue = list(targets)
    while queue:
        for project in referenced_by.get(queue.pop(), ()):
            if project not in out:
                out.add(project)
                queue.append(project)
    return out


def references(project: str, raw: bytes) -> list[str]:
    """The repository paths of the projects the ``.csproj`` at ``project`` (text ``raw``)
    references; those outside the repository are left out."""
    out = []
    for written in REFERENCE.findall(raw):
        relative = written.decode().replace("\\", "/")
        other = posixpath.normpath(posixpath.join(posixpath.dirname(project), relative))
        if not other.startswith("../"):
            out.append(other)
    return out


def project_of(path: str, repo: RepoView, cache: dict[str, str]) -> str:
    """The ``.csproj`` of C# file ``path`` ('' when none is found); ``cache`` holds them per
    directory."""
    folder = posixpath.dirname(path)
    if folder not in cache:
        here = folder
        while True:
            candidate = posixpath.join(here, posixpath.basename(here) + ".csproj")
            if here and _read(repo, candidate) is not None:
                cache[folder] = candidate
                break
            if not here:
                cache[folder] = ""
                break
            here = posixpath.dirname(here)
    return cache[folder]


def compilation(project: str, repo: RepoView) -> frozenset[str]:
    """``project`` and every project it references, directly or not (``<ProjectReference
    Include="..\\Core\\Core.csproj" />``): the projects whose types its files see."""
    seen = {project}
    queue = [project]
    while queue:
        here = queue.pop()
        for other in references(here, _read(repo, here) or b""):
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return frozenset(seen)


def project_usings(path: str, repo: RepoView, cache: dict[str, list[Import]]) -> list[Import]:
    """The global usings the project of C# file ``path`` gives it (star imports with alias
    'global', or 'global static'); ``cache`` holds them per directory."""
    folder = posixpath.dirname(path)
    if folder not in cache:
        cache[folder] = _usings_of(folder, repo)
    return cache[folder]


def _usings_of(folder: str, repo: RepoView) -> list[Import]:
    here = folder
    while True:
        project = _read(repo, posixpath.join(here, posixpath.basename(here) + ".csproj"))
        if project is not None:
            return _imports(project, here, repo)
        if not here:
            return []
        here = posixpath.dirname(here)


def _imports(project: bytes, folder: str, repo: RepoView) -> list[Import]:
    sdk = SDK.search(project)
    spaces: list[tuple[str, str]] = []
    if _implicit(project, folder, repo) and sdk is not None:
        spaces.extend((s, "global") for s in SDK_USINGS.get(sdk.group(1).decode(), ()))
    for name, rest in USING.findall(project):
        if b"Alias=" not in rest:
            static = b'Static="true"' in rest.replace(b"'", b'"')
            spaces.append((name.decode(), "global static" if static else "global"))
    return [Import(space, "*", alias, 0) for space, alias in spaces]


def _implicit(project: bytes, folder: str, repo: RepoView) -> bool:
    """Whether ``ImplicitUsings`` is on: the project's own setting, else that of the nearest
    ``Directory.Build.props`` above it."""
    found = IMPLICIT.search(project)
    here = folder
    while found is None:
        props = _read(repo, posixpath.join(here, PROPS))
        found = IMPLICIT.search(props) if props is not None else None
        if not here:
            break
        here = posixpath.dirname(here)
    return found is not None and found.group(1).lower() in (b"enable", b"true")


def _read(repo: RepoView, path: str) -> bytes | None:
    try:
        return repo.read(path.lstrip("/"))
    except (OSError, LookupError, ValueError):
        return None
