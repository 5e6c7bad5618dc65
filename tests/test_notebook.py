"""Notebook manners, in a real Jupyter kernel: rich displays and tab completion.

One notebook, run by nbclient in one ipykernel process: an Answer, a Theorem, a
Derivation written with ``calc`` (a Proof) and one built from the kernel's classes
each display as LaTeX and Markdown, and tab completion on ``scaledattn.`` offers the
public API and not the modules the package imports. Skipped, saying why, when the test
extras' nbclient and ipykernel are not installed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in ("nbclient", "ipykernel")),
    reason="needs nbclient and ipykernel (pip install -e '.[test]')",
)

ROOT = Path(__file__).resolve().parents[1]

CELLS = [
    "import scaledattn\n"
    "from scaledattn.derive import prove\n"
    "from scaledattn.registry import find_derivation",
    "scaledattn.scale(d_k=64, d_model=768, init_std=0.02)",
    "prove(find_derivation('variance_of_sum'))",
    "find_derivation('variance_of_sum')",
    "from scaledattn.kernel import Derivation, Equation, Step\n"
    "from scaledattn.kernel.expr import E, random_variables\n"
    "from scaledattn.kernel.rules import expectation_linear\n"
    "X, Y = random_variables('X Y')\n"
    "Derivation('linearity', Equation(E(X + Y), E(X) + E(Y)),"
    " (Step(expectation_linear, E(X) + E(Y)),))",
    "from IPython.core.completer import provisionalcompleter\n"
    "with provisionalcompleter():\n"
    "    offered = sorted({c.text for c in get_ipython().Completer.completions("
    "'scaledattn.', 11)})\n"
    "print(__import__('json').dumps(offered))",
]


@pytest.fixture(scope="module")
def outputs() -> list[list[dict[str, Any]]]:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    return [cell["outputs"] for cell in notebook.cells]


def data(cell: list[dict[str, Any]]) -> dict[str, str]:
    (shown,) = [o for o in cell if o["output_type"] == "execute_result"]
    result: dict[str, str] = shown["data"]
    return result


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_answers_theorems_and_derivations_display_as_latex_and_markdown_in_jupyter(
    outputs: list[list[dict[str, Any]]],
) -> None:
    answer, theorem, proof, plain = (data(outputs[n]) for n in (1, 2, 3, 4))
    assert answer["text/plain"] == "1536/625 = 2.4576"
    assert answer["text/latex"] == r"$\displaystyle c = \frac{1536}{625} = 2.4576$"
    assert "scale(d_k=64, d_model=768, init_std=1/50)" in answer["text/markdown"]
    assert theorem["text/latex"].startswith(r"$\displaystyle \operatorname{Var}")
    assert "**Theorem `variance_of_sum`**" in theorem["text/markdown"]
    assert "VERIFIED variance_of_sum: 6 steps checked by the kernel" in theorem["text/markdown"]
    assert r"\begin{aligned}" in proof["text/latex"]
    assert "VERIFIED variance_of_sum" in proof["text/markdown"]
    assert plain["text/latex"].startswith(r"$\displaystyle \mathbb{E}")
    assert "**Derivation `linearity`**" in plain["text/markdown"]
    assert "Not checked yet" in plain["text/markdown"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_tab_completion_offers_the_public_api_and_not_the_packages_imports(
    outputs: list[list[dict[str, Any]]],
) -> None:
    (printed,) = [o for o in outputs[5] if o["output_type"] == "stream"]
    offered = set(json.loads(printed["text"]))
    assert {"variance", "mean", "scale", "Answer"} <= offered
    assert not offered & {"sys", "importlib", "TYPE_CHECKING", "Any"}
