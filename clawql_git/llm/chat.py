"""``POST {base_url}/chat/completions`` on an OpenAI-compatible endpoint, configured by
``CLAWQL_LLM_URL`` / ``CLAWQL_LLM_MODEL`` / ``CLAWQL_LLM_API_KEY`` (the embedders' way:
resolved at the entry point from the environment, passed down). Nothing is sent anywhere
unless a URL is configured."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from clawql_git.errors import InvalidInput, StorageError

ENV_URL = "CLAWQL_LLM_URL"
ENV_MODEL = "CLAWQL_LLM_MODEL"
ENV_KEY = "CLAWQL_LLM_API_KEY"
DEFAULT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class ChatEndpoint:
    """Where an OpenAI-compatible chat API lives, which model to ask, how to authenticate."""

    base_url: str
    model: str = DEFAULT_MODEL
    api_key: str | None = None
    timeout: float = 60.0

    def complete(self, messages: Sequence[Mapping[str, str]], json_reply: bool = True) -> str:
        """The text of the first choice; network, HTTP and shape failures raise StorageError."""
        payload: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if json_reply:
            payload["response_format"] = {"type": "json_object"}
        payload["temperature"] = 0
        doc = self._post("/chat/completions", payload)
        try:
            return str(doc["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as exc:
            raise StorageError(f"LLM endpoint {self.base_url} answered without a message") from exc

    def complete_json(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        """The first choice parsed as one JSON object (a fenced ```json block is accepted)."""
        text = self.complete(messages).strip()
        if text.startswith("```"):
            text = text.strip("`").removeprefix("json").strip()
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise StorageError(f"LLM endpoint {self.base_url} answered with invalid JSON") from exc
        if not isinstance(data, dict):
            raise StorageError(f"LLM endpoint {self.base_url} answered JSON that is no object")
        return data

    def _post(self, route: str, payload: object) -> Any:
        import urllib.request

        url = self.base_url.rstrip("/") + route
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            url, data=json.dumps(payload).encode(), headers=headers, method="POST"
        )
        with (
            http_errors(url, "LLM"),
            urllib.request.urlopen(request, timeout=self.timeout) as answer,
        ):
            body = answer.read()
        try:
            return json.loads(body)
        except ValueError as exc:
            raise StorageError(f"LLM endpoint {url} answered with invalid JSON") from exc


def endpoint_from_env(env: Mapping[str, str]) -> ChatEndpoint | None:
    """The endpoint ``CLAWQL_LLM_URL`` names (None when unset): offline is the default."""
    url = env.get(ENV_URL, "").strip()
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        raise InvalidInput(f"{ENV_URL} must be an http(s) URL, got {url!r}")
    key = env.get(ENV_KEY) or None
    return ChatEndpoint(url, env.get(ENV_MODEL, "").strip() or DEFAULT_MODEL, key)


@contextmanager
def http_errors(url: str, what: str = "embedding") -> Iterator[None]:
    """Translate urllib's failures into StorageError, naming the ``what`` endpoint (never the
    key); the embedders' HTTP client shares it."""
    import http.client
    import urllib.error

    try:
        yield
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", "replace").strip()
        raise StorageError(f"{what} endpoint {url} answered HTTP {exc.code}: {detail}") from exc
    except urllib.error.URLError as exc:
        raise StorageError(f"cannot reach {what} endpoint {url}: {exc.reason}") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise StorageError(f"{what} request to {url} failed: {exc!r}") from exc
