"""The SDK cannot drift from the published contract: every model has the fields of its OpenAPI schema, and
every public operation of /openapi.json has a method in both clients."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from skyboard_client import AsyncClient, Client
from skyboard_client import models as m
from skyboard_client._core import OPERATIONS

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from tests.service_secret import SERVICE_SECRET

MODELS = {
    "Catalog": m.Catalog, "CatalogGame": m.CatalogGame, "PlayerCreated": m.PlayerCreated, "RatingOut": m.Rating,
    "PlayerOut": m.Player, "Me": m.Me, "KeyRotated": m.KeyRotated, "KeysRevoked": m.KeysRevoked, "Seat": m.Seat,
    "CreatedGame": m.CreatedGame,
    "SeatOut": m.SeatInfo, "GameOut": m.Game, "LegalActions": m.LegalActions, "Submitted": m.Submitted,
    "Version": m.Version, "NewToken": m.NewToken, "GameLog": m.GameLog, "TicketCreated": m.TicketCreated,
    "TicketOut": m.Ticket, "ChallengeOut": m.Challenge, "ChallengeCreated": m.ChallengeCreated,
    "ChallengeAccepted": m.ChallengeAccepted, "MyGame": m.MyGame, "LeaderboardEntry": m.LeaderboardEntry,
    "Leaderboard": m.Leaderboard, "HistoryGame": m.HistoryGame, "History": m.History,
    "GameSummaryOut": m.GameSummary, "AccountChallengeEvent": m.ChallengeEvent,
    "AccountChallengeClosedEvent": m.ChallengeClosedEvent, "AccountGameStartEvent": m.GameStartEvent,
    "AccountYourTurnEvent": m.YourTurnEvent, "AccountGameEndEvent": m.GameEndEvent,
    "AccountWebhookDisabledEvent": m.WebhookDisabledEvent, "WebhookOut": m.Webhook, "WebhookCreated": m.WebhookCreated,
    "WebhookDeleted": m.WebhookDeleted, "SecretRotated": m.SecretRotated, "Delivery": m.WebhookDelivery,
    "WebhookDisabled": m.WebhookDisabled, "Redelivery": m.Redelivery,
    "AccountDeleted": m.AccountDeleted, "ResignedSeat": m.ResignedSeat,
    "TournamentOut": m.Tournament, "TournamentCreated": m.TournamentCreated, "TableOut": m.TournamentTable,
    "RoundOut": m.TournamentRound, "StandingOut": m.Standing, "TournamentStandings": m.Standings,
    "Entry": m.TournamentEntry,
}



@pytest.fixture(scope="module")
def openapi() -> dict:
    # only the document is read: the SQL URL is never connected to
    settings = GatewaySettings(service_secret=SERVICE_SECRET, metrics_port=0, archive_url="sqlite+aiosqlite:///:memory:")
    return create_app(settings).openapi()


@pytest.mark.parametrize("schema", sorted(MODELS))
def test_each_model_has_the_fields_of_its_schema(openapi: dict, schema: str) -> None:
    published = openapi["components"]["schemas"][schema]
    if "discriminator" in published:  # one variant per title (GameOut): the same fields in each
        variants = [openapi["components"]["schemas"][r.rsplit("/", 1)[1]] for r in published["discriminator"]
                    ["mapping"].values()]
        assert all(v["properties"].keys() == variants[0]["properties"].keys() for v in variants), schema
        published = variants[0]
    model = MODELS[schema]
    assert set(model.model_fields) == set(published["properties"]), schema
    required = {name for name, f in model.model_fields.items() if f.is_required()}
    assert required <= set(published.get("required", [])), f"{schema}: the SDK requires what the server may omit"


def kinds(schema: dict[str, Any]) -> frozenset[str]:
    """The JSON types a schema admits ("object" for a $ref: every referenced schema here is an object; "any")."""
    if "$ref" in schema:
        return frozenset({"object"})
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return frozenset().union(*(kinds(s) for s in schema[key]))
    if "type" in schema:
        return frozenset([schema["type"]] if isinstance(schema["type"], str) else schema["type"])
    values = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if values is not None:
        return frozenset("string" if isinstance(v, str) else "null" if v is None else "integer" for v in values)
    return frozenset({"any"})


@pytest.mark.parametrize("schema", sorted(MODELS))
def test_each_model_field_has_the_json_types_of_its_schema(openapi: dict, schema: str) -> None:
    """Field for field, the SDK's pydantic model admits what the published schema does; only an optional field
    the server may omit may also be None in the SDK (None: absent)."""
    published = openapi["components"]["schemas"][schema]
    if "discriminator" in published:  # one variant per title (GameOut): the same fields in each
        published = openapi["components"]["schemas"][next(iter(published["discriminator"]["mapping"].values()))
                                                      .rsplit("/", 1)[1]]
    model = MODELS[schema]
    mine = model.model_json_schema()["properties"]
    for field, prop in published["properties"].items():
        theirs, ours = kinds(prop), kinds(mine[field])
        optional = field not in published.get("required", []) and model.model_fields[field].default is None
        assert ours == theirs or (optional and ours == theirs | {"null"}), (schema, field, theirs, ours)


def test_a_model_with_a_wrong_field_type_would_fail() -> None:
    assert kinds({"anyOf": [{"type": "integer"}, {"type": "null"}]}) != kinds(m.Version.model_json_schema()
                                                                             ["properties"]["version"])


def test_every_account_event_type_has_a_typed_payload(openapi: dict) -> None:
    published = openapi["components"]["schemas"]["AccountStreamFrame"]["discriminator"]["mapping"]
    assert set(published) - {"error"} == set(m.ACCOUNT_PAYLOADS)
    for kind, cls in m.ACCOUNT_PAYLOADS.items():
        event = m.AccountEvent(type=kind, id="1-0", data={})
        with pytest.raises(ValueError):  # a payload without its required fields is refused, not passed through
            _ = event.payload
        assert MODELS[f"Account{''.join(p.capitalize() for p in kind.split('_'))}Event"] is cls


def test_every_public_operation_has_a_method_in_both_clients(openapi: dict) -> None:
    published = {(method, path) for path, item in openapi["paths"].items()
                 if path.startswith("/v1/") for method in item}  # not the probes, nor the web client's helpers
    assert published == set(OPERATIONS)
    for name in OPERATIONS.values():
        sync, coro = getattr(Client, name), getattr(AsyncClient, name)
        assert inspect.signature(sync).parameters.keys() == inspect.signature(coro).parameters.keys(), name
        assert inspect.iscoroutinefunction(coro) or name in ("events", "account_events", "tournament_events"), name
