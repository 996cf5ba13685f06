"""The house's shape, read from the product's own source (no import is run): no import
cycle (imports inside functions included), no custom signal, no module over 400 lines
and no function over 40. The layers themselves are import-linter's ([tool.importlinter]
in pyproject.toml, run by make test)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("kernel", "accounts", "chats", "peers", "origins", "agents", "crosstalk")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 40


def product_files() -> dict[str, Path]:
    """Module name → file, for every module of the apps (migrations left out)."""
    files = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            files[name] = path
    return files


FILES = product_files()
TREES = {name: ast.parse(path.read_text(), str(path)) for name, path in FILES.items()}


def imported_modules(name: str, tree: ast.Module) -> set[str]:
    """The product modules `name` imports anywhere in its body. Importing `a.b.c` runs
    the packages `a` and `a.b` first: they count, but for a package `name` is inside of
    (its own package is already running when it runs)."""
    package = name if FILES[name].name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    for module in list(found):
        parts = module.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    inside = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return {module for module in found if module in FILES and module not in inside | {name}}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while (member := stack.pop()) != node:
                        on_stack.discard(member)
                        group.append(member)
                    on_stack.discard(node)
                    groups.append(sorted([*group, node]))
    return [group for group in groups if len(group) > 1]


def test_it_finds_no_import_cycle():
    graph = {name: imported_modules(name, tree) for name, tree in TREES.items()}
    assert cycles(graph) == []


def test_it_finds_the_cycle_it_looks_for():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_it_finds_no_custom_signal():
    made = [
        f"{name}:{node.lineno}"
        for name, tree in TREES.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Signal"
    ]
    assert made == []


def test_it_keeps_modules_and_functions_short():
    long_modules = [
        f"{name}: {n}"
        for name, path in FILES.items()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    long_functions = [
        f"{name}.{node.name}: {n}"
        for name, tree in TREES.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (n := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert (long_modules, long_functions) == ([], [])
