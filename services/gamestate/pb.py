"""The generated protobuf/gRPC modules of proto/skyboard/v1/game_service.proto.

The build (`make install`/`make test`/`make run`) generates them with
grpcio-tools next to the .proto file; they are never committed. If they are
missing or older than the .proto (e.g. pytest run straight after a pull), they
are generated here on first import, so every entry point sees current stubs.
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PROTO = Path("proto/skyboard/v1/game_service.proto")
OUTPUTS = ("game_service_pb2.py", "game_service_pb2_grpc.py", "game_service_pb2.pyi")


def _stale() -> bool:
    src = ROOT / PROTO
    if not src.exists():
        return False  # installed without sources: rely on what is importable
    mtime = src.stat().st_mtime
    return any(
        not (src.parent / name).exists() or (src.parent / name).stat().st_mtime < mtime for name in OUTPUTS
    )


def generate() -> None:
    """Run grpc_tools.protoc into a temp dir, then move the files in place atomically."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        include = str(Path(protoc.__file__).parent / "_proto")
        code = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{ROOT}",
                f"-I{include}",
                f"--python_out={tmp}",
                f"--pyi_out={tmp}",
                f"--grpc_python_out={tmp}",
                str(ROOT / PROTO),
            ]
        )
        if code != 0:
            raise RuntimeError(f"protoc failed on {PROTO} (exit {code})")
        for name in OUTPUTS:
            os.replace(Path(tmp) / PROTO.parent / name, ROOT / PROTO.parent / name)


def _load() -> tuple[ModuleType, ModuleType]:
    if _stale():
        generate()
        for name in ("proto.skyboard.v1.game_service_pb2", "proto.skyboard.v1.game_service_pb2_grpc"):
            sys.modules.pop(name, None)
    return (
        importlib.import_module("proto.skyboard.v1.game_service_pb2"),
        importlib.import_module("proto.skyboard.v1.game_service_pb2_grpc"),
    )


pb2, pb2_grpc = _load()
SERVICE_NAME = pb2.DESCRIPTOR.services_by_name["GameService"].full_name

if __name__ == "__main__":  # `python -m services.gamestate.pb` regenerates the stubs
    generate()
    print(f"generated stubs for {PROTO}")
