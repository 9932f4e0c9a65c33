"""Send a delivery to exactly the address that was checked (DNS pinning), keeping TLS verification for the name.

Why: the deliverer checks that every address a webhook's host resolves to is public (services/webhooks/urls.py). If
the HTTP client then resolved the name again to connect, a name answering a public address to the check and a
private one a moment later (DNS rebinding, a TTL of 0) would steer the request into the platform's own network. So
the request goes to the checked address itself: its URL names the address, its `Host` header the original host and
port, and TLS is negotiated for the original name (httpx's `sni_hostname` request extension, which httpcore uses as
the `server_hostname` the certificate is verified against). Nothing resolves the name after the check.

A connection pool is keyed by the address it connects to, so two hosts at one address (shared hosting) would share
keep-alive connections: a request for one host could go over a TLS session verified for the other. `HostPools`
gives each (name, address) pool of its own, so a connection is only ever reused for the name it was verified for.
"""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import httpx


def pinned(url: str, address: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(URL naming `address`, the headers, the request extensions) that send `url`'s request to `address`: the
    `Host` header keeps the original host and port, and an https request negotiates TLS (SNI and certificate check)
    for the original host name."""
    original = httpx.URL(url)
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    target = original.copy_with(host=str(ip))
    extensions: dict[str, Any] = {"sni_hostname": original.host} if original.scheme == "https" else {}
    return str(target), {"host": original.netloc.decode("ascii")}, extensions


class HostPools(httpx.AsyncBaseTransport):
    """A transport that sends each request through a pool of its own per (scheme, address, port, TLS name, Host):
    a keep-alive connection verified for one name never carries another name's request. At most `most` pools are
    kept; beyond, the least recently used idle one is closed."""

    def __init__(self, make: Callable[[], httpx.AsyncBaseTransport], most: int = 1024):
        self._make = make
        self._most = most
        self._pools: OrderedDict[tuple, httpx.AsyncBaseTransport] = OrderedDict()
        self._busy: dict[tuple, int] = {}

    @staticmethod
    def key_of(request: httpx.Request) -> tuple:
        return (request.url.scheme, request.url.host, request.url.port, request.extensions.get("sni_hostname"),
                request.headers.get("host"))

    def pools(self) -> int:
        return len(self._pools)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = self.key_of(request)
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = self._make()
            await self._trim()
        self._pools.move_to_end(key)
        self._busy[key] = self._busy.get(key, 0) + 1
        try:
            response = await pool.handle_async_request(request)
        except BaseException:
            self._release(key)
            raise
        # the pool's connection is busy until the body is read: count it busy until the response closes
        return httpx.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                              stream=_Released(response.stream, lambda: self._release(key)))

    def _release(self, key: tuple) -> None:
        left = self._busy.get(key, 0) - 1
        if left > 0:
            self._busy[key] = left
        else:
            self._busy.pop(key, None)

    async def _trim(self) -> None:
        if len(self._pools) <= self._most:
            return
        for key in list(self._pools):
            if len(self._pools) <= self._most:
                break
            if not self._busy.get(key):
                await self._pools.pop(key).aclose()

    async def aclose(self) -> None:
        pools, self._pools = list(self._pools.values()), OrderedDict()
        await asyncio.gather(*(p.aclose() for p in pools))


class _Released(httpx.AsyncByteStream):
    """A response body that calls `done` once closed (HostPools' count of the requests a pool carries)."""

    def __init__(self, stream: Any, done: Callable[[], None]):
        self._stream = stream
        self._done: Callable[[], None] | None = done

    async def __aiter__(self):
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            if self._done is not None:
                done, self._done = self._done, None
                done()


def client(timeout_s: float, connections: int, verify: ssl.SSLContext | bool = True) -> httpx.AsyncClient:
    """The deliverer's HTTP client: no redirects (a redirect would skip the address check), no proxy settings from
    the environment, one pool per name and address with at most `connections` connections (the deliverer's own
    bounds are tighter: this one only caps a pool). `verify`: the certificate check (a test trusts its own
    authority)."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=min(connections, 8))
    return httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, trust_env=False,
                             transport=HostPools(lambda: httpx.AsyncHTTPTransport(verify=verify, limits=limits)))
