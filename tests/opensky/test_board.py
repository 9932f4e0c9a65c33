"""Map data: OS-23.3 validity checks at load, and the OS-23.4 design constraints."""

from __future__ import annotations

import copy
import json
from collections import deque

import pytest

from engine.opensky.board import BOARDS, DATA_DIR, Board, BoardError, parse_board


def _raw(name: str) -> dict:
    return json.loads((DATA_DIR / f"{name}.json").read_text())


def _distances(board: Board, start: int) -> list[int]:
    dist = [-1] * len(board.codes)
    dist[start] = 0
    todo = deque([start])
    while todo:
        x = todo.popleft()
        for y, _ in board.adj[x]:
            if dist[y] < 0:
                dist[y] = dist[x] + 1
                todo.append(y)
    return dist


# ---------------------------------------------------------------- OS-23.3 validity checks


@pytest.mark.parametrize("name", ["europe", "north_america"])
def test_OS_23_3_shipped_maps_load(name):
    board = BOARDS[name]
    assert board.name == name
    assert len(board.codes) == len(set(board.codes))


def _broken(name: str, mutate) -> dict:
    raw = copy.deepcopy(_raw(name))
    mutate(raw)
    return raw


def test_OS_23_3_duplicate_code_is_rejected():
    raw = _broken("europe", lambda r: r["airports"].append({**r["airports"][0]}))
    with pytest.raises(BoardError, match="duplicate airport code 'LHR'"):
        parse_board(raw, "x.json", north_america=False)


def test_OS_23_3_route_to_unknown_airport_is_rejected():
    raw = _broken("europe", lambda r: r["routes"].append(["LHR", "XXX"]))
    with pytest.raises(BoardError, match="unknown airport 'XXX'"):
        parse_board(raw, "x.json", north_america=False)


def test_OS_23_3_route_to_itself_is_rejected():
    raw = _broken("europe", lambda r: r["routes"].append(["LHR", "LHR"]))
    with pytest.raises(BoardError, match="joins an airport to itself"):
        parse_board(raw, "x.json", north_america=False)


def test_OS_23_3_duplicate_route_in_either_direction_is_rejected():
    raw = _broken("europe", lambda r: r["routes"].append(["CDG", "LHR"]))
    with pytest.raises(BoardError, match="duplicate route CDG-LHR"):
        parse_board(raw, "x.json", north_america=False)


def test_OS_23_3_airport_with_fewer_than_two_routes_is_rejected():
    def mutate(r):
        r["airports"].append({"code": "XXX", "name": "Nowhere", "lat": 50.0, "lon": 5.0})
        r["routes"].append(["LHR", "XXX"])

    with pytest.raises(BoardError, match="XXX has 1 route"):
        parse_board(_broken("europe", mutate), "x.json", north_america=False)


def test_OS_23_3_disconnected_graph_is_rejected():
    def mutate(r):
        r["airports"] += [
            {"code": "XXA", "name": "A", "lat": 1.0, "lon": 1.0},
            {"code": "XXB", "name": "B", "lat": 1.0, "lon": 1.0},
            {"code": "XXC", "name": "C", "lat": 1.0, "lon": 1.0},
        ]
        r["routes"] += [["XXA", "XXB"], ["XXB", "XXC"], ["XXA", "XXC"]]

    with pytest.raises(BoardError, match=r"not connected.*XXA, XXB, XXC"):
        parse_board(_broken("europe", mutate), "x.json", north_america=False)


def test_OS_23_3_north_america_airport_needs_a_valid_country():
    raw = _broken("north_america", lambda r: r["airports"][0].update(country="FRA"))
    with pytest.raises(BoardError, match="JFK has country 'FRA'"):
        parse_board(raw, "x.json", north_america=True)
    raw = _broken("north_america", lambda r: r["airports"][0].pop("country"))
    with pytest.raises(BoardError, match="JFK has country None"):
        parse_board(raw, "x.json", north_america=True)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.pop("routes"), "missing key 'routes'"),
        (lambda r: r["airports"][1].update(code="lhr"), "bad code 'lhr'"),
        (lambda r: r["airports"][1].update(lat=123), "bad latitude 123"),
        (lambda r: r["airports"][1].update(name=""), "needs a non-empty 'name'"),
        (lambda r: r["routes"].append(["LHR"]), "must be a pair of airport codes"),
    ],
)
def test_OS_23_2_malformed_schema_gets_a_clear_error(mutate, message):
    with pytest.raises(BoardError, match=message):
        parse_board(_broken("europe", mutate), "x.json", north_america=False)


def test_OS_23_2_OS_21_2_OS_21_3_cross_border_is_derived_from_countries():
    board = BOARDS["north_america"]
    for r, (a, b) in enumerate(board.routes):
        assert board.cross_border[r] == (board.country[a] != board.country[b])
    assert not any(BOARDS["europe"].cross_border)


# ---------------------------------------------------------------- OS-23.4 design constraints


@pytest.mark.parametrize("name", ["europe", "north_america"])
def test_OS_23_4_a_size_and_degree_mix(name):
    board = BOARDS[name]
    n, m = len(board.codes), len(board.routes)
    assert n >= 20
    assert 30 <= m <= 60
    assert 3 <= 2 * m / n <= 4
    degrees = [len(row) for row in board.adj]
    assert max(degrees) <= 8, "no airport linked to nearly everything"
    assert sum(6 <= d <= 8 for d in degrees) >= 4, "several hubs"
    assert sum(2 <= d <= 3 for d in degrees) >= n // 3, "many spokes"


@pytest.mark.parametrize("name", ["europe", "north_america"])
def test_OS_23_4_b_diameter_three_to_four_and_most_pairs_within_three(name):
    board = BOARDS[name]
    dists = [d for a in range(len(board.codes)) for b, d in enumerate(_distances(board, a)) if b > a]
    assert max(dists) in (3, 4)
    assert sum(d <= 3 for d in dists) / len(dists) >= 0.8
    assert {1, 2, 3} <= set(dists), "direct, one-stop and two-stop pairs exist"


@pytest.mark.parametrize("name", ["europe", "north_america"])
def test_OS_23_4_c_real_airports_with_plausible_coordinates(name):
    board = BOARDS[name]
    for i, code in enumerate(board.codes):
        assert len(code) == 3 and board.names[i]
        if name == "europe":
            assert 35 <= board.lat[i] <= 62 and -10 <= board.lon[i] <= 27, code
        else:
            assert 18 <= board.lat[i] <= 52 and -125 <= board.lon[i] <= -70, code


def test_OS_23_4_d_europe_has_several_hub_candidates():
    board = BOARDS["europe"]
    hubs = [board.codes[i] for i, row in enumerate(board.adj) if len(row) >= 6]
    assert len(hubs) >= 5


def test_OS_23_4_e_north_america_countries_and_cross_border_routes():
    board = BOARDS["north_america"]
    countries = board.country
    counts = {c: countries.count(c) for c in ("USA", "CAN", "MEX")}
    assert 10 <= counts["USA"] <= 14
    assert 3 <= counts["CAN"] <= 5 and 3 <= counts["MEX"] <= 5
    kinds = [
        tuple(sorted((countries[a], countries[b]))) for r, (a, b) in enumerate(board.routes) if board.cross_border[r]
    ]
    assert len(kinds) >= 6
    assert kinds.count(("CAN", "USA")) >= 2
    assert kinds.count(("MEX", "USA")) >= 2
    cross_airports = {a for r, pair in enumerate(board.routes) if board.cross_border[r] for a in pair}
    assert len(cross_airports) >= 8, "cross-border routes spread over different airports"


@pytest.mark.parametrize("country", ["USA", "CAN", "MEX"])
def test_OS_23_4_e_domestic_routes_connect_each_country(country):
    board = BOARDS["north_america"]
    members = [i for i, c in enumerate(board.country) if c == country]
    seen = {members[0]}
    todo = [members[0]]
    while todo:
        x = todo.pop()
        for y, r in board.adj[x]:
            if not board.cross_border[r] and y not in seen:
                seen.add(y)
                todo.append(y)
    assert seen == set(members)


def test_OS_23_2_static_boards_are_described_for_clients():
    from engine.opensky import GAME

    boards = json.loads(json.dumps(GAME.describe()["boards"]))
    na = boards["north_america"]
    assert {"code": "YYZ", "name": "Toronto Pearson", "lat": 43.677, "lon": -79.625, "country": "CAN"} in na["airports"]
    assert {"route": "JFK-YYZ", "cross_border": True} in na["routes"]
    assert len(boards["europe"]["routes"]) == len(BOARDS["europe"].routes)
    assert "country" not in boards["europe"]["airports"][0]
