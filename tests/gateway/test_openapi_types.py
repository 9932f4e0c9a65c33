"""The typed OpenAPI document: every action type of every engine has a schema (derived from seeded random
games), the legal actions the API returns validate against the published schema, the Bearer schemes are
declared and /docs is served without a CDN."""

from __future__ import annotations

import random

import httpx
import jsonschema_rs
import pytest

import engine
from engine.playout import random_step
from services.gateway.openapi.security import SECURITY
from services.gateway.openapi.types import action_schemas
from tests.gateway.helpers import auth, create

SEEDS = range(4)


def _validator(components: dict, schema: dict):
    return jsonschema_rs.validator_for({**schema, "components": {"schemas": components}})


def _seen_actions(name: str) -> dict[str, dict]:
    """One action JSON per type that seeded random games of `name` offer as legal."""
    game = engine.get(name)
    seen: dict[str, dict] = {}
    for seed in SEEDS:
        for players in sorted({game.min_players, game.max_players}):
            state = game.new(players, seed)
            rng = random.Random(seed)
            steps = 0
            while not state.is_over() and steps < 3000:
                for seat in state.to_act():
                    for action in state.legal_actions(seat):
                        seen.setdefault(action.to_json()["type"], action.to_json())
                random_step(state, rng)
                steps += 1
    return seen


@pytest.mark.parametrize("name", engine.games())
def test_every_action_type_of_every_engine_has_a_schema(name: str) -> None:
    components, _any = action_schemas()
    union = next(s for s in components.values() if s.get("description") == f"{engine.get(name).title} action")
    mapping = union["discriminator"]["mapping"]
    seen = _seen_actions(name)
    assert seen and set(seen) <= set(mapping), set(seen) - set(mapping)
    assert set(mapping) == set(engine.get(name).codec.types)
    validate = _validator(components, union)
    for action in seen.values():
        assert validate.is_valid(action), action
        assert not validate.is_valid({**action, "unexpected": 1})


def test_openapi_declares_typed_actions_bearer_schemes_and_error_bodies(http: httpx.Client) -> None:
    doc = http.get("/openapi.json").json()
    schemes = doc["components"]["securitySchemes"]
    assert schemes["ApiKey"]["scheme"] == schemes["SeatToken"]["scheme"] == "bearer"
    schemas = doc["components"]["schemas"]
    refs = {r["$ref"] for r in schemas["SubmitAction"]["properties"]["action"]["anyOf"]}
    assert refs == {r["$ref"] for r in schemas["LegalActions"]["properties"]["actions"]["items"]["anyOf"]}
    assert {f"#/components/schemas/{n.capitalize()}Action" for n in engine.games()} == refs
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert op["security"] == SECURITY[(method, path)], (method, path)  # each call says its credential
            for status in ("401", "422", "429"):
                body = op["responses"][status]["content"]["application/json"]["schema"]
                assert body == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, status)


def test_docs_are_served_without_a_cdn(http: httpx.Client) -> None:
    page = http.get("/docs")
    assert page.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in page.text
    assert "cdn" not in page.text.lower()
    js = http.get("/docs-assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and len(js.content) > 100_000


@pytest.mark.parametrize("name", engine.games())
def test_legal_actions_from_the_api_validate_against_the_published_schema(http: httpx.Client, name: str) -> None:
    doc = http.get("/openapi.json").json()
    components = doc["components"]["schemas"]
    validate = _validator(components, components["LegalActions"])
    game = engine.get(name)
    made = create(http, name, game.min_players, seed=3)
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    rng = random.Random(3)
    for _ in range(40):
        g = http.get(f"/v1/games/{made['game_id']}").json()
        if g["status"] != "active":
            break
        seat = rng.choice(g["to_act"])
        legal = http.get(f"/v1/games/{made['game_id']}/actions", headers=auth(tokens[seat])).json()
        assert validate.is_valid(legal), legal
        r = http.post(f"/v1/games/{made['game_id']}/actions", headers=auth(tokens[seat]),
                      json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("name", engine.games())
def test_every_view_a_seat_or_a_spectator_gets_matches_its_published_schema(http: httpx.Client, name: str) -> None:
    """The published view of each title (`<Title>View`, from the engine's declaration) takes real views of a seat
    and of a spectator; a field the declaration requires is required in it. (The conformance suite checks views
    strictly against the same schemas: tests/conformance/test_declared_shapes.py.)"""
    components = http.get("/openapi.json").json()["components"]["schemas"]
    schema = components[f"{name.capitalize()}View"]
    assert {"game", "seat", "phase", "to_act"} <= set(schema["required"])
    validate = _validator(components, schema)
    game = engine.get(name)
    for seed in (11, 12):
        state, rng = game.new(game.max_players, seed), random.Random(seed)
        steps = 0
        while not state.is_over() and steps < 400:
            for seat in (0, None):
                view = state.view(seat)
                assert validate.is_valid(view), (seat, list(validate.iter_errors(view))[:3])
            random_step(state, rng)
            steps += 1


def test_game_views_are_typed_in_the_openapi(http: httpx.Client) -> None:
    """GameOut is one variant per title, discriminated by `game`, each naming its title's view."""
    schemas = http.get("/openapi.json").json()["components"]["schemas"]
    mapping = schemas["GameOut"]["discriminator"]["mapping"]
    assert schemas["GameOut"]["discriminator"]["propertyName"] == "game" and set(mapping) == set(engine.games())
    refs = set()
    for name, ref in mapping.items():
        variant = schemas[ref.rsplit("/", 1)[1]]["properties"]
        assert variant["game"]["const"] == name
        refs.add(variant["view"]["$ref"])
    assert refs == {f"#/components/schemas/{n.capitalize()}View" for n in engine.games()}
