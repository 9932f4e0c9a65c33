"""Player accounts shared by the gateway and the matchmaker: the SQL repository of players, API keys and
ratings, the ratings and account streams kept hot in Redis, and the Redis key layout both roles write."""
