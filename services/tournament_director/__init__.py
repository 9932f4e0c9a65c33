"""The tournament director (`python -m services.tournament_director`): one more consumer of game ends, pairing and
starting the rounds of the tournaments (services/tournaments/). A package apart from the tournaments' domain and
store, which the gateway reads, because it builds on the outcomes consumer (services/outcomes/), which reads the
gateway's challenges: one package for both would make a circle."""
