"""Services around the engines: the game-state service (gRPC), gateway, workers."""
