"""The tournament director: one more consumer of game ends, in a consumer group of its own on the outbox.

Why a group of its own: a tournament's next round depends on its games' ends, as ratings do, but pairing and
creating games is a different job from announcing turns and settling ratings, and must not slow them. The director
reads the outbox as the outcomes consumer does (services/outcomes/consumer.py: reading, claiming a dead consumer's
entries, a lost group recreated; inherited) and does its own effect for each ended game:
1. the table's result is recorded once (services/tournaments/store.py), by the one result source
   (`places`: forfeited seats last), mapped from the game's seats to the table's players; an aborted game is a
   full tie (every seat shares the points);
2. the event's next round is paired if the round is complete: once, whoever tries (the round's primary key);
3. the round's games are created through the game-creation path the matchmaker uses (`CreateGames` with the
   event's title, options, time control and rated flag; the seats' players recorded; rated games registered;
   the accounts seated and told by `game_start`), seats in a random order drawn per table (no first-seat
   advantage for the leader), bot seats at `bot_fill_level`;
An arena (services/tournaments/arena.py) moves on the same way: every game end and every tick seats the waiting
players (once: the store's seating pass runs under the event's lock on the state rebuilt from its rows, so nobody
is seated twice at once), the new tables' games are created as a round's are, and after the window's end, once its
last game has ended, the event is finished.
4. pairings, standings and the end go on the event's feed (services/tournaments/feed.py), by the director that
   paired the round or finished the event: at most once (a director killed just before leaves a gap there; the
   record in SQL, which the REST reads serve, has it).
An entry is acknowledged after its effect, so a director killed at any point leaves it pending and another (or
the same, restarted) does it again: the result is recorded once, the round paired once, and a table whose game
was not yet created is created by the next pass (`tick` also starts due events and finishes such tables). A
table's creation holds a short Redis lease, so two directors do not both create its game. The players are seated
(and rated games registered) before the table records its game, so every game id in the record is one their
accounts hold; a director killed between seating and recording leaves that game unrecorded (it is aborted by the
inactivity sweep) and the table is created again. A player who withdraws while its table's game is being made
is resigned from it by the director once it is recorded.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.seats import register_on
from services.common.slot_transactions import SlotTransactions
from services.common.waits import rest
from services.gamestate.client import MAX_BATCH, AsyncGameClient, Created, GameServiceError, NewGame
from services.gamestate.keys import Keys as GameKeys
from services.gamestate.outbox import Change
from services.outcomes.consumer import Outcomes
from services.tournament_director import metrics
from services.tournaments import feed
from services.tournaments.store import ARENA_ROUND, Event, TournamentStore
from services.tournaments.swiss import Pairing

log = logging.getLogger(__name__)

#: how long a director holds a table while it creates its game (longer than a CreateGames call may take)
TABLE_LEASE_MS = 60_000


class Director(Outcomes):
    """Reads game ends in the `tournaments` group; pairs and starts the tournaments' rounds."""

    entries_metric = metrics.ENTRIES
    delay_metric = metrics.DELAY
    groups_recreated_metric = metrics.GROUPS_RECREATED

    def __init__(self, games: Redis, game_keys: GameKeys, accounts: Redis, account_keys: AccountKeys,
                 ratings: Ratings, store: TournamentStore, gamestate: AsyncGameClient, secret: str, *,
                 bot_level: str = "greedy", group: str = "tournaments", **kw: Any):
        super().__init__(games, game_keys, accounts, account_keys, ratings, group=group, **kw)
        self.store = store
        self.gamestate = gamestate
        self.secret = secret
        self.bot_level = bot_level
        self._announce_events = AccountEvents(accounts, account_keys, secret, self.events_maxlen, self.events_keep_s)

    async def apply(self, change: Change) -> bool:
        """A game's end: its table's result, then the event moved on. Every other version: nothing."""
        if not change.ended:
            return True
        table = await self.store.table_of(change.game_id)
        if table is None:
            return True
        tournament_id, round_no, number, players = table
        await self._withdraw_the_departed(tournament_id, change.game_id, players)
        if change.status == "finished" and change.places:
            # the game's seats were drawn per table (_seating): back to the table's order of players
            seat_of = {i: seat for seat, i in _seating_positions(tournament_id, round_no, number, len(players))}
            places = [change.places[seat_of[i]] for i in range(len(players))]
            scores = [change.scores[seat_of[i]] if change.scores else 0 for i in range(len(players))]
            recorded = await self.store.record_result(change.game_id, places, scores, change.at_ms or _now_ms())
        else:
            recorded = await self.store.record_result(change.game_id, None, None, change.at_ms or _now_ms())
        if recorded is not None:
            metrics.RESULTS_RECORDED.labels("finished" if change.status == "finished" else "aborted").inc()
        await self.advance(tournament_id, result_recorded=recorded is not None)
        return True

    async def _withdraw_the_departed(self, tournament_id: str, game_id: str, players: list[str | None]) -> None:
        """A player whose seat in the game was abandoned (it stopped playing: its clock ran out turn after turn, or
        it left the game idle; the zombie bot played the seat out) is withdrawn, before the next round is paired or
        the arena seats again: a disconnected player gets no further table, as one who withdrew. Done again if the
        entry is retried (a withdrawal is idempotent); a game the service no longer knows withdraws nobody."""
        summaries = await self.gamestate.admin(self.secret).game_summaries([game_id])
        seated = {p for p in players if p is not None}
        for summary in summaries:
            for seat in summary.seats:
                player = summary.seat_players.get(seat["seat"])
                if seat["status"] == "abandoned" and player in seated and await self.store.withdraw(
                        tournament_id, player, _now_ms()):
                    log.info("tournament %s: player %s withdrawn (abandoned its seat in %s)", tournament_id, player,
                             game_id)

    async def tick(self) -> int:
        """Every due event moved on (started, a missed round paired, tables without a game created); how many."""
        due = await self.store.due(_now_ms())
        for tournament_id in due:
            await self.advance(tournament_id)
        return len(due)

    async def advance(self, tournament_id: str, result_recorded: bool = False) -> None:
        """Pair the next round if it is due, create the games of tables without one, tell the feed
        (`result_recorded`: this call follows a result this director recorded)."""
        event = await self.store.get(tournament_id)
        if event is not None and event.kind == "arena":
            return await self.advance_arena(event, result_recorded)
        if event is None or event.kind != "swiss":
            return
        pairing = await self.store.pair_next(tournament_id, _now_ms())
        games = await self.start_tables(event)
        if pairing is not None:
            metrics.ROUNDS_PAIRED.inc()
            state = await self.store.swiss(tournament_id)
            await self._feed(event, "pairing", feed.pairing_json(pairing, games))
            await self._feed(event, "standings", {"round": pairing.round - 1,
                                                  "standings": feed.standings_json(state.tally.ranked())})
        elif await self.store.finish(tournament_id):
            metrics.EVENTS_FINISHED.inc()
            state = await self.store.swiss(tournament_id)
            await self._feed(event, "end", {"rounds": state.round,
                                            "standings": feed.standings_json(state.tally.ranked())})

    async def advance_arena(self, event: Event, result_recorded: bool = False) -> None:
        """Seat the arena's waiting players, create the games of tables without one (not after the window), tell
        the feed; after the window, finish the event once its last game has ended. An arena's standings change
        with every result, not with every seating: a result that seats nobody (no one else waiting, or after the
        window) still puts the standings on the feed, once (by the director that recorded it)."""
        now = _now_ms()
        seated = await self.store.seat_arena(event.tournament_id, now)
        games = await self.start_tables(event) if now < event.settings["ends_ms"] else {}
        if seated:
            state = await self.store.arena(event.tournament_id)
            await self._feed(event, "pairing", feed.pairing_json(Pairing(ARENA_ROUND, tuple(seated), ()), games))
            await self._feed(event, "standings", {"round": ARENA_ROUND,
                                                  "standings": feed.standings_json(state.standings())})
        elif await self.store.finish(event.tournament_id, now):
            state = await self.store.arena(event.tournament_id)
            await self._feed(event, "end", {"rounds": ARENA_ROUND, "standings": feed.standings_json(state.standings())})
        elif result_recorded:
            state = await self.store.arena(event.tournament_id)
            await self._feed(event, "standings", {"round": ARENA_ROUND,
                                                  "standings": feed.standings_json(state.standings())})

    async def _feed(self, event: Event, kind: str, data: dict[str, Any]) -> None:
        await feed.publish(self.accounts, self.account_keys.prefix, event.tournament_id, kind,
                           {"tournament_id": event.tournament_id, **data})

    async def start_tables(self, event: Event) -> dict[int, str]:
        """Create the games of the event's tables that have none (table number -> game id of those created)."""
        unstarted = await self.store.unstarted(event.tournament_id)
        leased = []
        for round_no, number, players in unstarted:
            lease = self.account_keys.prefix + f"tournament:{{{event.tournament_id}}}:lease:{round_no}:{number}"
            if await self.accounts.set(lease, self.name, nx=True, px=TABLE_LEASE_MS):
                leased.append((round_no, number, players, lease))
        created: dict[int, str] = {}
        for start in range(0, len(leased), MAX_BATCH):
            created |= await self._create(event, leased[start:start + MAX_BATCH])
        return created

    async def _create(self, event: Event, tables: list[tuple[int, int, list[str | None], str]]) -> dict[int, str]:
        seatings = [_seating(event.tournament_id, round_no, number, players) for round_no, number, players, _ in
                    tables]
        specs = [NewGame(event.game, len(players), options=event.options or None,
                         bots={seat: self.bot_level for seat, p in seating.items() if p is None} or None,
                         time_control=event.time_control, rated=event.rated,
                         seat_players={seat: p for seat, p in seating.items() if p is not None})
                 for (_r, _n, players, _l), seating in zip(tables, seatings)]
        try:
            results = await self.gamestate.admin(self.secret).create_games(specs)
        except GameServiceError as exc:  # none created: the leases lapse and a later pass tries again
            metrics.CREATION_FAILURES.labels("call").inc(len(specs))
            log.warning("tournament %s: %d games not created: %s", event.tournament_id, len(specs), exc.reason)
            return {}
        made = []
        for (round_no, number, _players, lease), seating, result in zip(tables, seatings, results):
            if isinstance(result, GameServiceError):
                metrics.CREATION_FAILURES.labels("game").inc()
                log.warning("tournament %s round %d table %d: game not created: %s", event.tournament_id,
                            round_no, number, result.reason)
                await self.accounts.delete(lease)
                continue
            made.append((round_no, number, seating, result))
        # seated and registered before the table records its game: a game id read from the record (a withdrawal's
        # resignation, a client's standings) is always one the players' accounts hold
        await self.ratings.register_games([(result.game_id, event.game, {
            seat: f"player:{p}" if p is not None else f"bot:{self.bot_level}" for seat, p in seating.items()})
            for _r, _n, seating, result in made if event.rated])
        await self._seat(event, [(result.game_id, {seat: p for seat, p in seating.items() if p is not None},
                                  {s.seat: s.token for s in result.seats}, round_no, number)
                                 for round_no, number, seating, result in made])
        created: dict[int, str] = {}
        recorded = []
        for round_no, number, seating, result in made:
            if not await self.store.set_game(event.tournament_id, round_no, number, result.game_id):
                log.error("tournament %s round %d table %d had a game already; %s is aborted",
                          event.tournament_id, round_no, number, result.game_id)
                await self._abort_unused(result)
                continue
            created[number] = result.game_id
            metrics.GAMES_CREATED.inc()
            recorded.append((seating, result))
        await self._resign_withdrawn(event, recorded)
        return created

    async def _abort_unused(self, result: Created) -> None:
        """A game made for a table that another director filled meanwhile: aborted (it settles nothing), so its
        seated players are not left with a game that does not count."""
        for seat in result.seats:
            if seat.token is None:      # a bot's seat
                continue
            try:
                await self.gamestate.abort(result.game_id, seat.token)
                return
            except GameServiceError as exc:
                log.warning("unused game %s not aborted by seat %d: %s", result.game_id, seat.seat, exc.reason)

    async def _resign_withdrawn(self, event: Event, recorded: list[tuple[dict[int, str | None], Created]]) -> None:
        """The seats of players who withdrew while their table's game was being made: resigned here, since the
        withdrawal's own resignation (services/gateway/domain/tournament_entry.py) did not see that game yet."""
        if not recorded:
            return
        withdrawn = await self.store.withdrawn(event.tournament_id)
        for seating, result in recorded:
            token = {s.seat: s.token for s in result.seats}
            for seat, player in seating.items():
                if player is None or player not in withdrawn:
                    continue
                try:
                    await self.gamestate.resign(result.game_id, token[seat])
                except GameServiceError as exc:
                    log.warning("tournament %s: withdrawn player's seat %d of %s not resigned: %s",
                                event.tournament_id, seat, result.game_id, exc.reason)

    async def _seat(self, event: Event, seated: list[tuple[str, dict[int, str], dict[int, str], int, int]]) -> None:
        """The accounts seated in their games (their API keys act for the seats) and told by `game_start`."""
        if not seated:
            return
        tx = SlotTransactions(self.accounts)
        for game_id, humans, tokens, round_no, number in seated:
            register_on(tx, self.account_keys, self.events_keep_s, game_id, event.game, humans, tokens, self.secret)
            for seat, player in humans.items():
                self._announce_events.add_to(tx.on(self.account_keys.account_tag(player)), player, "game_start", {
                    "game_id": game_id, "game": event.game, "seat": seat, "token": None, "token_delivered": False,
                    "tournament_id": event.tournament_id, "round": round_no, "table": number,
                    "note": "play with your API key (it acts for this seat); a seat token, if you want one, is "
                            "handed out by POST /v1/games/{id}/token"})
        await tx.execute()

    async def expire_challenges(self) -> int:
        """Challenges are the outcomes consumer's; the director's periodic duty is `tick`."""
        return 0


def _seating_positions(tournament_id: str, round_no: int, number: int, width: int) -> list[tuple[int, int]]:
    """(game seat, position in the table's players) in an order drawn per table from its key: the same on every
    retry and when its result is read back."""
    seats = list(range(width))
    random.Random(f"{tournament_id}:{round_no}:{number}").shuffle(seats)
    return list(zip(seats, range(width)))


def _seating(tournament_id: str, round_no: int, number: int, players: list[str | None]) -> dict[int, str | None]:
    """Game seat -> player (None: a bot) of a table."""
    return {seat: players[i] for seat, i in _seating_positions(tournament_id, round_no, number, len(players))}


def _now_ms() -> int:
    return int(time.time() * 1000)


async def record_lag(director: Director) -> tuple[int, float]:
    """The group's lag (entries behind, age of the oldest) measured from Redis and set on its gauges."""
    behind, age = await director.measure_lag()
    metrics.BEHIND.labels(group=director.group).set(behind)
    metrics.OLDEST_AGE.labels(group=director.group).set(age)
    return behind, age


async def run(director: Director, stop: asyncio.Event, *, idle_poll_s: float = 0.1, claim_every_s: float = 5.0,
              tick_every_s: float = 1.0, lag_every_s: float = 5.0) -> None:
    """Read, do and acknowledge until `stop`; stale entries claimed every `claim_every_s`, due events moved on
    every `tick_every_s`, the group's lag measured every `lag_every_s` (metrics.py). A storage or service failure
    is logged and the loop goes on."""
    await director.ensure_group()
    last_claim = last_tick = last_lag = 0.0
    while not stop.is_set():
        done = 0
        started = time.perf_counter()
        try:
            now = time.monotonic()
            entries: list[tuple[str, str, dict]] = []
            if now - last_claim >= claim_every_s:
                last_claim = now
                entries += await director.claim_stale()
            entries += await director.read_new()
            done = await director.handle(entries) if entries else 0
            ticked = now - last_tick >= tick_every_s
            if ticked:
                last_tick = now
                await director.tick()
            if now - last_lag >= lag_every_s:
                last_lag = now
                await record_lag(director)
            if entries or ticked:
                metrics.PASS_SECONDS.observe(time.perf_counter() - started)
            if ticked:  # a pass that moved every due event on: idle reads alone do not count as advancing
                metrics.LAST_PASS.set(time.time())
            metrics.PASSES.labels("done").inc()
        except Exception:
            metrics.PASSES.labels("failed").inc()
            log.warning("tournament director pass failed", exc_info=True)
        if not done:
            await rest(stop, idle_poll_s)
