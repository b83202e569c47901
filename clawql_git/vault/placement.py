"""Where a new entry goes: ``<type folder>/<YYYY-MM>/<slug>.md`` with a stem the type folder
does not use yet (months shard the folders, so one ingest never reads a growing tree), and the
entry an ``append`` adds to (the newest with the same title)."""

from __future__ import annotations

from clawql_git.gitstore import GitStore, Tree
from clawql_git.model.drafts import Draft
from clawql_git.model.entry import iso_timestamp, parse_timestamp, slugify, type_folder
from clawql_git.model.paths import windows_reserved


def free_path(
    store: GitStore, tree: Tree | None, draft: Draft, taken: set[str] | None = None
) -> str:
    """``<type folder>/<YYYY-MM>/<slug>.md`` with a stem not used in the type folder yet, nor
    one Windows reserves (a title "Aux" gets ``aux-2.md``); the slug is cut to fit (96)."""
    folder = type_folder(str(draft.meta["type"]), draft.meta)
    month = parse_timestamp(iso_timestamp(draft.meta["timestamp"])).strftime("%Y-%m")
    base = slugify(str(draft.meta["title"]))
    months = _month_trees(store, tree, folder)
    slug, n = base, 1
    while (
        f"{folder}/{month}/{slug}.md" in (taken or ())
        or any(f"{slug}.md" in m for m in months)
        or windows_reserved(slug)
    ):
        n += 1
        slug = f"{base[: 96 - len(str(n)) - 1]}-{n}"
    return f"{folder}/{month}/{slug}.md"


def _month_trees(store: GitStore, tree: Tree | None, folder: str) -> list[Tree]:
    type_tree = store.subtree(tree, folder)
    out = []
    for item in type_tree or ():
        if item.type_str == "tree":
            sub = store.subtree(type_tree, item.name or "")
            if sub is not None:
                out.append(sub)
    return out


def same_title(store: GitStore, tree: Tree | None, draft: Draft) -> str | None:
    if draft.path is not None:
        return draft.path if store.blob_at(tree, draft.path) is not None else None
    folder = type_folder(str(draft.meta["type"]), draft.meta)
    slug = slugify(str(draft.meta["title"]))
    type_tree = store.subtree(tree, folder)
    months = sorted((m.name or "" for m in type_tree or () if m.type_str == "tree"), reverse=True)
    for month in months:
        path = f"{folder}/{month}/{slug}.md"
        if store.blob_at(tree, path) is not None:
            return path
    return None
