from tests.services import toygame


def test_smoke(client):
    c = client.create_game("toybids", 2, seed=1)
    s0 = client.get_game(c.game_id, c.token(0))
    assert s0.version == 0 and s0.to_act == [0, 1]
    legal = client.legal_actions(c.game_id, c.token(0))
    r = client.submit(c.game_id, c.token(0), legal.actions[0], 0)
    assert r.version == 1
    print(r, toygame.GAME)
