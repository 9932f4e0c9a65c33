"""The gateway's gRPC listener (GATEWAY_GRPC_PORT): skyboard.v1.TournamentService beside the REST API."""
