"""Secrets never reach the logs: seat tokens and api keys, valid or not, on success and on every error."""

from __future__ import annotations

import logging

from tests.gateway.helpers import auth, create


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []
        self.names: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record) + repr(record.args))
        self.names.append(record.name)


def test_tokens_and_api_keys_are_never_logged(make_gateway) -> None:
    capture = Capture()
    # httpx too: the client's request lines (another test's deliverer may have quietened it for the process)
    loggers = [logging.getLogger(name)
               for name in ("", "uvicorn", "uvicorn.access", "uvicorn.error", "services", "httpx")]
    old_levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
        lg.setLevel(logging.DEBUG)
    try:
        gw = make_gateway(log_level="debug", rate_limit_token=4)
        for lg in loggers[1:4]:  # uvicorn's logging config replaced their handlers: the capture goes back on
            lg.addHandler(capture)
        with gw.client() as c:
            created = create(c, "toybids", 2)
            token = created["seats"][0]["token"]
            gid = created["game_id"]
            player = c.post("/v1/players", json={"name": "secretive"}).json()
            secrets = [token, player["api_key"], "sbk_made-up-key", "forged-token"]
            c.get(f"/v1/games/{gid}", headers=auth(token))
            c.post(f"/v1/games/{gid}/actions", headers=auth(token), json={"action": {"type": "x"},
                                                                          "expected_version": 0})
            for _ in range(5):
                c.get(f"/v1/games/{gid}/actions", headers=auth(token))  # ends in 429s
            c.get(f"/v1/games/{gid}", headers=auth("forged-token"))
            c.post("/v1/matchmaking/tickets", headers=auth(player["api_key"]), json={"game": "toybids", "players": 2})
            c.post("/v1/matchmaking/tickets", headers=auth("sbk_made-up-key"), json={"game": "toybids", "players": 2})
        gw.stop()
    finally:
        for lg, level in zip(loggers, old_levels):
            lg.removeHandler(capture)
            lg.setLevel(level)
    access = [line for line, name in zip(capture.lines, capture.names) if name == "uvicorn.access"]
    assert any("/v1/games" in line for line in access), "the access log was captured"
    for secret in secrets:
        assert not [line for line in capture.lines if secret in line]
