"""API keys after a leak (docs/decisions/abuse-bounds.md, "Keys, accounts and quotas"): a retired key cannot mint a new
current key during its grace, the current key can revoke every other key at once, and an account holds a bounded
number of working keys."""

from __future__ import annotations

from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_basics import assert_error


def test_only_the_current_key_rotates(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=600)
    with gw.client() as c:
        pid, leaked = new_account(c, "leak")
        current = c.post("/v1/players/me/keys", headers=auth(leaked)).json()["api_key"]
        assert c.get("/v1/players/me", headers=auth(leaked)).json()["player_id"] == pid  # in its grace
        assert_error(c.post("/v1/players/me/keys", headers=auth(leaked)), 403, "key_retired")
        assert c.get("/v1/players/me", headers=auth(current)).status_code == 200, "the current key is untouched"
        newer = c.post("/v1/players/me/keys", headers=auth(current))
        assert newer.status_code == 201, newer.text


def test_the_current_key_revokes_every_other_key_at_once(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=600)
    with gw.client() as c:
        pid, first = new_account(c, "revoker")
        assert c.get("/v1/players/me", headers=auth(first)).status_code == 200  # its lookup cached
        second = c.post("/v1/players/me/keys", headers=auth(first)).json()["api_key"]
        current = c.post("/v1/players/me/keys", headers=auth(second)).json()["api_key"]
        assert_error(c.post("/v1/players/me/keys/revoke-others", headers=auth(first)), 403, "key_retired")
        r = c.post("/v1/players/me/keys/revoke-others", headers=auth(current))
        assert r.status_code == 200, r.text
        assert r.json() == {"revoked": 2}
        for old in (first, second):
            assert_error(c.get("/v1/players/me", headers=auth(old)), 401)
        assert c.get("/v1/players/me", headers=auth(current)).json()["player_id"] == pid
        assert c.post("/v1/players/me/keys/revoke-others", headers=auth(current)).json() == {"revoked": 0}


def test_an_account_holds_a_bounded_number_of_working_keys(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=600, api_keys_max=3)
    with gw.client() as c:
        _pid, key = new_account(c, "many")
        working = [key]
        for _ in range(2):
            key = c.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
            working.append(key)
        assert_error(c.post("/v1/players/me/keys", headers=auth(key)), 409, "too_many_keys")
        assert all(c.get("/v1/players/me", headers=auth(k)).status_code == 200 for k in working)
        assert c.post("/v1/players/me/keys/revoke-others", headers=auth(key)).json() == {"revoked": 2}
        assert c.post("/v1/players/me/keys", headers=auth(key)).status_code == 201
