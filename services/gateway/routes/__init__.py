"""HTTP routes of the gateway, one module per URL prefix."""
