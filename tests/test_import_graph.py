"""No import circle among the first-party packages (issue #36 "Done when"): a module that imports, at any depth
of its body, a module that imports it back couples the two so neither can be read or moved alone. Imports under
`if TYPE_CHECKING:` are annotations only and do not count. Read with ast: nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "services", "ai", "bench", "clients/python/skyboard_client")


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every .py file of PACKAGES (generated gRPC stubs left out)."""
    found = {}
    for package in PACKAGES:
        base = ROOT / package
        top = ROOT if "/" not in package else base.parent
        for path in base.rglob("*.py"):
            if "_pb2" in path.name or "node_modules" in path.parts:
                continue
            parts = path.relative_to(top).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:`."""
    nodes, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        nodes.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return nodes


def import_graph(found: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the first-party modules it imports (a name imported from a package resolves to its submodule)."""

    def resolve(name: str) -> str | None:
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [resolve(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    kept = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(kept + ([base] if base else []))
                targets = [resolve(f"{base}.{alias.name}") if f"{base}.{alias.name}" in found else resolve(base)
                           for alias in node.names]
            graph[name].update(t for t in targets if t and t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_first_party_module_is_in_an_import_circle() -> None:
    found = modules()
    assert len(found) > 200  # the packages were read
    graph = import_graph(found)
    assert "services.common.settings" in graph["services.matchmaker.settings"]  # and their imports seen
    assert circles(graph) == []


def test_the_check_sees_a_circle_and_ignores_type_checking_imports() -> None:
    """The check can fail: a two-module circle and a three-module one are found; a tree is not."""
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\ndef f():\n    import y\n")
    imported = {alias.name for node in _runtime_nodes(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported == {"y"}
