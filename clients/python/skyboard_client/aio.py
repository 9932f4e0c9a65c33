"""`AsyncClient`: the asyncio client of the Skyboard REST API (the same calls as `Client`, awaited)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal, TypeVar

import httpx
from httpx_sse import SSEError, aconnect_sse

from skyboard_client import _core as api
from skyboard_client import models as m
from skyboard_client._core import (
    DEFAULT_URL,
    AccountResume,
    Call,
    GameResume,
    Resume,
    RetryPolicy,
    StreamGone,
    TournamentResume,
    error_of,
)
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

    async def _follow(self, path: str, bearer: str | None, resume: Resume) -> AsyncIterator[Any]:
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
                                if isinstance(resume, GameResume | TournamentResume) and resume.ended:
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

    async def delete_account(self, confirm_name: str) -> m.AccountDeleted:
        """Delete the account (this client's key must be its current one; `confirm_name`: the account's name). Every
        key of it stops, its streams end, its seats in active games are resigned. It cannot be undone."""
        deleted = await self._run(api.delete_account(confirm_name))
        self.api_key = None
        return deleted

    async def my_games(self, *, cursor: str | None = None, limit: int = 20) -> m.MyGames:
        """A page of my games (those I play first, then those ended in the last day; `next_cursor` pages on)."""
        return await self._run(api.my_games(cursor, limit))

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

    async def take_back(self, game_id: str, token: str | None, expected_version: int, *,
                        idempotency_key: str | None = None, seat: int | None = None) -> m.Submitted:
        """See `Client.take_back`."""
        return await self._run(api.take_back(game_id, token, expected_version, idempotency_key, seat))

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

    async def create_tournament(self, name: str, game: str, players: int, rounds: int | None, starts_at: int,
                          **settings: Any) -> m.TournamentCreated:
        """Organise a Swiss tournament (`kind="arena"` and `ends_at` in `settings`, rounds None: an arena, as
        `create_arena`); `settings`: byes, points, bye_points, options, time_control, rated,
        bots_allowed, max_players (POST /v1/tournaments)."""
        return await self._run(api.create_tournament(name, game, players, rounds, starts_at, settings))

    async def create_arena(self, name: str, game: str, players: int, starts_at: int, ends_at: int,
                     **settings: Any) -> m.TournamentCreated:
        """Organise an arena from `starts_at` to `ends_at` (ms); `settings`: streak_after, streak_factor,
        bots_after_s, points, options, time_control, rated, bots_allowed, max_players (POST /v1/tournaments)."""
        return await self._run(api.create_tournament(name, game, players, None, starts_at,
                                                  {"kind": "arena", "ends_at": ends_at, **settings}))

    async def tournaments(self, status: str | None = None, limit: int = 50) -> list[m.Tournament]:
        return await self._run(api.tournaments(status, limit))

    async def tournament(self, tournament_id: str) -> m.Tournament:
        return await self._run(api.tournament(tournament_id))

    async def standings(self, tournament_id: str) -> m.Standings:
        """The standings and every round so far, with each table's game and places."""
        return await self._run(api.standings(tournament_id))

    async def join_tournament(self, tournament_id: str) -> m.TournamentEntry:
        """Enter; the account's games of each round arrive as `game_start` events with the `tournament_id`."""
        return await self._run(api.join_tournament(tournament_id))

    def tournament_events(self, tournament_id: str,
                          last_event_id: str | None = None) -> AsyncIterator[m.TournamentEvent]:
        """Follow a tournament's feed (`pairing`, `standings`, `end`) from its first kept entry, or after
        `last_event_id`, resuming on every reconnect; it ends after `end`."""
        return self._follow(f"/v1/tournaments/{tournament_id}/events", None, TournamentResume(last_event_id))

    async def withdraw_tournament(self, tournament_id: str) -> m.TournamentEntry:
        """Withdraw: no further tables; games still running are resigned (the zombie bot plays them out)."""
        return await self._run(api.withdraw_tournament(tournament_id))

    # ------------------------------------------------------------------ webhooks (docs/webhooks.md)

    async def create_webhook(self, url: str, events: Sequence[str], *, description: str = "") -> m.WebhookCreated:
        """Register an HTTPS endpoint for `events` (your_turn, game_end, challenge, match_found); the answer's
        `secret` is shown only here: verify each delivery with it (`skyboard_client.webhooks.verify`)."""
        return await self._run(api.create_webhook(url, events, description))

    async def webhooks(self) -> list[m.Webhook]:
        """The account's webhooks (never their secrets)."""
        return await self._run(api.webhooks())

    async def webhook(self, webhook_id: str) -> m.Webhook:
        return await self._run(api.webhook(webhook_id))

    async def delete_webhook(self, webhook_id: str) -> m.WebhookDeleted:
        """Delete a webhook, with its queued deliveries and its log."""
        return await self._run(api.delete_webhook(webhook_id))

    async def rotate_webhook_secret(self, webhook_id: str) -> m.SecretRotated:
        """A new signing secret (shown only here); the previous one also signs for `previous_secret_valid_s`."""
        return await self._run(api.rotate_webhook_secret(webhook_id))

    async def enable_webhook(self, webhook_id: str) -> m.Webhook:
        """Enable a webhook that was disabled because its deliveries kept failing."""
        return await self._run(api.enable_webhook(webhook_id))

    async def webhook_deliveries(self, webhook_id: str) -> list[m.WebhookDelivery]:
        """The webhook's last 100 delivery attempts, newest first."""
        return await self._run(api.webhook_deliveries(webhook_id))

    async def redeliver(self, webhook_id: str, delivery_id: str) -> m.Redelivery:
        """Deliver a logged event again (same `webhook-id`)."""
        return await self._run(api.redeliver(webhook_id, delivery_id))
