"""Importing LanceDB for a local index without paying for its REST namespace client, and
quoting the string literals of its filters.

`import lancedb` loads `lance_namespace_urllib3_client`, a generated OpenAPI client whose
package `__init__` imports every API module: about 1.2 s of a ~2 s import on a small machine,
for a client a local index never uses. We register that package without running its
`__init__` (its submodules, which lancedb does use, still import normally); the first access
to anything the `__init__` defines runs it for real, so nothing changes for code that needs it.

The client's ~200 request/response models (pydantic) are still defined at import, and each
builds its validator then. While lancedb imports, pydantic's `defer_build` is on, so those
validators are built on a model's first use instead (a local index never uses them); the
setting is put back afterwards, so no other pydantic model (the MCP server's) is affected.

`pyarrow.dataset` (which lancedb imports) builds a scalar while it initialises, and pyarrow
then asks whether that value is a pandas object, importing pandas to find out (0.2-0.6 s, in
a venv that has pandas; nothing of ours uses it). While `pyarrow.dataset` imports, `pandas`
is reported missing, so pyarrow notes "no pandas" for those checks; a call that needs pandas
(`Table.to_pandas`) imports it for real then, and lancedb finds it as usual (it imports
pandas on first use). Only if pandas is not loaded yet: a process that already has it pays
nothing for it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_CLIENT = "lance_namespace_urllib3_client"
_PANDAS = "pandas"

# Lance's Rust logs are kept to errors (its warnings about future defaults are not for our
# users). Set when this module is imported, before any thread of ours runs: changing the
# environment while another thread's native code reads it is not safe.
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("LANCEDB_LOG", "error")


def _defer_namespace_client() -> None:
    if _CLIENT in sys.modules:
        return
    spec = importlib.util.find_spec(_CLIENT)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def load_for_real(attr: str) -> Any:
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = load_for_real
    sys.modules[_CLIENT] = module


@contextmanager
def _pydantic_builds_deferred() -> Iterator[None]:
    """pydantic's ``defer_build`` on for the models defined meanwhile, then as it was."""
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - lancedb requires pydantic
        yield
        return
    config = BaseModel.model_config
    before = config.get("defer_build")
    config["defer_build"] = True
    try:
        yield
    finally:
        if before is None:
            config.pop("defer_build", None)
        else:
            config["defer_build"] = before


class _PandasHidden:
    """A ``sys.meta_path`` finder that reports pandas (and its submodules) missing."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name == _PANDAS or name.startswith(_PANDAS + "."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None  # not ours: the next finder looks


def _import_pyarrow_dataset_without_pandas() -> None:
    if "pyarrow.dataset" in sys.modules or _PANDAS in sys.modules:
        return
    finder = _PandasHidden()
    sys.meta_path.insert(0, finder)
    try:
        import pyarrow.dataset  # noqa: F401
    finally:
        sys.meta_path.remove(finder)


def import_lancedb() -> ModuleType:
    """The lancedb module, imported the fast way."""
    if "lancedb" not in sys.modules:
        _defer_namespace_client()
        _import_pyarrow_dataset_without_pandas()
        with _pydantic_builds_deferred():
            import lancedb

            return lancedb
    import lancedb

    return lancedb


def quote(value: str) -> str:
    """A SQL string literal for LanceDB filters."""
    return "'" + value.replace("'", "''") + "'"
