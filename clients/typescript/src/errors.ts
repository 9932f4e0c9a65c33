/**
 * Typed errors mirroring the API's error body `{"error": {"code", "message", "rule", "current_version"}}`, so a
 * bot branches on a class (`StaleVersion`, `IllegalAction`) instead of parsing messages. Same classes and
 * codes as the Python SDK's `skyboard_client.errors`.
 */

export interface ErrorDetail {
  code: string;
  message: string;
  rule?: string | null;
  current_version?: number | null;
}

/** A refused request (nothing was changed) or a stream that failed; `status` is 0 for a stream's `error` event. */
export class SkyboardError extends Error {
  readonly status: number;
  readonly code: string;
  readonly rule: string | null;
  readonly currentVersion: number | null;
  /** Seconds the server asked to wait (429 and 503). */
  readonly retryAfter: number | null;
  readonly body: unknown;

  constructor(status: number, detail: ErrorDetail, retryAfter: number | null = null, body: unknown = null) {
    super(status ? `${status} ${detail.code}: ${detail.message}` : `${detail.code}: ${detail.message}`);
    this.name = new.target.name;
    this.status = status;
    this.code = detail.code;
    this.rule = detail.rule ?? null;
    this.currentVersion = detail.current_version ?? null;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

/** 401: a missing, unknown, revoked or expired API key or seat token. */
export class Unauthenticated extends SkyboardError {}
/** 403: a credential of someone else. */
export class Forbidden extends SkyboardError {}
/** 404: no such game, player, ticket or challenge. */
export class NotFound extends SkyboardError {}
/** 409: what the thing is now forbids the call. */
export class Conflict extends SkyboardError {}
/** 409 `stale_version`: read the game at `currentVersion`. */
export class StaleVersion extends Conflict {}
/** 409 `game_over`: the game has ended. */
export class GameOver extends Conflict {}
/** 422: a body or parameter that does not validate. */
export class InvalidRequest extends SkyboardError {}
/** 422 for an action the rules refuse now; `rule` names the rule. */
export class IllegalAction extends InvalidRequest {}
/** 429 `rate_limited`, still so after the retry policy's attempts. */
export class RateLimited extends SkyboardError {}
/** 429 `quota_exceeded` (or `too_many_accounts`, `too_many_challenges`): never retried. */
export class QuotaExceeded extends SkyboardError {}
/** 503, still so after the retry policy's attempts. */
export class Unavailable extends SkyboardError {}
/** A stream that could not be resumed within the retry policy. */
export class StreamClosed extends SkyboardError {}

type ErrorClass = new (status: number, detail: ErrorDetail, retryAfter?: number | null, body?: unknown) => SkyboardError;

const BY_CODE: Record<string, ErrorClass> = {
  stale_version: StaleVersion, game_over: GameOver, quota_exceeded: QuotaExceeded,
  too_many_accounts: QuotaExceeded, too_many_challenges: QuotaExceeded, rate_limited: RateLimited,
};
const BY_STATUS: Record<number, ErrorClass> = {
  401: Unauthenticated, 403: Forbidden, 404: NotFound, 409: Conflict, 422: InvalidRequest, 429: RateLimited,
  503: Unavailable,
};
const STATUS_OF_CODE: Record<string, number> = {
  unauthenticated: 401, forbidden: 403, not_found: 404, unavailable: 503, invalid_request: 422,
};

function detailOf(body: unknown): ErrorDetail | null {
  if (typeof body !== "object" || body === null || !("error" in body)) return null;
  const detail = (body as { error: unknown }).error;
  if (typeof detail !== "object" || detail === null) return null;
  const d = detail as Record<string, unknown>;
  return {
    code: typeof d.code === "string" && d.code ? d.code : "error",
    message: typeof d.message === "string" ? d.message : "",
    rule: typeof d.rule === "string" ? d.rule : null,
    current_version: typeof d.current_version === "number" ? d.current_version : null,
  };
}

/** The typed error of an error answer (`{"error": {...}}`), or a generic one for any other body. */
export function errorFromBody(status: number, body: unknown, retryAfter: number | null = null): SkyboardError {
  const detail = detailOf(body);
  if (detail === null) {
    return new SkyboardError(status, { code: "error", message: JSON.stringify(body).slice(0, 500) }, retryAfter, body);
  }
  let cls = BY_CODE[detail.code] ?? BY_STATUS[status] ?? SkyboardError;
  if (cls === InvalidRequest && (detail.code === "illegal_action" || detail.rule)) cls = IllegalAction;
  return new cls(status, detail, retryAfter, body);
}

/** The typed error of a stream's `error` event (its data is the error body). */
export function errorFromEvent(data: unknown): SkyboardError {
  const code = detailOf(data)?.code ?? "";
  return errorFromBody(STATUS_OF_CODE[code] ?? 0, data);
}
