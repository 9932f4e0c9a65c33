"""The security headers on every gateway answer: a Content-Security-Policy, nosniff and a Referrer-Policy.

Why on every answer and not only the pages: the web client (/, /game.html) and /docs run on the same origin
as the API, and the web client keeps a player's API key in that origin's storage, so one injected script would
own the account. The policy allows scripts, styles, fonts and fetches from this origin only, never inline
script or `eval`; images may also be `data:` URLs (the web client's favicon, Swagger UI's icons). Nothing may
frame a page (`frame-ancestors 'none'`: no clickjacking), no answer is content-sniffed into another type, and
no URL (game ids are in them) is sent to another origin as a referrer. On JSON answers the same headers cost
nothing and cover a response a browser is tricked into rendering.
"""

from __future__ import annotations

from starlette.types import Message, Send

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

_RAW = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
_NAMES = {k for k, _ in _RAW}


def secured(send: Send) -> Send:
    """`send` that puts the security headers on the response start (replacing any the app set)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _NAMES]
            message = {**message, "headers": [*kept, *_RAW]}
        await send(message)

    return sending
