"""The ``openai:<model>`` and ``ollama:<model>`` embedders: an OpenAI-compatible
``/v1/embeddings`` endpoint the user configured."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawql_git.errors import StorageError
from clawql_git.index.embedders.base import empty_rows, first_row, normalise_rows
from clawql_git.llm.chat import http_errors

if TYPE_CHECKING:
    from clawql_git.index.embedders.base import Matrix

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class HttpEndpoint:
    """Where an OpenAI-compatible API lives and how to authenticate to it."""

    base_url: str
    api_key: str | None
    timeout: float = 60.0


class OpenAIEmbedder:
    """Vectors from ``POST {base_url}/embeddings``, sent in batches, L2-normalised.

    ``dim`` is learnt from the first answer (asking for it first costs one probe request).
    """

    def __init__(
        self, provider: str, model: str, endpoint: HttpEndpoint, *, batch_size: int = 64
    ) -> None:
        self.id = f"{provider}:{model}"
        self.model = model
        self.endpoint = endpoint
        self._batch_size = batch_size
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """Vector size reported by the endpoint."""
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in batches; network and HTTP failures raise StorageError."""
        import numpy as np

        if not texts:
            return empty_rows(self.dim)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            rows.extend(self._request(texts[start : start + self._batch_size]))
        matrix = np.asarray(rows, dtype=np.float32)
        self._dim = int(matrix.shape[1])
        return normalise_rows(matrix)

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return first_row(self.embed([text]))

    def _request(self, texts: Sequence[str]) -> list[list[float]]:
        # OpenAI refuses empty strings as input; a space embeds the same "nothing".
        payload = {"model": self.model, "input": [t or " " for t in texts]}
        doc = _post_json(self.endpoint, "/embeddings", payload)
        return _vectors_from(doc, len(texts), self.endpoint.base_url)


def _post_json(endpoint: HttpEndpoint, route: str, payload: object) -> Any:
    import urllib.request

    url = endpoint.base_url.rstrip("/") + route
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers=headers, method="POST"
    )
    with http_errors(url), urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
        body = response.read()
    try:
        return json.loads(body)
    except ValueError as exc:
        raise StorageError(f"embedding endpoint {url} answered with invalid JSON") from exc


def _vectors_from(doc: Any, expected: int, url: str) -> list[list[float]]:
    try:
        items = sorted(doc["data"], key=lambda item: item.get("index", 0))
        rows = [[float(x) for x in item["embedding"]] for item in items]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StorageError(f"embedding endpoint {url} answered without embeddings") from exc
    if len(rows) != expected or len({len(r) for r in rows}) != 1 or not rows[0]:
        raise StorageError(f"embedding endpoint {url} answered {len(rows)} vectors for {expected}")
    return rows


def ollama_base_url(env: Mapping[str, str]) -> str:
    """Ollama's OpenAI-compatible base URL from OLLAMA_HOST ("host:port" or a URL)."""
    host = (env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST).rstrip("/")
    if "://" not in host:
        host = "http://" + host
    return host if host.endswith("/v1") else host + "/v1"
