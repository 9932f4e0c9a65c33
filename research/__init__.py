"""The research tools, beside the experiments they serve: `research.lab` (paired games, tournaments, ladders and
their fit, rule and search variants) and `research.train` (labelling, fitting and evaluating the learned bots).

Why here and not in `ai/`: `ai/` is what the bot workers run and ship (the container image copies `ai/`, never
`research/`), and every run of these tools writes into a dated experiment folder of this directory
(`research/<date>-<name>/`, research/README.md), so the tools, their plans and their ledgers are in one place. The
tools import the runtime (`ai`, `engine`), never the other way round (tests/test_import_graph.py).

    python -m research.lab.tournament --game opensky --players 2 --bots fast,greedy --games 200
    python -m research.train label --plan bs2-distill --out research/<folder>/data/<run>
"""
