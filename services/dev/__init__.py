"""Development tools, never deployed: the `make run` supervisor (stack.py) and the Redis and PostgreSQL
the tests and the stack start when none answers (dev_services.py, local_redis.py,
local_postgres.py)."""
