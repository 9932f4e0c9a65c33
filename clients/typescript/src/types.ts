/** Short names for the generated schemas (`schema.ts`, from `/openapi.json`): what the client's methods return. */
import type { components } from "./schema.js";

type S = components["schemas"];

export type Catalog = S["Catalog"];
export type PlayerCreated = S["PlayerCreated"];
export type NewPlayer = S["NewPlayer"];
export type Me = S["Me"];
export type Player = S["PlayerOut"];
export type KeyRotated = S["KeyRotated"];
export type KeysRevoked = S["KeysRevoked"];
export type AccountDeleted = S["AccountDeleted"];
export type CreateGame = S["CreateGame"];
export type CreatedGame = S["CreatedGame"];
export type Game = S["GameOut"];
/** What a seat of each title sees (`Game["view"]`; narrow by `game.game`), as its engine declares it. */
export type AeroplanesView = S["AeroplanesView"];
export type BlueskiesView = S["BlueskiesView"];
export type OpenskyView = S["OpenskyView"];
export type View = Game["view"];
export type GameList = S["GameList"];
export type LegalActions = S["LegalActions"];
export type Action = S["LegalActions"]["actions"][number];
export type Submitted = S["Submitted"];
export type Version = S["Version"];
export type NewToken = S["NewToken"];
export type GameLog = S["GameLog"];
export type MyGames = S["MyGames"];
export type History = S["History"];
export type NewTicket = S["NewTicket"];
export type TicketCreated = S["TicketCreated"];
export type Ticket = S["TicketOut"];
export type NewChallenge = S["NewChallenge"];
export type ChallengeCreated = S["ChallengeCreated"];
export type Challenge = S["ChallengeOut"];
export type ChallengeList = S["ChallengeList"];
export type ChallengeAccepted = S["ChallengeAccepted"];
export type Decline = S["Decline"];
export type Leaderboard = S["Leaderboard"];
export type NewTournament = S["NewTournament"];
export type Tournament = S["TournamentOut"];
export type TournamentCreated = S["TournamentCreated"];
export type TournamentList = S["TournamentList"];
export type Standings = S["TournamentStandings"];
export type TournamentEntry = S["Entry"];
export type TournamentStreamEvent = Exclude<S["TournamentStreamFrame"], S["ErrorFrame"]>;
export type GameEvent = S["GameEvent"];
export type GameStreamState = S["GameStreamState"];
/** One event of a game's stream: an engine or platform event (`message`), `state` / `end` closing a version. */
export type GameStreamEvent = Exclude<S["GameStreamFrame"], S["ErrorFrame"]>;
/** One event of the account stream (`event` says which); `id` is what `Last-Event-ID` resumes after. */
export type AccountStreamEvent = Exclude<S["AccountStreamFrame"], S["ErrorFrame"]>;
export type NewWebhook = S["NewWebhook"];
export type Webhook = S["WebhookOut"];
export type WebhookCreated = S["WebhookCreated"];
export type WebhookList = S["WebhookList"];
export type WebhookDeleted = S["WebhookDeleted"];
export type SecretRotated = S["SecretRotated"];
export type WebhookDelivery = S["Delivery"];
export type DeliveryLog = S["DeliveryLog"];
export type Redelivery = S["Redelivery"];
