"""No import circle among the first-party packages (docs/decisions/one-place.md): a module that imports, at any depth
of its body, a module that imports it back couples the two so neither can be read or moved alone. Imports under
`if TYPE_CHECKING:` are annotations only and do not count. Read with ast: nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "services", "ai", "bench", "research", "clients/python/skyboard_client")
#: What ships and runs (the container image copies engine/, ai/ and services/; the SDK is published): none of it may
#: import the research tools, which import it.
RUNTIME = ("engine", "services", "ai", "clients/python/skyboard_client")


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
    assert "research.lab.tournament" in graph["research.lab.ladder"]
    assert circles(graph) == []


def test_the_check_sees_a_circle_and_ignores_type_checking_imports() -> None:
    """The check can fail: a two-module circle and a three-module one are found; a tree is not."""
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\ndef f():\n    import y\n")
    imported = {alias.name for node in _runtime_nodes(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported == {"y"}


def package_of(module: str) -> str:
    """The package a module counts for: its first two name parts (`services.gateway`, `research.lab`, `engine.opensky`);
    a module directly under a top-level folder (`ai.levels`, `bench.load`) is a unit of its own."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Package -> each package it imports -> the (importer, imported) module pairs that make that edge."""
    packages: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for module, targets in graph.items():
        source = package_of(module)
        edges = packages.setdefault(source, {})
        for target in targets:
            if package_of(target) != source:
                edges.setdefault(package_of(target), []).append((module, target))
    return packages


def package_circles(packages: dict[str, dict[str, list[tuple[str, str]]]]) -> list[list[str]]:
    """The distinct circles among packages: for each package import that lies on a circle, the shortest way back
    (breadth first), each circle listed from its least name; two-package circles first."""
    found: set[tuple[str, ...]] = set()
    for members in circles({source: set(edges) for source, edges in packages.items()}):
        inside = set(members)
        for source in members:
            for target in packages[source]:
                if target not in inside:
                    continue
                paths, todo = {target: [target]}, [target]
                while source not in paths:  # target reaches source: both are in one strongly connected component
                    node = todo.pop(0)
                    for step in sorted(packages[node]):
                        if step in inside and step not in paths:
                            paths[step] = [*paths[node], step]
                            todo.append(step)
                loop = [source, *paths[source][:-1]]
                first = loop.index(min(loop))
                found.add(tuple(loop[first:] + loop[:first]))
    return sorted((list(loop) for loop in found), key=lambda loop: (len(loop), loop))


def describe(loop: list[str], packages: dict[str, dict[str, list[tuple[str, str]]]]) -> str:
    """A circle with the module imports that make each of its steps."""
    steps = zip(loop, loop[1:] + loop[:1], strict=True)
    return " -> ".join([*loop, loop[0]]) + "".join(
        f"\n    {a} -> {b}: " + ", ".join(f"{x} imports {y}" for x, y in sorted(packages[a][b])) for a, b in steps)


def test_no_package_is_in_an_import_circle() -> None:
    """Packages, not only modules, import one way: a package that imports another which imports it back (a lazy
    import inside a function counts; annotations under TYPE_CHECKING do not) can be neither read nor moved alone.
    The gateway mounts the web client, the game-state service archives into the archive, training builds on the
    lab's match tools; shared code lives with the package that owns it, or in services/common. The circles once here
    (gateway and web client, game state and the gateway's limits, game state and archive, lab and training) are
    each checked by name too, so that one coming back is reported as such."""
    graph = import_graph(modules())
    packages = package_graph(graph)
    assert "services.gamestate" in packages["services.gateway"]  # the packages and their imports were seen
    assert "research.lab" in packages["research.train"]
    for one, other in (("services.gateway", "services.webclient"), ("services.gamestate", "services.gateway"),
                       ("services.gamestate", "services.archive"), ("research.lab", "research.train")):
        assert not (one in packages.get(other, {}) and other in packages.get(one, {})), f"{one} <-> {other}"
    found = package_circles(packages)
    assert found == [], "package import circles:\n" + "\n".join(describe(loop, packages) for loop in found)


def test_the_package_check_sees_a_circle_through_submodules() -> None:
    """Two packages whose modules import each other's (at any depth) are a circle, and so are three in a ring; a
    one-way pair is not."""
    packages = package_graph({"p.a.x": {"p.b.y.z"}, "p.b.y.z": set(), "p.b.w": {"p.a"}, "p.a": set(),
                              "p.c": {"p.a.x"}})
    assert package_circles(packages) == [["p.a", "p.b"]]
    assert describe(["p.a", "p.b"], packages) == (
        "p.a -> p.b -> p.a\n    p.a -> p.b: p.a.x imports p.b.y.z\n    p.b -> p.a: p.b.w imports p.a")
    ring = package_graph({"q.c.m": {"q.a"}, "q.a": {"q.b.n"}, "q.b.n": {"q.c"}, "q.c": set()})
    assert package_circles(ring) == [["q.a", "q.b", "q.c"]]
    assert package_circles(package_graph({"p.a.x": {"p.b.y"}, "p.b.y": set(), "p.c": {"p.a.x"}})) == []


def _top(module: str) -> str:
    return "clients/python/skyboard_client" if module.startswith("skyboard_client") else module.split(".")[0]


def test_the_runtime_imports_nothing_from_the_research_tools() -> None:
    """`ai/` is what the bot workers run and the image ships; the research tools (`research.lab`, `research.train`)
    build on it and live outside it. An import the other way (a lazy one inside a function counts) would put
    research code on a worker's path, or leave a worker unable to import a module the image does not carry."""
    graph = import_graph(modules())
    assert any(m.startswith("research.train.") for m in graph) and any(m.startswith("ai.policy") for m in graph)
    assert any(t.startswith("ai.") for t in graph["research.lab.match"])  # the tools' imports of the runtime are seen
    wrong = sorted((module, target) for module, targets in graph.items() if _top(module) in RUNTIME
                   for target in targets if target.split(".")[0] == "research")
    assert wrong == [], "runtime modules importing research tools:\n" + "\n".join(f"{a} imports {b}" for a, b in wrong)
    assert not (ROOT / "ai" / "lab").exists() and not (ROOT / "ai" / "train").exists()
