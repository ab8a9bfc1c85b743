"""Fail when the modules of a package import each other in a cycle.

    python scripts/check_import_cycles.py djony
    python scripts/check_import_cycles.py djony tastypie_djony

Builds the import graph of the named packages with grimp (the library
import-linter runs on), counting every import: at module level, inside
functions (the lazy imports that hide a cycle from Python at import time) and
under ``TYPE_CHECKING``.  Each strongly connected component of more than one
module is a cycle; for each, the script prints its modules and every import
between them with its line, and exits 1.  Exit 0 (and one line per package)
when there is none.  Run by ``tox -e lint`` and ``.ci/run``'s lint step, beside
import-linter's contracts (``.importlinter``), which keep the layers of djony.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def strongly_connected(nodes: Iterable[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of the graph (Tarjan's algorithm, no recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
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
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def cycles(graph: grimp.ImportGraph, packages: list[str]) -> list[list[str]]:
    """The import cycles among the modules of ``packages`` (each a sorted list of modules)."""
    modules = {
        module
        for module in graph.modules
        if any(module == package or module.startswith(f"{package}.") for package in packages)
    }
    edges = {
        module: graph.find_modules_directly_imported_by(module) & modules for module in modules
    }
    found = [component for component in strongly_connected(modules, edges) if len(component) > 1]
    found.extend([module] for module in sorted(modules) if module in edges[module])
    return found


def describe(graph: grimp.ImportGraph, component: list[str]) -> list[str]:
    """The lines printed for one cycle: its modules, then each import between them."""
    members = set(component)
    lines = [f"cycle of {len(component)} module(s): {', '.join(component)}"]
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            details = graph.get_import_details(importer=importer, imported=imported)
            for detail in details or [{"line_number": "?", "line_contents": "?"}]:
                lines.append(
                    f"  {importer}:{detail['line_number']} -> {imported}: {detail['line_contents']}"
                )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="+", help="the top-level packages to check")
    arguments = parser.parse_args(argv)
    graph = grimp.build_graph(*arguments.packages, cache_dir=None)
    failed = False
    for package in arguments.packages:
        found = cycles(graph, [package])
        if not found:
            print(f"{package}: no import cycles")
            continue
        failed = True
        print(f"{package}: {len(found)} import cycle(s)")
        for component in found:
            print("\n".join(describe(graph, component)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
