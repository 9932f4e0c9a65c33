"""`python -m services.dev.screenshots [--url URL] [--out DIR]`: the docs' and README's screenshots of the web client,
taken from a running stack (`make run`, default http://127.0.0.1:8000) with Playwright and Debian's Chromium.

Every picture is a real page: games are set up and played over the gateway's REST API (every seat held by one
player, each move a seeded random legal action, so a rerun shows the same positions), then opened in the browser
with that player's seats in its storage, in a language, at a desktop's size (1366x900) or a phone's (390x844).
Each PNG is reduced to a 256-colour palette (Pillow) and must stay under 200 KB (docs/decisions/webclient-trial.md).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from PIL import Image

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots"
MAX_BYTES = 200 * 1024
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class Shot:
    """One picture: a game set up and played `moves` moves (None: to its end), shown in `lang` at `size`."""

    name: str
    game: str
    players: int
    lang: str
    size: str  # "desktop" or "phone"
    moves: int | None = 12
    options: dict = field(default_factory=dict)
    scroll_to: str = ""  # a selector brought into view before the picture (the phone's board, the end screen)


SHOTS = [
    Shot("opensky", "opensky", 2, "en", "desktop", moves=14, options={"map": "europe"}),
    Shot("opensky-north_america", "opensky", 3, "en", "desktop", moves=18, options={"map": "north_america"}),
    Shot("aeroplanes", "aeroplanes", 3, "en", "desktop", moves=30),
    Shot("aeroplanes-ru", "aeroplanes", 3, "ru", "desktop", moves=30),
    Shot("blueskies", "blueskies", 3, "en", "desktop", moves=20),
    Shot("blueskies-final", "blueskies", 2, "it", "desktop", moves=None),
    Shot("opensky-phone", "opensky", 2, "en", "phone", moves=14, options={"map": "europe"}, scroll_to="#last-move"),
    Shot("aeroplanes-it-phone", "aeroplanes", 3, "it", "phone", moves=30, scroll_to="#last-move"),
    Shot("blueskies-pl-phone", "blueskies", 2, "pl", "phone", moves=16),
]


def play(http: httpx.Client, shot: Shot) -> tuple[dict, dict, list[dict]]:
    """A new player and game for `shot`, played over REST: (the player, the game as created, its seats)."""
    me = {"name": "Ada", **http.post("/v1/players", json={"name": "Ada"}).raise_for_status().json()}
    # hot-seat, asked for explicitly: the one browser shows every seat (a creator holds only seat 0 by default)
    body = {"game": shot.game, "players": shot.players, "seed": 38, "options": shot.options,
            "account_seats": list(range(shot.players))}
    created = http.post("/v1/games", headers={"Authorization": f"Bearer {me['api_key']}"}, json=body)
    created.raise_for_status()
    game = created.json()
    tokens = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in game["seats"]}
    rng = random.Random(38)
    limit = shot.moves if shot.moves is not None else 5000
    for _ in range(limit):
        g = http.get(f"/v1/games/{game['game_id']}").raise_for_status().json()
        if g["status"] != "active":
            break
        seat = g["to_act"][0]
        actions = http.get(f"/v1/games/{game['game_id']}/actions", headers=tokens[seat]).raise_for_status().json()
        http.post(f"/v1/games/{game['game_id']}/actions", headers=tokens[seat], json={
            "action": rng.choice(actions["actions"]), "expected_version": g["version"]}).raise_for_status()
    return me, game, game["seats"]


def small_png(raw: bytes) -> bytes:
    """The picture in a 256-colour palette (what a page's flat colours survive), optimised; under MAX_BYTES."""
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    for colours in (256, 128, 64):
        out = io.BytesIO()
        image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            out, format="PNG", optimize=True)
        if out.tell() < MAX_BYTES:
            return out.getvalue()
    raise SystemExit(f"a screenshot stays over {MAX_BYTES} bytes even at 64 colours")


def take(browser, base_url: str, http: httpx.Client, shot: Shot, out: Path) -> Path:
    me, game, seats = play(http, shot)
    entry = {"game_id": game["game_id"], "game": shot.game, "title": shot.game, "seats": seats, "player": me["name"],
             "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    phone = shot.size == "phone"
    ctx = browser.new_context(base_url=base_url, viewport=PHONE if phone else DESKTOP, is_mobile=phone,
                              has_touch=phone, device_scale_factor=1)
    ctx.add_init_script(
        f"localStorage.setItem('skyboard.lang', {json.dumps(shot.lang)});"
        f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(me))});"
        f"if (!localStorage.getItem('skyboard.games')) localStorage.setItem('skyboard.games', "
        f"{json.dumps(json.dumps([entry]))});")
    try:
        page = ctx.new_page()
        page.goto(f"/game.html?id={game['game_id']}")
        page.wait_for_selector("#board svg")
        if shot.moves is None:
            page.wait_for_selector("#final:not([hidden]) table[data-breakdown=ready]", timeout=60_000)
        else:
            page.wait_for_selector("#action-list button.action")
        if shot.scroll_to:
            page.locator(shot.scroll_to).evaluate("e => e.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(300)  # the last frame painted
        path = out / f"{shot.name}.png"
        path.write_bytes(small_png(page.screenshot()))
        return path
    finally:
        ctx.close()


def lobby(browser, base_url: str, out: Path) -> Path:
    ctx = browser.new_context(base_url=base_url, viewport=DESKTOP, device_scale_factor=1)
    ctx.add_init_script("localStorage.setItem('skyboard.lang', 'en');")
    try:
        page = ctx.new_page()
        page.goto("/")
        page.wait_for_selector("#catalog tbody tr")
        path = out / "lobby.png"
        path.write_bytes(small_png(page.screenshot()))
        return path
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the running stack's gateway")
    parser.add_argument("--out", type=Path, default=OUT, help="where the PNGs go (default: docs/screenshots)")
    parser.add_argument("--only", nargs="*", default=None, help="only these pictures (by name)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    http = httpx.Client(base_url=args.url, timeout=60)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for shot in SHOTS:
                if args.only is None or shot.name in args.only:
                    path = take(browser, args.url, http, shot, args.out)
                    print(f"{path}: {path.stat().st_size} bytes")
            if args.only is None or "lobby" in args.only:
                path = lobby(browser, args.url, args.out)
                print(f"{path}: {path.stat().st_size} bytes")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
