"""A lean keep-alive HTTP/1.1 client on asyncio streams, for the load generator only.

Why: on this 2-core machine httpx spends a few ms of CPU per request in the
client itself, so with httpx the generator, not the server, was the bottleneck
(the floor endpoint looked slower than the whole platform). This client sends
one request at a time on its own connection and reads a Content-Length body;
each game coroutine owns one. It speaks just enough HTTP for uvicorn's answers.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit


class Response:
    """The part of httpx.Response the load generator reads."""

    __slots__ = ("content", "status_code")

    def __init__(self, status_code: int, content: bytes):
        self.status_code = status_code
        self.content = content

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")


class LeanClient:
    """One keep-alive connection to `base_url`; reconnects when the server closed it."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Response:
        return await self.request("GET", path, None, headers)

    async def post(self, path: str, json: Any = None, headers: dict[str, str] | None = None) -> Response:
        return await self.request("POST", path, json, headers)

    async def request(self, method: str, path: str, body: Any, headers: dict[str, str] | None) -> Response:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(payload)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
        fresh = self._writer is None
        try:
            return await self._exchange(raw)
        except (ConnectionError, asyncio.IncompleteReadError):
            await self.close()
            if fresh:
                raise
            return await self._exchange(raw)  # a kept-alive connection the server had closed: once more

    async def _exchange(self, raw: bytes) -> Response:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None
        self._writer.write(raw)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        length = 0
        close = False
        for line in header_lines:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                close = True
            elif name == "transfer-encoding":
                raise ConnectionError("chunked answers are not supported by the lean client")
        content = await self._reader.readexactly(length) if length else b""
        if close:
            await self.close()
        return Response(status, content)
