"""`AsyncClient`: the asyncio client of the Skyboard REST API (the same calls as `Client`, awaited)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, TypeVar

import httpx
from httpx_sse import SSEError, aconnect_sse

from skyboard_client import _core as api
from skyboard_client import models as m
from skyboard_client._core import DEFAULT_URL, AccountResume, Call, GameResume, RetryPolicy, StreamGone, error_of
from skyboard_client.errors import SkyboardError, StreamClosed

T = TypeVar("T")
Json = Mapping[str, Any]


class AsyncClient:
    """Asyncio client: every method of `Client`, as a coroutine; `events` and `account_events` are async
    iterators.

    ```python
    async with AsyncClient("http://127.0.0.1:8000", api_key=key) as sky:
        async for event in sky.account_events():
            ...
    ```
    """

    def __init__(self, base_url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 20.0,
                 retry: RetryPolicy | None = None, transport: httpx.AsyncBaseTransport | None = None,
                 stream_timeout: float = 60.0):
        self.api_key = api_key
        self.retry = retry or RetryPolicy()
        self.stream_timeout = stream_timeout
        self._http = httpx.AsyncClient(base_url=base_url, timeout=timeout, transport=transport,
                                       headers={"User-Agent": "skyboard-client-python/0.1"})

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # ------------------------------------------------------------------------------------------ transport

    def _headers(self, call: Call[Any]) -> dict[str, str]:
        headers = dict(call.headers)
        secret = self.api_key if call.api_key else call.bearer
        if call.api_key and not secret:
            raise SkyboardError(401, "unauthenticated", "this call needs an API key: create_player() or api_key=")
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        return headers

    async def _run(self, call: Call[T]) -> T:
        headers = self._headers(call)
        attempt = 0
        while True:
            try:
                r = await self._http.request(call.method, call.path, json=call.json, params=call.params,
                                             headers=headers)
            except httpx.TransportError:
                wait = self.retry.delay(attempt) if call.safe else None
                if wait is None:
                    raise
            else:
                if r.status_code < 400:
                    return call.parse(r.json())
                error = error_of(r)
                wait = self.retry.retry_error(attempt, error)
                if wait is None:
                    raise error
            await asyncio.sleep(wait)
            attempt += 1

    async def _follow(self, path: str, bearer: str | None, resume: GameResume | AccountResume) -> AsyncIterator[Any]:
        failures = 0
        while True:
            headers = {**resume.headers(), **({"Authorization": f"Bearer {bearer}"} if bearer else {})}
            wait: float | None = None
            try:
                timeout = httpx.Timeout(self._http.timeout.connect, read=self.stream_timeout)
                async with aconnect_sse(self._http, "GET", path, headers=headers, timeout=timeout) as source:
                    if source.response.status_code >= 400:
                        await source.response.aread()
                        error = error_of(source.response)
                        wait = self.retry.retry_error(failures, error)
                        if wait is None:
                            raise error
                    else:
                        async for sse in source.aiter_sse():
                            item = resume.accept(sse.event, sse.data, sse.id or None)
                            if item is not None:
                                failures = 0
                                yield item
                                if isinstance(resume, GameResume) and resume.ended:
                                    return
            except (httpx.TransportError, StreamGone, SSEError):
                pass
            if wait is None:
                wait = self.retry.delay(failures)
            if wait is None:
                raise StreamClosed(0, "stream_closed", f"{path}: the stream could not be resumed")
            await asyncio.sleep(wait)
            failures += 1

    # ------------------------------------------------------------------------------------------ accounts

    async def catalog(self) -> m.Catalog:
        return await self._run(api.catalog())

    async def create_player(self, name: str, kind: Literal["human", "bot"] = "human") -> m.PlayerCreated:
        """Create an account; its API key becomes this client's when it has none yet."""
        created = await self._run(api.create_player(name, kind))
        if self.api_key is None:
            self.api_key = created.api_key
        return created

    async def me(self) -> m.Me:
        return await self._run(api.me())

    async def player(self, player_id: str) -> m.Player:
        return await self._run(api.player(player_id))

    async def rotate_key(self) -> m.KeyRotated:
        rotated = await self._run(api.rotate_key())
        self.api_key = rotated.api_key
        return rotated

    async def revoke_other_keys(self) -> m.KeysRevoked:
        return await self._run(api.revoke_other_keys())

    async def my_games(self) -> list[m.MyGame]:
        return await self._run(api.my_games())

    async def history(self, player_id: str, *, game: str | None = None, status: str | None = None,
                      cursor: str | None = None, limit: int = 20) -> m.History:
        return await self._run(api.history(player_id, game, status, cursor, limit))

    async def leaderboard(self, game: str, *, limit: int = 50, offset: int = 0) -> m.Leaderboard:
        return await self._run(api.leaderboard(game, limit, offset))

    # ------------------------------------------------------------------------------------------ games

    async def create_game(self, game: str, players: int, *, seed: int | None = None, options: Json | None = None,
                          bots: Mapping[int, str] | None = None, time_control: m.TimeControl | Json | None = None,
                          turn_seconds: float | None = None,
                    account_seats: list[int] | None = None) -> m.CreatedGame:
        return await self._run(api.create_game(game, players, seed, options, bots, time_control, turn_seconds,
                                       account_seats))

    async def games(self, *, status: str | None = None, game: str | None = None,
                    limit: int = 50) -> list[m.GameSummary]:
        return await self._run(api.games(status, game, limit))

    async def game(self, game_id: str, token: str | None = None, *, account: bool = False,
                   seat: int | None = None) -> m.Game:
        return await self._run(api.game(game_id, token, account, seat))

    async def legal_actions(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.LegalActions:
        return await self._run(api.legal_actions(game_id, token, seat))

    async def submit(self, game_id: str, token: str | None, action: Json, expected_version: int, *,
                     idempotency_key: str | None = None, seat: int | None = None) -> m.Submitted:
        """See `Client.submit`: one `Idempotency-Key` per submission, kept across its retries."""
        return await self._run(api.submit(game_id, token, action, expected_version, idempotency_key, seat))

    async def resign(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.Version:
        return await self._run(api.resign(game_id, token, seat))

    async def abort(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.Version:
        return await self._run(api.abort(game_id, token, seat))

    async def rotate_token(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> str:
        return (await self._run(api.rotate_token(game_id, token, seat))).token

    async def log(self, game_id: str) -> m.GameLog:
        return await self._run(api.log(game_id))

    def events(self, game_id: str, token: str | None = None, *, after: int | None = None, account: bool = False,
               seat: int | None = None
               ) -> AsyncIterator[m.GameEvent]:
        """See `Client.events`."""
        bearer = self.api_key if account and token is None else token
        path = f"/v1/games/{game_id}/events" + (f"?seat={seat}" if seat is not None else "")
        return self._follow(path, bearer, GameResume(after))

    def account_events(self, last_event_id: str | None = None, *,
                       replay: bool = False) -> AsyncIterator[m.AccountEvent]:
        """See `Client.account_events`."""
        if not self.api_key:
            raise SkyboardError(401, "unauthenticated", "the account stream needs an API key")
        path = "/v1/players/me/events" + ("?replay=true" if replay else "")
        return self._follow(path, self.api_key, AccountResume(last_event_id))

    # ------------------------------------------------------------------------------------------ matchmaking

    async def seek(self, game: str, players: int, *, time_control: m.TimeControl | Json | None = None,
                   opponents: Literal["any", "humans"] = "any", options: Json | None = None,
                   bots_after_s: float | None = None) -> m.TicketCreated:
        return await self._run(api.seek(game, players, time_control, opponents, options, bots_after_s))

    async def poll_ticket(self, ticket_id: str) -> m.Ticket:
        return await self._run(api.poll_ticket(ticket_id))

    async def cancel_ticket(self, ticket_id: str) -> m.Ticket:
        return await self._run(api.cancel_ticket(ticket_id))

    async def wait_for_match(self, ticket_id: str, *, poll_s: float = 1.0, timeout: float | None = None) -> m.Ticket:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            ticket = await self.poll_ticket(ticket_id)
            if ticket.status == "matched":
                return ticket
            if ticket.status != "queued":
                raise SkyboardError(0, f"ticket_{ticket.status}", f"ticket {ticket_id} is {ticket.status}")
            if deadline is not None and time.monotonic() > deadline:
                raise SkyboardError(0, "timeout", f"ticket {ticket_id} not matched within {timeout} s")
            await asyncio.sleep(poll_s)

    # ------------------------------------------------------------------------------------------ challenges

    async def challenge(self, to: str, game: str, players: int = 2, *, options: Json | None = None,
                        time_control: m.TimeControl | Json | None = None, rated: bool = False) -> m.ChallengeCreated:
        return await self._run(api.challenge(to, game, players, options, time_control, rated))

    async def challenges(self, status: str | None = None) -> list[m.Challenge]:
        return await self._run(api.challenges(status))

    async def get_challenge(self, challenge_id: str) -> m.Challenge:
        return await self._run(api.get_challenge(challenge_id))

    async def accept(self, challenge_id: str) -> m.ChallengeAccepted:
        return await self._run(api.accept(challenge_id))

    async def decline(self, challenge_id: str, reason: str | None = None) -> m.Challenge:
        return await self._run(api.decline(challenge_id, reason))

    async def cancel(self, challenge_id: str) -> m.Challenge:
        return await self._run(api.cancel(challenge_id))
