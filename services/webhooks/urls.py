"""Which webhook URLs the platform sends to: https:// to public addresses only (SSRF: a delivery must never reach
the platform's own network, a cloud metadata endpoint or a private service), `http://` to loopback only where a
development setting allows it (GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK).

The host's addresses are checked at registration and again before every delivery (a name may be pointed elsewhere
after it was registered): every address it resolves to must pass. A delivery then connects to one of exactly the
addresses checked, never resolving the name a second time (services/webhooks/pinning.py): a name that answers a
public address to the check and a private one a moment later (DNS rebinding) cannot steer the request."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

MAX_URL = 2000


class UrlRefused(ValueError):
    """A URL the platform does not send to; the message says why."""


def parse(url: str, allow_http_loopback: bool) -> tuple[str, str, int]:
    """(scheme, host, port) of an acceptable URL's syntax; UrlRefused otherwise (addresses: `check_addresses`)."""
    if len(url) > MAX_URL:
        raise UrlRefused(f"url: at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused(f"url: not a URL ({exc})") from None
    if parts.scheme not in ("https", "http"):
        raise UrlRefused("url: must be https://")
    if parts.scheme == "http" and not allow_http_loopback:
        raise UrlRefused("url: must be https:// (http:// only to loopback, in development)")
    if not parts.hostname:
        raise UrlRefused("url: has no host")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("url: credentials in the URL are refused (they would be stored in clear): verify the "
                         "signature instead")
    if parts.fragment:
        raise UrlRefused("url: a fragment is never sent; leave it out")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def address_refused(address: str, scheme: str, allow_http_loopback: bool) -> str | None:
    """Why the platform does not send to `address` (None: it does)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback and allow_http_loopback:
        return None
    if scheme == "http":
        return f"{ip} is not a loopback address (http:// only to loopback, in development)"
    if ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_reserved or ip.is_multicast or \
            ip.is_unspecified or not ip.is_global:
        return f"{ip} is not a public address"
    return None


#: Resolves (host, port) to its addresses, in the resolver's order of preference (a test passes its own).
Resolver = Callable[[str, int], Awaitable[list[str]]]


async def system_resolve(host: str, port: int) -> list[str]:
    """The host's addresses as the system resolver gives them (getaddrinfo), in its order of preference."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def check_addresses(scheme: str, host: str, port: int, allow_http_loopback: bool,
                          resolve: Resolver = system_resolve) -> list[str]:
    """The host's addresses (one resolution, the resolver's order, each once), every one acceptable; UrlRefused if
    it does not resolve or one is refused."""
    try:
        addresses = list(dict.fromkeys(await resolve(host, port)))
    except (OSError, UnicodeError):  # socket.gaierror is an OSError
        raise UrlRefused(f"url: the host {host!r} does not resolve") from None
    if not addresses:
        raise UrlRefused(f"url: the host {host!r} does not resolve")
    for address in addresses:
        why = address_refused(address, scheme, allow_http_loopback)
        if why:
            raise UrlRefused(f"url: {host} resolves to {why}")
    return addresses


async def check(url: str, allow_http_loopback: bool) -> None:
    """UrlRefused unless the platform sends to `url` (its syntax, then every address of its host)."""
    scheme, host, port = parse(url, allow_http_loopback)
    await check_addresses(scheme, host, port, allow_http_loopback)
