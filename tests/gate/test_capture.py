"""Review 30, finding 1 (09): a definition's free index is never captured by a binder.

``--assume "Y = q_m"`` makes Y the m-th component for the m outside; ``sum(Y, m, 1, d_k)``
would read it as Σₘ qₘ (a false VERIFIED of ``Var(sum(Y, m, 1, d_k)) = d_k``). A sum, a
cross sum or a limit that binds a name free in a definition used in its body is refused in
one line; the index a norm adds avoids the names free in the definitions (and the
subscripts written inside it).
"""

from __future__ import annotations

import pytest

from scaledattn.claims.verify import parse_assumption, parse_claim, prepare
from scaledattn.cli import main
from scaledattn.errors import InvalidArgument

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    ("claim", "assumptions"),
    [
        ("Var(sum(Y, m, 1, d_k)) = d_k", ["Y = q_m"]),
        ("sum(E(Y*q_m), m, 1, d_k) = d_k", ["Y = q_m"]),
        ("sum(E(Y), m, 1, d_k) = E(X)*sum(m, m, 1, d_k)", ["Y = m*X", "E(X) = 1"]),
        (
            "sum(E(Y), m, 1, d_k) = sum(E(X)*delta(m, 1), m, 1, d_k)",
            ["Y = delta(m, 1)*X", "E(X) = 1"],
        ),
        (
            "cross_sum(E(Y), m, l, 1, d_k) = E(X)*cross_sum(m, m, l, 1, d_k)",
            ["Y = m*X", "E(X) = 1"],
        ),
        ("cross_sum(E(Y), l, m, 1, d_k) = 0", ["Y = m*X", "E(X) = 1"]),
        ("lim(E(Y)/lambda, lambda) = 1", ["Y = lambda*X", "E(X) = 1"]),
        ("sum(E(Z), m, 1, d_k) = 0", ["Y = q_m", "Z = 2*Y"]),  # through a second definition
    ],
)
def test_a_binder_of_a_name_free_in_a_used_definition_is_refused(
    claim: str, assumptions: list[str], capsys: Capture
) -> None:
    argv = ["verify", claim] + [a for line in assumptions for a in ("--assume", line)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "which is free in the definition of" in err
    assert "VERIFIED" not in err


def test_a_binder_of_another_name_is_read_as_written() -> None:
    setup = prepare(parse_claim("sum(E(Y), l, 1, d_k) = d_k*m"),
                    [parse_assumption(a) for a in ("Y = m*X", "E(X) = 1")])  # fmt: skip
    assert "m" in str(setup.sides[0])


def test_a_definition_with_its_own_binder_may_be_summed_over_its_bound_name() -> None:
    # Y = Σᵢ qᵢ has no free i: Σᵢ Y is d_k·Y, no capture.
    setup = prepare(parse_claim("E(sum(Y, i, 1, d_k)) = 0"),
                    [parse_assumption("Y = sum(q_i, i, 1, d_k)")])  # fmt: skip
    assert "Sum" in str(setup.sides[0])  # built without a refusal


@pytest.mark.parametrize(
    ("claim", "assumptions", "free"),
    [
        ("E(norm(q - Y*k)**2) = 0", ["Y = q_i"], "q_i"),
        ("E(norm(q - q_i*k)**2) = 0", [], "q_i"),  # a subscript written inside the norm
    ],
)
def test_the_index_a_norm_adds_avoids_the_free_names(
    claim: str, assumptions: list[str], free: str
) -> None:
    setup = prepare(parse_claim(claim), [parse_assumption(a) for a in assumptions])
    side = setup.sides[0]
    assert "i" in {str(s) for s in side.free_symbols}, f"the norm captured {free}: {side}"
    assert free in str(side)


def test_the_builder_refuses_it_without_the_verifier() -> None:
    from scaledattn.language.names import Names
    from scaledattn.language.terms import TermBuilder, read

    names = Names()
    names.definitions["Y"] = read("q_m")
    with pytest.raises(InvalidArgument, match="binds m"):
        TermBuilder(names, "sum(Y, m, 1, d_k)").term(read("sum(Y, m, 1, d_k)"))
