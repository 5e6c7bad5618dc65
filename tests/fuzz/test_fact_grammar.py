"""The fuzzer's contexts come from a grammar of facts, with the cases of issue 30."""

from __future__ import annotations

from scaledattn.errors import InvalidArgument
from scaledattn.fuzz.generate import INDICES, draw_aimed, draw_context, draw_fact
from scaledattn.kernel.assumptions import Moment
from scaledattn.kernel.binders import bound_symbols
from scaledattn.kernel.expr import CrossSum, IndexSum
from scaledattn.kernel.vectors import Lim
from scaledattn.numeric.worlds import RandomChooser


def test_drawn_facts_have_binders_in_their_left_side_and_never_a_bound_index_in_the_value() -> None:
    ch = RandomChooser(0)
    binders: set[type] = set()
    refused = 0
    for _ in range(400):
        try:
            fact = draw_fact(ch)
        except InvalidArgument:
            refused += 1  # a value naming an index the left side binds: the discipline
            continue
        assert isinstance(fact, Moment)
        assert not bound_symbols(fact.lhs) & fact.value.free_symbols
        binders |= {type(b) for b in fact.lhs.atoms(IndexSum, CrossSum, Lim)}
    assert binders == {IndexSum, CrossSum, Lim}
    assert refused > 0


def test_indices_of_every_admitted_kind_are_drawn() -> None:
    kinds = {(s.is_positive, s.is_nonnegative) for s in INDICES}
    assert kinds == {(True, True), (None, True), (None, None)}


def test_aimed_terms_make_each_rarely_rewriting_rule_rewrite() -> None:
    from scaledattn.fuzz.campaign import apply_rule

    ch = RandomChooser(1)
    hits = dict.fromkeys(
        ("substitute_moment", "expectation_mul_of_indep", "sqrt_mul", "deriv_mul",
         "delta_distinct"), 0,
    )  # fmt: skip
    for _ in range(60):
        try:
            context, term = draw_aimed(ch, draw_context(ch))
        except (InvalidArgument, TypeError, ValueError):  # as draw_case: a plain term then
            continue
        for rule in hits:
            try:
                hits[rule] += apply_rule(rule, term, context) != term
            except Exception:  # a rule that refuses the term: no rewrite
                continue
    assert min(hits.values()) >= 6, hits
