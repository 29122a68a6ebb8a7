"""The shape of the tilec package (issue 52): no import circles, small files
and functions.

Every module of ``python/tilec`` is parsed (not imported) and each import
of another module of the package becomes an edge of a graph: imports at
module level and imports inside functions alike, since a function-local
import is a dependency that only waits for its first call. The graph must
have no cycle. ``from . import name`` is an edge to the submodule ``name``
when there is one, else to the package (``__init__``); the import of a
module's parent package that Python does implicitly is not an edge (every
submodule would be in a cycle with ``__init__``).

Files stay under :data:`MAX_FILE_LINES` lines and functions (methods and
nested functions included, each from its ``def`` to its last line, the
docstring counted) under :data:`MAX_FUNCTION_LINES`. The checker's own
tests run it on small packages written for the purpose, so that it is
seen to fail where it must.
"""

import ast
import os

import pytest

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tilec")
MAX_FILE_LINES = 650
MAX_FUNCTION_LINES = 80


def package_modules(package_dir, package="tilec"):
    """``{module name: path}`` of the package's modules (``package`` itself
    for ``__init__.py``), its subpackages included."""
    modules = {}
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(root, d, "__init__.py")))
        rel = os.path.relpath(root, package_dir)
        prefix = package if rel == "." else package + "." + rel.replace(os.sep, ".")
        for name in sorted(files):
            if name.endswith(".py"):
                stem = name[:-3]
                modules[prefix if stem == "__init__" else f"{prefix}.{stem}"] = (
                    os.path.join(root, name))
    return modules


def _package_of(module, path):
    """The package a module's relative imports start from."""
    return module if os.path.basename(path) == "__init__.py" else module.rpartition(".")[0]


def _targets(node, module, path, modules, package):
    """The modules of the package an Import / ImportFrom node imports."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        return [n for n in names if n in modules]
    if node.level:
        base = _package_of(module, path)
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module
    if source not in modules:  # outside the package (or no module of it)
        return []
    if not modules[source].endswith("__init__.py"):
        return [source]
    # From a package: its submodules by name, the package for other names.
    found = set()
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        found.add(submodule if submodule in modules else source)
    return sorted(found)


def import_graph(package_dir, package="tilec"):
    """``{module: {imported module: [line, ...]}}`` of the imports between
    the package's modules, at any depth of the syntax tree."""
    modules = package_modules(package_dir, package)
    graph = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        edges = graph.setdefault(module, {})
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, module, path, modules, package):
                    edges.setdefault(target, []).append(node.lineno)
    return graph


def find_cycles(graph):
    """The cycles of ``graph`` (each a list of modules, its first one
    repeated at the end), one per strongly connected component that has a
    cycle: :func:`cyclic_components`'."""
    return [_cycle_in(component, graph) for component in cyclic_components(graph)]


def cyclic_components(graph):
    """The strongly connected components of ``graph`` that hold a cycle (sets
    of modules that import one another, directly or not; a module importing
    itself counts), by Tarjan's algorithm."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                components.append(set(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _cycle_in(component, graph):
    """One cycle through the modules of a strongly connected component."""
    start = min(component)
    path, seen = [start], {start}
    node = start
    while True:
        nexts = sorted(t for t in graph[node] if t in component)
        if start in nexts:
            return path + [start]
        node = next((t for t in nexts if t not in seen), nexts[0])
        if node in seen:  # closes a cycle that does not pass through start
            return path[path.index(node):] + [node]
        path.append(node)
        seen.add(node)


def describe_cycle(cycle, graph):
    """``a (line 3) -> b (line 10) -> a``: each import with its lines."""
    steps = [f"{a} (line {', '.join(map(str, graph[a][b]))})"
             for a, b in zip(cycle, cycle[1:])]
    return " -> ".join(steps + [cycle[-1]])


def long_definitions(package_dir, package="tilec", max_file=MAX_FILE_LINES,
                     max_function=MAX_FUNCTION_LINES):
    """``[(path, what, lines)]``: the files over ``max_file`` lines and the
    functions over ``max_function``."""
    found = []
    for path in package_modules(package_dir, package).values():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, os.path.dirname(package_dir))
        lines = len(text.splitlines())
        if lines > max_file:
            found.append((rel, "the file", lines))
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > max_function:
                    found.append((rel, f"{node.name} (line {node.lineno})", length))
    return found


# -- the package ----------------------------------------------------------------


def test_the_package_has_no_import_cycle():
    graph = import_graph(PACKAGE_DIR)
    assert "tilec.ops" in graph and "tilec.plans" in graph["tilec.op_gemm"]
    components = cyclic_components(graph)
    assert not components, "import cycles in python/tilec:\n" + "\n".join(
        f"{describe_cycle(_cycle_in(c, graph), graph)} (a cycle among {', '.join(sorted(c))})"
        for c in components)


def test_the_package_files_and_functions_are_short():
    found = long_definitions(PACKAGE_DIR)
    assert not found, (f"over {MAX_FILE_LINES} lines per file or {MAX_FUNCTION_LINES} per "
                       f"function:\n" + "\n".join(f"{p}: {what}: {n} lines"
                                                  for p, what, n in found))


# -- the checker, on packages written for it ------------------------------------


def write_package(root, files):
    """A package ``pkg`` under ``root`` with ``files`` ({name: text})."""
    package_dir = root / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = package_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(package_dir)


def test_a_function_local_import_closes_a_cycle(tmp_path):
    package_dir = write_package(tmp_path, {
        "low.py": "def device():\n    from .high import route\n    return route\n",
        "high.py": "from .low import device\n\n\ndef route():\n    return device\n",
        "other.py": "from . import low\n"})
    graph = import_graph(package_dir, "pkg")
    assert graph["pkg.low"] == {"pkg.high": [2]}
    cycles = find_cycles(graph)
    assert cycles == [["pkg.high", "pkg.low", "pkg.high"]]
    assert describe_cycle(cycles[0], graph) == (
        "pkg.high (line 1) -> pkg.low (line 2) -> pkg.high")


def test_every_import_form_is_an_edge(tmp_path):
    package_dir = write_package(tmp_path, {
        "__init__.py": "from .a import f\n",
        "a.py": "import pkg.b\nfrom pkg import c\nfrom pkg.sub.d import g\nimport os\n",
        "b.py": "from . import VERSION\n",  # a name of __init__: the package
        "c.py": "def f():\n    from .sub import d\n",
        "sub/__init__.py": "",
        "sub/d.py": "from .. import c\nfrom ..a import f\n"})
    graph = import_graph(package_dir, "pkg")
    assert {m: sorted(e) for m, e in graph.items()} == {
        "pkg": ["pkg.a"], "pkg.a": ["pkg.b", "pkg.c", "pkg.sub.d"], "pkg.b": ["pkg"],
        "pkg.c": ["pkg.sub.d"], "pkg.sub": [], "pkg.sub.d": ["pkg.a", "pkg.c"]}
    # One strongly connected component, hence one cycle reported, a real one.
    [cycle] = find_cycles(graph)
    assert cycle[0] == cycle[-1] and all(b in graph[a] for a, b in zip(cycle, cycle[1:]))
    assert set(cycle) <= {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.sub.d"}


def test_a_module_importing_itself_is_a_cycle(tmp_path):
    package_dir = write_package(tmp_path, {"a.py": "def f():\n    from . import a\n"})
    assert find_cycles(import_graph(package_dir, "pkg")) == [["pkg.a", "pkg.a"]]


def test_an_acyclic_package_passes(tmp_path):
    package_dir = write_package(tmp_path, {
        "low.py": "X = 1\n", "mid.py": "from .low import X\n",
        "top.py": "def f():\n    from . import mid, low\n"})
    assert find_cycles(import_graph(package_dir, "pkg")) == []


@pytest.mark.parametrize("body,found", [
    (80, []),
    (81, [("pkg/a.py", "f (line 1)", 81)]),
])
def test_long_functions_are_found(tmp_path, body, found):
    text = "def f():\n" + "    x = 1\n" * (body - 2) + "    return x\n"
    package_dir = write_package(tmp_path, {"a.py": text})
    assert long_definitions(package_dir, "pkg") == found


def test_long_files_and_nested_functions_are_found(tmp_path):
    nested = "class K:\n    def m(self):\n" + "        pass\n" * 90
    package_dir = write_package(tmp_path, {"a.py": nested + "x = 1\n" * 600})
    assert long_definitions(package_dir, "pkg") == [("pkg/a.py", "the file", 692),
                                                    ("pkg/a.py", "m (line 2)", 91)]
