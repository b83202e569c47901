"""Choosing an embedder from a spec (flag or config) or the environment."""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from clawql_git.errors import InvalidInput
from clawql_git.index.embedders.base import Embedder, has_module
from clawql_git.index.embedders.hashing import HashEmbedder
from clawql_git.index.embedders.minilm import MiniLMEmbedder, locate_minilm
from clawql_git.index.embedders.openai_compat import (
    OPENAI_DEFAULT_BASE,
    HttpEndpoint,
    OpenAIEmbedder,
    ollama_base_url,
)
from clawql_git.index.embedders.sentence_transformer import SentenceTransformerEmbedder

ENV_EMBEDDING_MODEL = "CLAWQL_EMBEDDING_MODEL"


def _make_sentence_transformer(arg: str, env: Mapping[str, str]) -> Embedder:
    path = Path(arg).expanduser().resolve()
    if not path.exists():
        raise InvalidInput(f"st:{arg}: no sentence-transformers model at {path}")
    if not has_module("sentence_transformers"):
        raise InvalidInput("st: needs sentence-transformers (pip install sentence-transformers)")
    return SentenceTransformerEmbedder(path)


def _make_openai(model: str, env: Mapping[str, str]) -> Embedder:
    key = env.get("OPENAI_API_KEY", "")
    if not key:
        raise InvalidInput(f"openai:{model} needs OPENAI_API_KEY in the environment")
    base = env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE
    return OpenAIEmbedder("openai", model, HttpEndpoint(base, key))


def _make_ollama(model: str, env: Mapping[str, str]) -> Embedder:
    return OpenAIEmbedder("ollama", model, HttpEndpoint(ollama_base_url(env), None))


def _make_minilm(arg: str, env: Mapping[str, str]) -> Embedder:
    return MiniLMEmbedder(locate_minilm())


def _make_hash(arg: str, env: Mapping[str, str]) -> Embedder:
    return HashEmbedder()


def _default_embedder() -> Embedder | None:
    try:
        return MiniLMEmbedder(locate_minilm())
    except InvalidInput:
        return None


def _minilm_installed() -> bool:
    try:
        locate_minilm()
    except InvalidInput:
        return False
    return True


@dataclass(frozen=True)
class _Kind:
    form: str  # how the spec is written, for messages and --help
    make: Callable[[str, Mapping[str, str]], Embedder]
    takes_argument: bool
    usable: Callable[[], bool]


_KINDS: Mapping[str, _Kind] = types.MappingProxyType(
    {
        "minilm": _Kind("minilm", _make_minilm, False, _minilm_installed),
        "hash": _Kind("hash", _make_hash, False, lambda: True),
        "st": _Kind(
            "st:<path>",
            _make_sentence_transformer,
            True,
            lambda: has_module("sentence_transformers"),
        ),
        "openai": _Kind("openai:<model>", _make_openai, True, lambda: True),
        "ollama": _Kind("ollama:<model>", _make_ollama, True, lambda: True),
    }
)


def available_embedders() -> list[str]:
    """The spec forms usable in this environment, default first, ending with "none"."""
    return [kind.form for kind in _KINDS.values() if kind.usable()] + ["none"]


def resolve_embedder(spec: str | None, env: Mapping[str, str]) -> Embedder | None:
    """The embedder named by ``spec`` (flag/config), else by env CLAWQL_EMBEDDING_MODEL.

    Unset or empty: the packaged minilm model if it is installed, else None (vector layer
    off). "none": None. Anything unknown or unusable raises InvalidInput naming the choices.
    """
    chosen = (spec or "").strip() or env.get(ENV_EMBEDDING_MODEL, "").strip()
    if not chosen:
        return _default_embedder()
    if chosen.lower() == "none":
        return None
    name, colon, arg = chosen.partition(":")
    kind = _KINDS.get(name.lower())
    if kind is None or kind.takes_argument != bool(colon) or (colon and not arg.strip()):
        choices = ", ".join([k.form for k in _KINDS.values()] + ["none"])
        raise InvalidInput(f"unknown embedding model {chosen!r}; choose one of: {choices}")
    return kind.make(arg.strip(), env)
