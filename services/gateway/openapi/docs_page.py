"""/docs: Swagger UI 5 from the `swagger-ui-bundle-v2` package (module `swagger_ui_bundle`; Swagger UI 4 of
`swagger-ui-bundle` could not render OpenAPI 3.1), with its start-up script in a file.

Why not FastAPI's `get_swagger_ui_html`: it starts Swagger UI with an inline script, which a
Content-Security-Policy without 'unsafe-inline' (security_headers.py) would block. ReDoc is not served: FastAPI's
/redoc loads its script from a CDN without integrity, on the origin whose storage holds players' API keys, and
no package we use ships it.

The OpenAPI document is served at `/openapi.json` (FastAPI's route) and, the same document, at `/v1/openapi.json`
beside the `/v1` routes it describes, where a developer looks for it first.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui_bundle
from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

#: Where the packaged Swagger UI assets are served (no CDN).
ASSETS = "/docs-assets"
_STATIC = Path(__file__).parent / "docs_static"


def install(app: FastAPI) -> None:
    app.mount(ASSETS, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(_STATIC / "docs.html", media_type="text/html")

    @app.get("/docs-init.js", include_in_schema=False)
    async def docs_init() -> FileResponse:
        return FileResponse(_STATIC / "docs-init.js", media_type="text/javascript")

    @app.get("/v1/openapi.json", include_in_schema=False)
    async def openapi_v1() -> JSONResponse:
        return JSONResponse(app.openapi())
