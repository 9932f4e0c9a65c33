/**
 * A thin client of the Skyboard REST API: one method per operation, typed by the generated `schema.ts`.
 *
 * What it adds to `fetch`: the credential each call takes, typed errors, waiting out `Retry-After` on a 429
 * `rate_limited` or a 503, an `Idempotency-Key` on every submission (so a retry after a lost connection replays
 * the first outcome instead of moving twice), and streams that resume with `Last-Event-ID` after a drop.
 */
import { errorFromBody, errorFromEvent, SkyboardError, StreamClosed } from "./errors.js";
import { readSse } from "./sse.js";
import type * as T from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8000";

/** When a refused or failed call is tried again (the same policy as the Python SDK's `RetryPolicy`). */
export interface RetryPolicy {
  /** Tries in all. */
  attempts: number;
  /** First back-off in ms when the server sent no `Retry-After` (doubling each try). */
  backoffMs: number;
  /** A wait longer than this is not made: the error is thrown at once. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, backoffMs: 500, maxWaitMs: 60_000 };

export interface ClientOptions {
  baseUrl?: string | undefined;
  /** The account's API key (`sbk_...`), sent where an operation takes one. */
  apiKey?: string | undefined;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

interface Call {
  method: "GET" | "POST" | "DELETE";
  path: string;
  bearer?: string | undefined;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** May be sent again after a connection failure (reads, and submissions with their idempotency key). */
  safe?: boolean;
}

/** `Retry-After` in ms (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterMs(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, when - Date.now());
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });

export class SkyboardClient {
  readonly baseUrl: string;
  apiKey: string | undefined;
  readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_URL).replace(/\/$/, "");
    this.apiKey = options.apiKey;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The wait before try `attempt + 1` (from 0), or null to give up. */
  delayMs(attempt: number, retryAfter: number | null): number | null {
    if (attempt + 1 >= this.retry.attempts) return null;
    const wait = retryAfter !== null
      ? retryAfter + Math.random() * Math.min(100, retryAfter / 10 + 10) // never earlier than asked
      : this.retry.backoffMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
    return wait > this.retry.maxWaitMs ? null : wait;
  }

  private url(path: string, query?: Record<string, string | number | undefined>): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  private headers(bearer: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
    return { accept: "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...extra };
  }

  private key(): string {
    if (!this.apiKey) throw new SkyboardError(401, { code: "unauthenticated", message: "this call needs an API key" });
    return this.apiKey;
  }

  private async request<R>(call: Call): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetchImpl(this.url(call.path, call.query), {
          method: call.method,
          headers: this.headers(call.bearer, {
            ...(call.body !== undefined ? { "content-type": "application/json" } : {}), ...call.headers,
          }),
          ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        });
      } catch (failure) {
        const wait = call.safe ? this.delayMs(attempt, null) : null;
        if (wait === null) throw failure;
        await sleep(wait);
        continue;
      }
      const text = await response.text();
      const body: unknown = text ? JSON.parse(text) : null;
      if (response.ok) return body as R; // the generated types describe the documented answer
      const error = errorFromBody(response.status, body, retryAfterMs(response.headers.get("retry-after")));
      const retriable = error.status === 503 || (error.status === 429 && error.code === "rate_limited");
      const wait = retriable ? this.delayMs(attempt, error.retryAfter === null ? null : error.retryAfter) : null;
      if (wait === null) throw error;
      await sleep(wait);
    }
  }

  // ------------------------------------------------------------------------------------ accounts and catalog

  catalog(): Promise<T.Catalog> {
    return this.request({ method: "GET", path: "/v1/catalog", safe: true });
  }

  /** A new account; its API key becomes this client's. */
  async createPlayer(body: T.NewPlayer): Promise<T.PlayerCreated> {
    const created = await this.request<T.PlayerCreated>({ method: "POST", path: "/v1/players", body });
    this.apiKey = created.api_key;
    return created;
  }

  me(): Promise<T.Me> {
    return this.request({ method: "GET", path: "/v1/players/me", bearer: this.key(), safe: true });
  }

  player(playerId: string): Promise<T.Player> {
    return this.request({ method: "GET", path: `/v1/players/${encodeURIComponent(playerId)}`, safe: true });
  }

  history(playerId: string, query: { game?: string; status?: string; cursor?: string; limit?: number } = {}):
  Promise<T.History> {
    return this.request({ method: "GET", path: `/v1/players/${encodeURIComponent(playerId)}/games`, query, safe: true });
  }

  /** A new API key (this client's from now on); the old one works for its grace period. */
  async rotateKey(): Promise<T.KeyRotated> {
    const rotated = await this.request<T.KeyRotated>({ method: "POST", path: "/v1/players/me/keys", bearer: this.key() });
    this.apiKey = rotated.api_key;
    return rotated;
  }

  revokeOtherKeys(): Promise<T.KeysRevoked> {
    return this.request({ method: "POST", path: "/v1/players/me/keys/revoke-others", bearer: this.key() });
  }

  /**
   * Delete the account (this client's key must be its current one; `confirmName`: the account's name). Every key of it
   * stops, its streams end, its seats in active games are resigned. It cannot be undone.
   */
  async deleteAccount(confirmName: string): Promise<T.AccountDeleted> {
    const deleted = await this.request<T.AccountDeleted>({
      method: "DELETE", path: "/v1/players/me", bearer: this.key(), body: { confirm_name: confirmName } });
    this.apiKey = undefined;
    return deleted;
  }

  /**
   * Register an HTTPS endpoint for `events` (your_turn, game_end, challenge, match_found). The answer's `secret` is
   * shown only here: verify each delivery with it (`verifyWebhook`).
   */
  createWebhook(body: T.NewWebhook): Promise<T.WebhookCreated> {
    return this.request({ method: "POST", path: "/v1/players/me/webhooks", bearer: this.key(), body });
  }

  /** The account's webhooks (never their secrets). */
  async webhooks(): Promise<T.Webhook[]> {
    const list = await this.request<T.WebhookList>({ method: "GET", path: "/v1/players/me/webhooks", bearer: this.key() });
    return list.webhooks;
  }

  webhook(webhookId: string): Promise<T.Webhook> {
    return this.request({ method: "GET", path: webhookPath(webhookId), bearer: this.key() });
  }

  /** Delete a webhook, with its queued deliveries and its log. */
  deleteWebhook(webhookId: string): Promise<T.WebhookDeleted> {
    return this.request({ method: "DELETE", path: webhookPath(webhookId), bearer: this.key() });
  }

  /** A new signing secret (shown only here); the previous one also signs for `previous_secret_valid_s`. */
  rotateWebhookSecret(webhookId: string): Promise<T.SecretRotated> {
    return this.request({ method: "POST", path: `${webhookPath(webhookId)}/rotate-secret`, bearer: this.key() });
  }

  /** Enable a webhook that was disabled because its deliveries kept failing. */
  enableWebhook(webhookId: string): Promise<T.Webhook> {
    return this.request({ method: "POST", path: `${webhookPath(webhookId)}/enable`, bearer: this.key() });
  }

  /** The webhook's last 100 delivery attempts, newest first. */
  async webhookDeliveries(webhookId: string): Promise<T.WebhookDelivery[]> {
    const log = await this.request<T.DeliveryLog>({
      method: "GET", path: `${webhookPath(webhookId)}/deliveries`, bearer: this.key() });
    return log.deliveries;
  }

  /** Deliver a logged event again (the same `webhook-id`). */
  redeliver(webhookId: string, deliveryId: string): Promise<T.Redelivery> {
    return this.request({
      method: "POST", path: `${webhookPath(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
      bearer: this.key() });
  }

  /** A page of my games: those I play first, newest first, then those ended in the last day (`next_cursor` pages on). */
  myGames(query: { cursor?: string; limit?: number } = {}): Promise<T.MyGames> {
    return this.request({ method: "GET", path: "/v1/players/me/games", query, bearer: this.key(), safe: true });
  }

  leaderboard(game: string, query: { limit?: number; offset?: number } = {}): Promise<T.Leaderboard> {
    return this.request({ method: "GET", path: `/v1/leaderboard/${encodeURIComponent(game)}`, query, safe: true });
  }

  // ------------------------------------------------------------------------------------------------- games

  createGame(body: T.CreateGame): Promise<T.CreatedGame> {
    return this.request({ method: "POST", path: "/v1/games", bearer: this.key(), body });
  }

  games(query: { status?: string; game?: string; limit?: number } = {}): Promise<T.GameList> {
    return this.request({ method: "GET", path: "/v1/games", query, safe: true });
  }

  /**
   * The game, with the view of the seat whose token is given (a spectator's without one; with `account`, the view
   * of the API key's seat, `seat` choosing where the account holds several).
   */
  game(gameId: string, token?: string, options: { account?: boolean; seat?: number } = {}): Promise<T.Game> {
    const bearer = token ?? (options.account ? this.key() : undefined);
    return this.request({ method: "GET", path: gamePath(gameId), bearer, query: { seat: options.seat }, safe: true });
  }

  /**
   * The seat calls take a seat token, or `undefined`: this client's API key, which acts for its account's seat in
   * the game (`seat` chooses where the account holds several, a hot-seat game).
   */
  legalActions(gameId: string, token?: string, seat?: number): Promise<T.LegalActions> {
    return this.request({ method: "GET", path: `${gamePath(gameId)}/actions`, bearer: token ?? this.key(),
      query: { seat }, safe: true });
  }

  /**
   * Play `action` at `expectedVersion`. One `Idempotency-Key` (given, or made here) covers every retry, so a
   * submission retried after a lost answer is applied once: the retry answers `replayed: true`.
   */
  submit(gameId: string, token: string | undefined, action: T.Action, expectedVersion: number,
    idempotencyKey?: string, seat?: number): Promise<T.Submitted> {
    const key = idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
    return this.request({
      method: "POST", path: `${gamePath(gameId)}/actions`, bearer: token ?? this.key(), safe: true,
      body: { action, expected_version: expectedVersion }, headers: { "idempotency-key": key }, query: { seat },
    });
  }

  /**
   * Take back the seat's last decision, when the game's view says `take_back: true`: the game goes back to the state
   * before it, as a new version. Keyed like `submit`, so a retried take-back is applied once.
   */
  takeBack(gameId: string, token: string | undefined, expectedVersion: number, idempotencyKey?: string,
    seat?: number): Promise<T.Submitted> {
    const key = idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
    return this.request({
      method: "POST", path: `${gamePath(gameId)}/take-back`, bearer: token ?? this.key(), safe: true,
      body: { expected_version: expectedVersion }, headers: { "idempotency-key": key }, query: { seat },
    });
  }

  resign(gameId: string, token?: string, seat?: number): Promise<T.Version> {
    return this.request({ method: "POST", path: `${gamePath(gameId)}/resign`, bearer: token ?? this.key(),
      query: { seat } });
  }

  abort(gameId: string, token?: string, seat?: number): Promise<T.Version> {
    return this.request({ method: "POST", path: `${gamePath(gameId)}/abort`, bearer: token ?? this.key(),
      query: { seat } });
  }

  rotateToken(gameId: string, token?: string, seat?: number): Promise<T.NewToken> {
    return this.request({ method: "POST", path: `${gamePath(gameId)}/token`, bearer: token ?? this.key(),
      query: { seat } });
  }

  log(gameId: string): Promise<T.GameLog> {
    return this.request({ method: "GET", path: `${gamePath(gameId)}/log`, safe: true });
  }

  // ------------------------------------------------------------------------------ matchmaking and challenges

  seek(body: T.NewTicket): Promise<T.TicketCreated> {
    return this.request({ method: "POST", path: "/v1/matchmaking/tickets", bearer: this.key(), body });
  }

  pollTicket(ticketId: string): Promise<T.Ticket> {
    return this.request({ method: "GET", path: ticketPath(ticketId), bearer: this.key(), safe: true });
  }

  cancelTicket(ticketId: string): Promise<T.Ticket> {
    return this.request({ method: "DELETE", path: ticketPath(ticketId), bearer: this.key() });
  }

  challenge(body: T.NewChallenge): Promise<T.ChallengeCreated> {
    return this.request({ method: "POST", path: "/v1/challenges", bearer: this.key(), body });
  }

  challenges(query: { status?: string } = {}): Promise<T.ChallengeList> {
    return this.request({ method: "GET", path: "/v1/challenges", bearer: this.key(), query, safe: true });
  }

  getChallenge(challengeId: string): Promise<T.Challenge> {
    return this.request({ method: "GET", path: challengePath(challengeId), bearer: this.key(), safe: true });
  }

  accept(challengeId: string): Promise<T.ChallengeAccepted> {
    return this.request({ method: "POST", path: `${challengePath(challengeId)}/accept`, bearer: this.key() });
  }

  /** Decline a challenge sent to me; `reason` (default `generic`) reaches the challenger. */
  decline(challengeId: string, reason?: T.Decline["reason"]): Promise<T.Challenge> {
    return this.request({ method: "POST", path: `${challengePath(challengeId)}/decline`, bearer: this.key(),
      ...(reason === undefined ? {} : { body: { reason } }) });
  }

  cancelChallenge(challengeId: string): Promise<T.Challenge> {
    return this.request({ method: "DELETE", path: challengePath(challengeId), bearer: this.key() });
  }

  // ------------------------------------------------------------------------------------------- tournaments

  /** Organise a Swiss tournament or an arena (`kind: "arena"`, `ends_at`; you are its organiser). */
  createTournament(body: T.NewTournament): Promise<T.TournamentCreated> {
    return this.request({ method: "POST", path: "/v1/tournaments", bearer: this.key(), body });
  }

  tournaments(query: { status?: string; limit?: number } = {}): Promise<T.TournamentList> {
    return this.request({ method: "GET", path: "/v1/tournaments", query, safe: true });
  }

  tournament(tournamentId: string): Promise<T.Tournament> {
    return this.request({ method: "GET", path: tournamentPath(tournamentId), safe: true });
  }

  /** The standings, and every round so far with its tables, games and places. */
  standings(tournamentId: string): Promise<T.Standings> {
    return this.request({ method: "GET", path: `${tournamentPath(tournamentId)}/standings`, safe: true });
  }

  /** Enter; each round's game arrives as a `game_start` on the account stream with the `tournament_id`. */
  joinTournament(tournamentId: string): Promise<T.TournamentEntry> {
    return this.request({ method: "POST", path: `${tournamentPath(tournamentId)}/join`, bearer: this.key() });
  }

  /** Withdraw: no further tables; games still running are resigned and played out by the zombie bot. */
  withdrawTournament(tournamentId: string): Promise<T.TournamentEntry> {
    return this.request({ method: "POST", path: `${tournamentPath(tournamentId)}/withdraw`, bearer: this.key() });
  }

  // ----------------------------------------------------------------------------------------------- streams

  /**
   * A game's events from version `after` on (all of them without), to its `end`. After a drop it reconnects
   * with `Last-Event-ID` set to the last version received whole and skips the events of a half-received
   * version that the server sends again. Asked after the last version of an ended game, the server sends that
   * `end` at once and this stops. `account`: as the API key's seat (`seat` choosing one of several).
   */
  async *events(gameId: string, options: { token?: string; after?: number; signal?: AbortSignal; account?: boolean;
    seat?: number } = {}): AsyncGenerator<T.GameStreamEvent> {
    const bearer = options.token ?? (options.account ? this.key() : undefined);
    let done = options.after ?? null;
    let partial = 0;
    for (let attempt = 0; ; ) {
      let skip = partial;
      const resume = done === null ? {} : { "last-event-id": String(done) };
      try {
        const frames = this.stream<T.GameStreamEvent>(`${gamePath(gameId)}/events`, bearer, resume, options.signal,
          { seat: options.seat });
        for await (const frame of frames) {
          attempt = 0;
          if (frame.event === "message") {
            if (skip > 0) { skip--; continue; }
            partial++;
          } else if (frame.event === "state") {
            done = frame.data.version;
            partial = 0;
          }
          yield frame;
          if (frame.event === "end") return;
        }
      } catch (failure) {
        if (!(failure instanceof Dropped) && !isNetworkFailure(failure)) throw failure;
      }
      const wait = this.delayMs(attempt++, null);
      if (wait === null) throw new StreamClosed(0, { code: "stream_closed", message: "the game's stream dropped" });
      await sleep(wait, options.signal);
    }
  }

  /**
   * The account's stream (challenges, game starts, turns, game ends), resuming after `lastEventId` when given and
   * after the last event received on every reconnect. A new stream starts now and first announces every ongoing
   * game (`game_start` with `ongoing` true); `replay` sends the kept history first instead. It runs until `signal`
   * aborts.
   */
  async *accountEvents(options: { lastEventId?: string; signal?: AbortSignal; replay?: boolean } = {}):
  AsyncGenerator<T.AccountStreamEvent> {
    let last = options.lastEventId ?? null;
    for (let attempt = 0; ; ) {
      try {
        const resume = last === null ? {} : { "last-event-id": last };
        for await (const frame of this.stream<T.AccountStreamEvent>("/v1/players/me/events", this.key(), resume,
          options.signal, { replay: options.replay ? "true" : undefined })) {
          attempt = 0;
          if (frame.id) last = frame.id;
          yield frame;
        }
      } catch (failure) {
        if (options.signal?.aborted) return;
        if (!(failure instanceof Dropped) && !isNetworkFailure(failure)) throw failure;
      }
      if (options.signal?.aborted) return;
      const wait = this.delayMs(attempt++, null);
      if (wait === null) throw new StreamClosed(0, { code: "stream_closed", message: "the account stream dropped" });
      await sleep(wait, options.signal).catch(() => undefined);
      if (options.signal?.aborted) return;
    }
  }

  /**
   * A tournament's feed (pairings, standings, the end) from its first kept entry, or after `lastEventId`;
   * resumes after the last event received on every reconnect and ends after the `end` event.
   */
  async *tournamentEvents(tournamentId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}):
  AsyncGenerator<T.TournamentStreamEvent> {
    let last = options.lastEventId ?? null;
    for (let attempt = 0; ; ) {
      try {
        const resume = last === null ? {} : { "last-event-id": last };
        for await (const frame of this.stream<T.TournamentStreamEvent>(`${tournamentPath(tournamentId)}/events`,
          undefined, resume, options.signal)) {
          attempt = 0;
          if (frame.id) last = frame.id;
          yield frame;
          if (frame.event === "end") return;
        }
      } catch (failure) {
        if (options.signal?.aborted) return;
        if (!(failure instanceof Dropped) && !isNetworkFailure(failure)) throw failure;
      }
      if (options.signal?.aborted) return;
      const wait = this.delayMs(attempt++, null);
      if (wait === null) throw new StreamClosed(0, { code: "stream_closed", message: "the tournament feed dropped" });
      await sleep(wait, options.signal).catch(() => undefined);
      if (options.signal?.aborted) return;
    }
  }

  /** One connection of a stream: its frames with JSON data; an `error` frame is thrown as its typed error. */
  private async *stream<F>(path: string, bearer: string | undefined, extra: Record<string, string>,
    signal: AbortSignal | undefined, query?: Record<string, string | number | undefined>): AsyncGenerator<F> {
    const response = await this.fetchImpl(this.url(path, query), {
      headers: { ...this.headers(bearer, extra), accept: "text/event-stream" }, ...(signal ? { signal } : {}),
    });
    if (!response.ok || response.body === null) {
      const text = await response.text();
      const error = errorFromBody(response.status, text ? JSON.parse(text) : null,
        retryAfterMs(response.headers.get("retry-after")));
      if (error.status === 503) throw new Dropped();
      throw error;
    }
    for await (const message of readSse(response.body)) {
      const data: unknown = JSON.parse(message.data);
      if (message.event === "error") {
        const error = errorFromEvent(data);
        if (error.code === "unavailable") throw new Dropped();
        throw error;
      }
      // the frame's shape is the documented one for its event name (`x-sse-events` of the operation)
      yield { event: message.event, id: message.id, data } as F;
    }
    throw new Dropped();
  }
}

/** A stream that ended in a way a reconnect may fix. */
class Dropped extends Error {}

function isNetworkFailure(failure: unknown): boolean {
  return failure instanceof TypeError; // what fetch throws for a refused or reset connection
}

const gamePath = (gameId: string): string => `/v1/games/${encodeURIComponent(gameId)}`;
const ticketPath = (ticketId: string): string => `/v1/matchmaking/tickets/${encodeURIComponent(ticketId)}`;
const challengePath = (id: string): string => `/v1/challenges/${encodeURIComponent(id)}`;
const tournamentPath = (id: string): string => `/v1/tournaments/${encodeURIComponent(id)}`;
const webhookPath = (id: string): string => `/v1/players/me/webhooks/${encodeURIComponent(id)}`;
