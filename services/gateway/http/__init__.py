"""The HTTP pipeline around the routes: edge middleware, rate limits, JSON bodies, errors, headers."""
