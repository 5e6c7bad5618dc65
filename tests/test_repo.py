"""Whole-repository checks: import direction, kernel size, proof modules' shape, packaging."""

from __future__ import annotations

import ast
import builtins
import fnmatch
import functools
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "scaledattn"

#: The layers, from the bottom, as README.md's "How it is built" states them: a module
#: imports only from its own place and the places of earlier layers (never a later
#: layer, nor another place of its own layer). Every module of the package has a place.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("scaledattn.checker",),
    ("scaledattn.errors",),
    ("scaledattn.progress",),
    ("scaledattn.kernel",),
    ("scaledattn.certificate",),
    ("scaledattn.rulebook", "scaledattn.explain", "scaledattn.definitions", "scaledattn.strings"),
    ("scaledattn.language",),
    ("scaledattn.derive",),
    ("scaledattn.render",),
    ("scaledattn.moments",),
    ("scaledattn.calculator", "scaledattn.numeric"),
    ("scaledattn.gate",),
    ("scaledattn.proofs",),
    ("scaledattn.registry", "scaledattn.grading", "scaledattn.attention", "scaledattn.fuzz"),
    ("scaledattn.automation",),
    ("scaledattn.claims", "scaledattn.prooffile", "scaledattn.torchattn"),
    ("scaledattn.citations", "scaledattn.cache", "scaledattn.docsync"),
    ("scaledattn.docgen",),
    ("scaledattn.cli",),
    ("scaledattn.__main__",),
)
#: The package's own __init__, outside the layers: it imports the calculator on first use.
TOP_IMPORTS = ("scaledattn.calculator",)
#: What the thin runners proofs/NAME.py import.
RUNNER_IMPORTS = ("scaledattn.render", "scaledattn.grading", "scaledattn.proofs")
KERNEL_THIRD_PARTY = {"sympy"}
# The kernel's code lines (no blanks, comments or docstrings): raise only on purpose, with
# a one-line reason; the history of every raise is in docs/history.md.
KERNEL_LINE_BUDGET = 2567  # issue 31: term admission (_refused) walks each node faster


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path) -> set[str]:
    """Every module of the package ``path`` imports (see :func:`_all_imports`)."""
    return {n for n in _all_imports(path) if n in MODULES}


@functools.cache
def _all_imports(path: Path) -> frozenset[str]:
    """Every module ``path`` imports: at the top, inside functions, or by ``import_module``.

    Computed once per file and process (the layering and the cycle tests both ask).

    ``from A import B`` counts A.B when that is a module (A loads as its parent, as
    with ``import A.B``), else A; an ``import_module`` of an f-string counts every
    module its constant prefix names.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path.name}: a relative import"
            submodules = {f"{node.module}.{a.name}" for a in node.names} & set(MODULES)
            found.update(submodules or {node.module})  # a package is loaded as a parent
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in ("import_module", "__import__"):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
                prefix = str(arg.values[0].value)
                found.update(m for m in MODULES if m.startswith(prefix))
            # A computed name (torchattn's torch and transformers) is not of the package.
    return frozenset(found)


def _place(module: str) -> tuple[int, str] | None:
    """(layer, place) of ``module``, or None if no layer has a place for it."""
    for n, places in enumerate(LAYERS):
        for place in places:
            if module == place or module.startswith(place + "."):
                return n, place
    return None


def test_the_readme_states_the_same_layers() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How it is built", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    stated = tuple(
        tuple(
            cell.strip().strip("`").removesuffix("/").removesuffix(".py").replace("/", ".")
            for cell in row.split("|")[2].split(", ")
        )
        for row in rows
    )
    assert stated == tuple(tuple(p.strip() for p in layer) for layer in LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_has_a_place_and_imports_only_what_lies_below(module: str) -> None:
    imported = _imports(MODULES[module]) - {"scaledattn"}  # the package: always loaded
    if module == "scaledattn":
        assert imported <= set(TOP_IMPORTS)
        return
    own = _place(module)
    assert own is not None, f"{module} has no row in LAYERS (and README's table)"
    for name in imported:
        theirs = _place(name)
        assert theirs is not None, f"{module} imports {name}, which has no row"
        assert theirs[1] == own[1] or theirs[0] < own[0], f"{module} imports {name}"


def test_no_import_cycle_counting_imports_in_functions_and_import_module() -> None:
    graph = {m: _imports(p) - {m, "scaledattn"} for m, p in MODULES.items()}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = [*path[path.index(module) :], module]
            raise AssertionError("import cycle: " + " → ".join(cycle))
        if module in done:
            return
        for name in sorted(graph[module]):
            visit(name, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_layering_test_sees_imports_in_functions_and_import_module() -> None:
    registry = _imports(PACKAGE / "registry.py")
    assert "scaledattn.proofs" in registry  # import_module("scaledattn.proofs")
    assert "scaledattn.proofs.variance_of_sum" in registry  # an f-string's prefix
    assert "scaledattn.calculator" in _imports(PACKAGE / "__init__.py")  # inside a function


RUNNERS = sorted((ROOT / "proofs").glob("*.py"))


def test_every_proof_module_has_a_thin_runner_that_imports_only_it() -> None:
    assert not (ROOT / "proofs" / "__init__.py").exists(), "proofs/ holds scripts, not a package"
    modules = {p.stem for p in (PACKAGE / "proofs").glob("*.py")} - {"__init__"}
    assert {p.stem for p in RUNNERS} == modules
    for runner in RUNNERS:
        tree = ast.parse(runner.read_text(encoding="utf-8"))
        names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert f"scaledattn.proofs.{runner.stem}" in names
        assert all(n is not None and n.startswith(RUNNER_IMPORTS) for n in names), runner.name


def test_every_exception_class_lives_in_errors() -> None:
    errors = ast.parse((PACKAGE / "errors.py").read_text(encoding="utf-8"))
    ours = {n.name for n in ast.walk(errors) if isinstance(n, ast.ClassDef)}
    builtin = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)}
    exceptions = ours | {n for n in builtin if issubclass(getattr(builtins, n), BaseException)}
    for module, path in MODULES.items():
        if module == "scaledattn.errors" or module.startswith("scaledattn.checker"):
            continue  # the checker imports nothing of the project: its refusals are its own
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                assert not bases & exceptions, f"{module}.{node.name} is an exception class"


def _loaded_by(statement: str) -> set[str]:
    script = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_importing_errors_loads_no_sympy_and_nothing_else_of_the_package() -> None:
    loaded = _loaded_by("import scaledattn.errors")
    assert not {m for m in loaded if m.split(".")[0] in ("sympy", "numpy", "mpmath")}
    assert {m for m in loaded if m.startswith("scaledattn")} == {"scaledattn", "scaledattn.errors"}


def test_derive_installs_the_printers_and_hints_and_the_package_no_import_hook() -> None:
    statement = (
        "import scaledattn; hooks = len(sys.meta_path);"
        " import scaledattn.kernel; from sympy.printing.str import StrPrinter;"
        " from scaledattn.kernel import expr, theorem;"
        " assert not theorem.REPORTS and not expr.NONZERO_TESTS;"
        " import scaledattn.derive;"
        " assert any(getattr(getattr(StrPrinter, n), '_scaledattn', False)"
        " for n in dir(StrPrinter));"
        " assert theorem.REPORTS and expr.NONZERO_TESTS and len(sys.meta_path) == hooks;"
        " from scaledattn.kernel import E, random_variables;"
        " X, = random_variables('X'); d = scaledattn.derive.calc('d', E(X), E(X)).qed();"
        " assert str(d) == 'd: E(X) = E(X) (0 steps; import scaledattn.render to show them)'"
    )
    loaded = _loaded_by(statement)
    assert {"scaledattn.strings", "scaledattn.explain"} <= loaded
    assert "scaledattn.calculator" not in loaded
    assert not any(m.startswith("scaledattn.render") for m in loaded)


@pytest.mark.parametrize("path", sorted((PACKAGE / "kernel").glob("*.py")), ids=lambda p: p.name)
def test_the_kernel_imports_only_sympy_and_the_standard_library(path: Path) -> None:
    for name in _all_imports(path):
        top = name.split(".")[0]
        if top == "scaledattn":
            continue
        assert top in KERNEL_THIRD_PARTY or top in sys.stdlib_module_names, (
            f"{path.name} imports {name}"
        )


def _code_lines(path: Path) -> int:
    """Lines of code: not blank, not a comment, not part of a docstring."""
    source = path.read_text(encoding="utf-8")
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docs.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return sum(
        1
        for n, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and n not in docs
    )


def test_the_kernel_stays_small_enough_to_audit() -> None:
    lines = sum(_code_lines(p) for p in (PACKAGE / "kernel").glob("*.py"))
    assert lines <= KERNEL_LINE_BUDGET, f"kernel: {lines} code lines; raise the budget on purpose"


PROOFS = sorted(p for p in (PACKAGE / "proofs").glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", PROOFS, ids=lambda p: p.stem)
def test_every_proof_module_states_results_assumptions_and_references(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    for heading in ("Main results", "Assumptions", "References", "Examples"):
        assert heading in doc, f"{path.name} lacks a {heading} section"
    module = importlib.import_module(f"scaledattn.proofs.{path.stem}")
    assert module.derivations, "a proof module lists its derivations"
    names = [d.name for d in module.derivations]
    if path.stem in names:
        assert names[0] == path.stem, "the main derivation, named like the module, comes first"
    assert 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")


def test_every_proof_module_is_registered() -> None:
    proofs = importlib.import_module("scaledattn.proofs")
    assert set(proofs.MODULES) == {p.stem for p in PROOFS}


def test_the_installed_packages_are_every_folder_of_modules() -> None:
    """``pip install .`` finds every package (setuptools' ``include`` patterns), and each
    folder of modules under scaledattn/ is a package (a folder without ``__init__.py``
    would be left out of the install)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    found = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert all(any(fnmatch.fnmatchcase(name, pat) for pat in patterns) for name in found)
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert all((folder / "__init__.py").is_file() for folder in folders), sorted(
        str(f) for f in folders if not (f / "__init__.py").is_file()
    )
