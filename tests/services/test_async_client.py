"""The grpc.aio client the gateway uses: same calls, same errors, async watch."""

from __future__ import annotations

import grpc

from services.gamestate.client import AsyncGameClient, GameServiceError


def test_async_client_plays_watches_and_maps_errors(instance, loop_thread):
    async def scenario():
        async with AsyncGameClient(instance.target) as client:
            games, levels = await client.catalog()
            assert "toybids" in [g["name"] for g in games] and "random" in levels
            game = await client.create_game("toybids", 2, seed=91, options={"rounds": 2})
            seen = []
            while (view := await client.get_game(game.game_id)).status != "finished":
                seat = view.to_act[0]
                legal = await client.legal_actions(game.game_id, game.token(seat))
                answer = await client.submit(game.game_id, game.token(seat), legal.actions[0], view.version,
                                             idempotency_key=f"k{view.version}")
                seen.append(answer.version)
            updates = [u async for u in client.watch(game.game_id, game.token(0))]
            log = await client.get_log(game.game_id)
            listed = await client.list_games(status="finished")
            try:
                await client.submit(game.game_id, "sbt_nope", {"type": "bid", "card": "x"}, 0)
            except GameServiceError as exc:
                over = exc
            other = await client.create_game("toybids", 2, seed=92)
            try:
                await client.submit(other.game_id, "sbt_nope", {"type": "bid", "card": "x"}, 0)
            except GameServiceError as exc:
                error = exc
            new_token = await client.rotate_token(other.game_id, other.token(0))
            resigned_at = await client.resign(other.game_id, new_token)
            return seen, updates, log, listed, over, error, view, resigned_at

    seen, updates, log, listed, over, error, final, resigned_at = loop_thread.run(scenario())
    assert seen == list(range(1, final.version + 1))
    assert [u.version for u in updates] == list(range(final.version + 1)) and updates[-1].status == "finished"
    assert log.final_digest == final.digest and len(log.entries) == final.version
    assert [g.game_id for g in listed] == [final.game_id]
    # a write to an ended game is told the game is over, whatever its token; to an active one, an unknown token is
    # unauthenticated (docs/errors.md)
    assert over.code == grpc.StatusCode.FAILED_PRECONDITION and over.reason == "game_over"
    assert error.code == grpc.StatusCode.UNAUTHENTICATED and error.reason == "unauthenticated"
    assert resigned_at == 1
