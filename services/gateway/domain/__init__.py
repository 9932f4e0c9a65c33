"""The gateway's own domain stores (API-key cache, challenges, the turn follower, quotas) in Redis and SQL."""
