"""Code the deployed roles share: settings, Redis clients and scripts, credentials, stream fan-out,
standings, bot queue policy, health checks. No process runs from here except the
containers' `python -m services.common.healthcheck`."""
