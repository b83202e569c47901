"""A real git smart-HTTP server for tests: ``git http-backend`` (the CGI program git ships, so
hooks such as a protected remote's pre-receive run as on a host) behind wsgiref on 127.0.0.1,
on a free port, in a background thread."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

# Request headers git's client sends that http-backend must see (gzip bodies, protocol v2).
PASSED_HEADERS = ("HTTP_CONTENT_ENCODING", "HTTP_GIT_PROTOCOL")


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


def _read_body(environ: dict[str, Any]) -> bytes:
    """The request body, decoding chunked transfer encoding (which wsgiref leaves to us)."""
    stream = environ["wsgi.input"]
    if environ.get("HTTP_TRANSFER_ENCODING", "").lower() != "chunked":
        length = int(environ.get("CONTENT_LENGTH") or 0)
        return bytes(stream.read(length)) if length else b""
    parts = []
    while True:
        size = int(stream.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            stream.readline()
            return b"".join(parts)
        parts.append(stream.read(size))
        stream.readline()


def _cgi_env(root: Path, environ: dict[str, Any], length: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if isinstance(v, str)}
    env.update(
        GIT_PROJECT_ROOT=str(root),
        GIT_HTTP_EXPORT_ALL="1",
        REMOTE_USER="tester",  # http-backend allows receive-pack for authenticated users
        REMOTE_ADDR="127.0.0.1",
        REQUEST_METHOD=environ["REQUEST_METHOD"],
        PATH_INFO=environ.get("PATH_INFO", ""),
        QUERY_STRING=environ.get("QUERY_STRING", ""),
        CONTENT_TYPE=environ.get("CONTENT_TYPE", ""),
        CONTENT_LENGTH=str(length),
    )
    for key in PASSED_HEADERS:
        if key in environ:
            env[key] = environ[key]
    if "HTTP_GIT_PROTOCOL" in environ:
        env["GIT_PROTOCOL"] = environ["HTTP_GIT_PROTOCOL"]
    return env


def _split_cgi(output: bytes) -> tuple[str, list[tuple[str, str]], bytes]:
    head, _, body = output.partition(b"\r\n\r\n")
    status = "200 OK"
    headers = []
    for line in head.decode("latin-1").split("\r\n"):
        key, _, value = line.partition(":")
        if key.lower() == "status":
            status = value.strip()
        elif key:
            headers.append((key, value.strip()))
    return status, headers, body


class GitHttpServer:
    """Serves every bare repository under ``root`` at ``http://127.0.0.1:PORT/<name>``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._server = make_server(
            "127.0.0.1", 0, self._app, server_class=_ThreadingServer, handler_class=_QuietHandler
        )
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        """The clone URL of the bare repository ``root/name``."""
        return f"http://127.0.0.1:{self.port}/{name}"

    def _app(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        body = _read_body(environ)
        result = subprocess.run(
            ["git", "http-backend"],
            input=body,
            env=_cgi_env(self.root, environ, len(body)),
            capture_output=True,
            check=False,
        )
        status, headers, payload = _split_cgi(result.stdout)
        start_response(status, headers)
        return [payload]

    def __enter__(self) -> GitHttpServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve(root: Path) -> Iterator[GitHttpServer]:
    """For a pytest fixture: ``yield from serve(path)``."""
    with GitHttpServer(root) as server:
        yield server
