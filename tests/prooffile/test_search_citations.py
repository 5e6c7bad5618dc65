"""The search proposes theorems by their statements and proves only those it checks a step with."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from scaledattn.kernel import Cov, Derivation, E, Equation, Theorem, Var, random_variables
from scaledattn.prooffile.check import builtin_theorems
from scaledattn.prooffile.search import Citation, Search


class _Counted(Mapping[str, Theorem]):
    """The built-in theorems, counting the ones looked up (each lookup proves one)."""

    def __init__(self) -> None:
        self.inner = builtin_theorems()
        self.looked_up: list[str] = []

    def __getitem__(self, name: str) -> Theorem:
        self.looked_up.append(name)
        return self.inner[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.inner)

    def __len__(self) -> int:
        return len(self.inner)

    def statement(self, name: str) -> Any:
        return self.inner.statement(name)  # type: ignore[attr-defined]


def test_a_step_one_rule_justifies_proves_no_built_in_theorem() -> None:
    (x,) = random_variables("X")
    d = Derivation("t", Equation(Var(x), E(x**2) - E(x) ** 2), ())
    theorems = _Counted()
    found = Search(d, theorems).justify(Var(x), E(x**2) - E(x) ** 2, 1)
    assert found is not None
    assert found.rule_names == ("variance_def",)
    assert theorems.looked_up == []


def test_theorems_are_candidates_by_their_statements_and_only_the_one_cited_is_proved() -> None:
    x, y = random_variables("X Y")
    prev, claim = Var(x + y), Var(x) + Var(y) + 2 * Cov(x, y)
    d = Derivation("t", Equation(prev, claim), ())
    theorems = _Counted()
    search = Search(d, theorems)
    cited = [c for c in search.candidates(prev, claim) if isinstance(c, Citation)]
    assert len(cited) > 5
    assert theorems.looked_up == []  # proposed, none proved yet
    assert all(c.statement == theorems.statement(c.name) for c in cited)
    found = search.justify(prev, claim, 1)
    assert found is not None
    assert found.rule_names == ("variance_of_sum",)
    assert isinstance(found.results[0].step.rule, Theorem)  # the kernel's, checked
    assert set(theorems.looked_up) == {"variance_of_sum"}
