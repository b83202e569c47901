"""Rails routes in ``config/routes.rb`` (and files under ``config/routes/``), read from the
routing DSL as Rails expands it.

- ``get/post/put/patch/delete "path", to: "c#a"`` and ``"path" => "c#a"``; ``match "path",
  to:, via: [...]`` (``via: :all`` -> ANY); ``root "c#a"`` (GET /). Inside ``member`` /
  ``collection`` blocks (or ``on:``), ``post :publish`` is the resource's action.
- ``resources :photos`` is the seven routes (index, new, create, show, edit, update,
  destroy) on ``/photos`` and ``/photos/:id``; ``resource :profile`` the six singular ones
  on ``/profile`` (controller ``ProfilesController``); ``only:`` / ``except:`` narrow them; a
  block nests under ``/photos/:photo_id``.
- ``namespace :admin`` prefixes the path ``/admin`` and the controller module ``Admin``;
  ``scope "/api", module: "api"`` each when given; ``scope module:`` the module only.

The handler is the controller action as the Ruby extractor names it:
``Admin.UsersController.index``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Route
from clawql_git.codegraph.ts_util import line, text

VERBS = frozenset({"get", "post", "put", "patch", "delete", "options", "head"})
Action = tuple[str, tuple[str, ...], str]  # (action, methods, path after the resource's)
PLURAL: tuple[Action, ...] = (
    ("index", ("GET",), ""),
    ("new", ("GET",), "/new"),
    ("create", ("POST",), ""),
    ("show", ("GET",), "/:id"),
    ("edit", ("GET",), "/:id/edit"),
    ("update", ("PATCH", "PUT"), "/:id"),
    ("destroy", ("DELETE",), "/:id"),
)
SINGULAR: tuple[Action, ...] = (
    ("new", ("GET",), "/new"),
    ("create", ("POST",), ""),
    ("show", ("GET",), ""),
    ("edit", ("GET",), "/edit"),
    ("update", ("PATCH", "PUT"), ""),
    ("destroy", ("DELETE",), ""),
)


@dataclass(frozen=True)
class _Scope:
    path: str = ""  # joined path prefix
    module: str = ""  # controller module, dotted (Admin.Api)
    controller: str = ""  # inside resources: the resource's controller
    member: str = ""  # the path of one resource (/photos/:id), for member routes
    collection: str = ""  # the path of the resources (/photos), for collection routes
    nest: str = ""  # where nested resources go (/photos/:photo_id)


def rails_routes(root: Node, facts: FileFacts) -> None:
    """Add the routes of a Rails routes file to ``facts`` (other files are left alone)."""
    path = facts.path
    if not (path.endswith("config/routes.rb") or "config/routes/" in path):
        return
    _block(root, _Scope(), facts, "")


def _block(node: Node, scope: _Scope, facts: FileFacts, within: str) -> None:
    for child in node.named_children:
        if child.type == "call":
            _call(child, scope, facts, within)
        elif child.type in {"body_statement", "do_block", "block", "program"}:
            _block(child, scope, facts, within)


def _call(node: Node, scope: _Scope, facts: FileFacts, within: str) -> None:
    method = text(node.child_by_field_name("method"))
    receiver = node.child_by_field_name("receiver")
    block = node.child_by_field_name("block")
    if receiver is not None:  # Rails.application.routes.draw do ... end
        if method == "draw" and block is not None:
            _block(block, scope, facts, within)
        return
    args, opts = _arguments(node)
    if method in VERBS or method in {"match", "root"}:
        _verb(node, method, args, opts, scope, facts, within)
    elif method in {"resources", "resource"} and args:
        _resources(node, method == "resources", args, opts, block, scope, facts)
    elif method == "namespace" and args and block is not None:
        name = _word(args[0])
        inner = _Scope(_join(scope.path, name), _module(scope.module, name), nest=scope.nest)
        _block(block, inner, facts, "")
    elif method == "scope" and block is not None:
        prefix = _word(args[0]) if args else opts.get("path", "")
        module = _module(scope.module, opts["module"]) if "module" in opts else scope.module
        inner = _Scope(_join(scope.path, prefix), module, nest=scope.nest)
        _block(block, inner, facts, "")
    elif method in {"member", "collection"} and block is not None:
        _block(block, scope, facts, method)


def _arguments(node: Node) -> tuple[list[Node], dict[str, str]]:
    """Positional arguments and the ``key: value`` options (values as words)."""
    args = node.child_by_field_name("arguments")
    positional: list[Node] = []
    opts: dict[str, str] = {}
    for arg in args.named_children if args is not None else []:
        if arg.type == "pair":
            key = arg.child_by_field_name("key")
            value = arg.child_by_field_name("value")
            if key is None or value is None:
                continue
            if key.type in {"hash_key_symbol", "simple_symbol"}:
                opts[_word(key)] = _words(value)
            else:  # "path" => "c#a"
                positional.append(key)
                opts["to"] = _word(value)
        else:
            positional.append(arg)
    return positional, opts


def _verb(
    node: Node,
    method: str,
    args: list[Node],
    opts: dict[str, str],
    scope: _Scope,
    facts: FileFacts,
    within: str,
) -> None:
    if method == "root":
        target = _word(args[0]) if args else opts.get("to", "")
        verbs: tuple[str, ...] = ("GET",)
        path = scope.path or "/"
    else:
        name = _word(args[0]) if args else ""
        within = opts.get("on", within)
        base = scope.member if within == "member" else scope.collection if within else ""
        path = _join(base or scope.path, name)
        target = opts.get("to", "") or (f"#{name}" if within or scope.controller else "")
        verbs = (method.upper(),) if method != "match" else _via(opts.get("via", ""))
    facts.routes.append(Route(path, verbs, _action(target, scope), "", line(node), "rails"))


def _via(value: str) -> tuple[str, ...]:
    verbs = tuple(v.upper() for v in value.split(",") if v and v != "all")
    return verbs or ("ANY",)


def _resources(
    node: Node,
    plural: bool,
    args: list[Node],
    opts: dict[str, str],
    block: Node | None,
    scope: _Scope,
    facts: FileFacts,
) -> None:
    name = _word(args[0])
    table = PLURAL if plural else SINGULAR
    if "only" in opts:
        table = tuple(a for a in table if a[0] in opts["only"].split(","))
    if "except" in opts:
        table = tuple(a for a in table if a[0] not in opts["except"].split(","))
    base = _join(scope.nest or scope.path, opts.get("path", name))
    controller = opts.get("controller", name if plural else name + "s")
    own = _Scope(scope.path, scope.module, controller)
    for action, verbs, tail in table:
        handler = _action(f"{controller}#{action}", own)
        facts.routes.append(Route(base + tail, verbs, handler, "", line(node), "rails"))
    if block is not None:
        member = base + "/:id" if plural else base
        nest = base + f"/:{_singular(name)}_id" if plural else base
        _block(block, _Scope(scope.path, scope.module, controller, member, base, nest), facts, "")


def _action(target: str, scope: _Scope) -> str:
    """``Admin.UsersController.index`` of ``users#index`` in ``namespace :admin``."""
    controller, _, action = target.partition("#")
    controller = controller or scope.controller
    if not controller or not action:
        return ""
    parts = [_camel(p) for p in controller.split("/")]
    parts[-1] += "Controller"
    module = [] if "/" in controller else ([scope.module] if scope.module else [])
    return ".".join([*module, *parts, action])


def _module(outer: str, name: str) -> str:
    inner = ".".join(_camel(p) for p in name.strip("/").split("/") if p)
    return f"{outer}.{inner}" if outer and inner else outer or inner


def _camel(word: str) -> str:
    return "".join(p.capitalize() for p in word.split("_"))


def _word(node: Node) -> str:
    """``photos`` of ``:photos``, ``"photos"``, ``photos:``."""
    value = text(node)
    if node.type == "simple_symbol":
        return value[1:]
    if node.type == "hash_key_symbol":
        return value
    if node.type == "string":
        return value[1:-1]
    return value


def _words(node: Node) -> str:
    """A value as comma-joined words (an array of symbols or strings, or one)."""
    if node.type == "array":
        return ",".join(_word(c) for c in node.named_children)
    return _word(node)


def _join(prefix: str, path: str) -> str:
    joined = posixpath.join("/", prefix.strip("/"), path.strip("/")).rstrip("/")
    return joined or "/"


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name
