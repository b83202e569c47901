"""A local OpenAI-compatible ``/v1/chat/completions`` server for the tests: it answers the
reply it was given (or an HTTP error) and keeps every request it saw."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatHandler(BaseHTTPRequestHandler):
    """Answers ``server.reply`` as the first choice's message content (``server.status`` when
    it is not 200), after checking the bearer token when one is set."""

    server: ChatServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": request}
        )
        if self.server.status != 200:
            self._send(self.server.status, {"error": {"message": "model overloaded"}})
            return
        message = {"role": "assistant", "content": self.server.reply}
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            },
        )

    def _send(self, status: int, doc: dict[str, Any]) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, reply: str = "{}", status: int = 200) -> None:
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.reply = reply
        self.status = status
        self.requests: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextmanager
def chat_server(reply: str = "{}", status: int = 200) -> Iterator[ChatServer]:
    """A running server on a free loopback port, shut down afterwards."""
    server = ChatServer(reply, status)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
