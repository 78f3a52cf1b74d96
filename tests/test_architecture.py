"""The import rules of docs/ARCHITECTURE.md, read from the source with ast (imports inside
functions count): the core never imports pygame, the level package or the game; the level
package never imports pygame, the world or the game; benchmarks use only public names."""
import ast
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STDLIB = set(sys.stdlib_module_names)

CORE = {"game.defaults", "game.paths", "game.physics"}
KERNELS = {"game.physics.compiled"}
LEVEL_MAY_USE = {"game.defaults", "game.paths", "game.physics.geometry", "game.physics.polygons",
                 "game.physics.shapes"}
# Private names a benchmark may still use while a public one is on its way (none now).
PENDING_PRIVATE = set()


def _sources(folder):
    for here, _dirs, files in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(here, name)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/")


def _module_name(rel):
    name = rel[:-3].replace("/", ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def _imports(rel):
    """(module imported, names taken from it) for every import in the file."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        tree = ast.parse(f.read(), rel)
    package = _module_name(rel) if rel.endswith("__init__.py") else _module_name(rel).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = tuple(a.name for a in node.names)
            yield base, names
            for name in names:                      # "from game import geometry" imports game.physics.geometry
                if name != "*":
                    yield f"{base}.{name}", ()


def _part(module):
    """The part a game module belongs to: its top two names ("game.level.read" -> "game.level")."""
    top = ".".join(module.split(".")[:2])
    return top


def _is_under(module, names):
    return any(module == n or module.startswith(n + ".") for n in names)


def _third_party(module):
    top = module.split(".")[0]
    return top not in STDLIB and top not in ("game", "__future__")


GAME_FILES = list(_sources("game"))
LEVEL_FILES = [f for f in GAME_FILES if f.startswith("game/level/")]
CORE_FILES = [f for f in GAME_FILES if _is_under(_module_name(f), CORE | KERNELS)]


def test_the_parts_are_where_the_rules_expect_them():
    assert LEVEL_FILES and "game/level/__init__.py" in LEVEL_FILES
    assert {"game/physics/world.py", "game/physics/geometry.py", "game/physics/collide.py"} <= set(CORE_FILES)


@pytest.mark.parametrize("rel", CORE_FILES)
def test_the_core_imports_only_the_core_numpy_and_numba(rel):
    kernels_ok = {"numba"} if _is_under(_module_name(rel), KERNELS) else set()
    for module, _ in _imports(rel):
        if module.startswith("game"):
            if module == "game":
                continue
            assert _is_under(module, CORE | KERNELS), f"{rel} imports {module}: the core never imports it"
        elif _third_party(module):
            assert module.split(".")[0] in {"numpy"} | kernels_ok | {"numba"} and "pygame" not in module, \
                f"{rel} imports {module}"
            assert not module.startswith("pygame"), f"{rel} imports pygame"


@pytest.mark.parametrize("rel", LEVEL_FILES)
def test_the_level_package_imports_no_pygame_no_world_and_no_game(rel):
    for module, _ in _imports(rel):
        if module.startswith("game") and module != "game":
            assert _is_under(module, {"game.level"} | LEVEL_MAY_USE), \
                f"{rel} imports {module}: levels use only game.defaults and game.physics.geometry"
        elif _third_party(module):
            assert module.split(".")[0] in {"numpy", "jsonschema"}, f"{rel} imports {module}"


def test_the_headless_runner_and_the_command_line_need_no_pygame():
    for rel in ("game/headless.py", "main.py", "game/goals.py"):
        for module, _ in _imports(rel):
            assert not module.startswith("pygame"), f"{rel} imports pygame"


def _private_uses(rel):
    """(module, private name) for each private name of game a file takes or reads."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        tree = ast.parse(f.read(), rel)
    for module, names in _imports(rel):
        if module.startswith("game"):
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    yield f"{module}.{name}"
            last = module.split(".")[-1]
            if last.startswith("_") and not last.startswith("__") and not names:
                yield module
    for node in ast.walk(tree):                     # game.physics.collide._expand, collide._expand
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            target = ast.unparse(node.value)
            if target.startswith("game.") or target in {"collide", "world", "geometry", "accel", "level"}:
                yield f"{target}.{node.attr}"


BENCHMARK_FILES = list(_sources("benchmarks"))


@pytest.mark.parametrize("rel", BENCHMARK_FILES)
def test_benchmarks_use_only_public_names(rel):
    private = {name for name in _private_uses(rel) if (rel, name) not in PENDING_PRIVATE}
    private = {n for n in private if not n.startswith("game.physics.compiled.")}
    assert not private, f"{rel} uses private names {sorted(private)}"


def test_each_pending_exception_is_still_needed():
    """An exception that no longer occurs must leave PENDING_PRIVATE (the list only shrinks)."""
    for rel, name in PENDING_PRIVATE:
        assert name in set(_private_uses(rel)), f"{rel} no longer uses {name}: remove it from PENDING_PRIVATE"


def test_a_forbidden_import_is_caught(tmp_path, monkeypatch):
    """The checker itself: a core module importing pygame inside a function is found."""
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "world.py").write_text("def draw():\n    import pygame\n")
    (tmp_path / "game" / "forces.py").write_text("from .level import load\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", str(tmp_path))
    for rel in ("game/world.py", "game/forces.py"):
        with pytest.raises(AssertionError):
            test_the_core_imports_only_the_core_numpy_and_numba(rel)


def _module_graph():
    """{game module: the game modules it imports}, imports inside functions included; a
    ``from package import name`` counts as importing the module ``package.name`` where that
    is a module, else the package itself."""
    modules = {_module_name(rel): rel for rel in GAME_FILES}
    graph = {}
    for name, rel in modules.items():
        targets = set()
        for module, names in _imports(rel):
            if not module.startswith("game"):
                continue
            if module in modules:
                targets.add(module)
        targets.discard(name)
        # a package's own __init__ importing its parts is not a cycle through the part
        graph[name] = {t for t in targets if not (rel.endswith("__init__.py") and t.startswith(name + "."))}
    return graph


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_among_game_modules():
    """Imports inside functions count: a cycle hidden in a function is still a cycle."""
    assert _cycles(_module_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_class_over_400_lines_and_no_module_over_800():
    for rel in GAME_FILES:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        assert text.count("\n") <= 800, f"{rel} has {text.count(chr(10))} lines"
        for node in ast.walk(ast.parse(text, rel)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno - node.lineno + 1 <= 400, f"{rel}: class {node.name} is over 400 lines"


def test_no_function_takes_more_than_12_parameters():
    for rel in GAME_FILES:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            tree = ast.parse(f.read(), rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                assert count <= 12, f"{rel}: {getattr(node, 'name', 'lambda')} takes {count} parameters"
