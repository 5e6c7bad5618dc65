"""The mutants of the last mutation runs argued equivalent, each with its reason.

Data for ``scripts/mutation_report.py`` (which explains the groups): an argument names a
mutant by mutmut's number and quotes the mutated text, so that it goes *stale*, and
excuses nothing, once the function it was argued about changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Argument:
    """Why one mutant is equivalent, and the text it was argued about.

    ``new`` must occur in the mutant's ``+`` lines and ``old`` (if given) in its ``-``
    lines, both compared without white space; otherwise the argument is stale.
    """

    new: str
    reason: str
    old: str = ""

    def fits(self, lines: list[str]) -> bool:
        """Whether the mutant with these diff lines is the one argued about."""
        added = "".join(x[1:] for x in lines if x.startswith("+"))
        removed = "".join(x[1:] for x in lines if x.startswith("-"))
        return _squeeze(self.new) in _squeeze(added) and _squeeze(self.old) in _squeeze(removed)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _argue(function: str, fragments: dict[int, str], reason: str) -> dict[str, Argument]:
    """Arguments for mutants of ``function`` (module.x_name), by number: the + fragment."""
    return {f"{function}__mutmut_{n}": Argument(new, reason) for n, new in fragments.items()}


K = "scaledattn.kernel."
B = "scaledattn.moments.build."
_SHOWN = "the kernel and the answer rebuild (evaluate) every expression before use"
_NAME = "the name a softmax vector is shown with"
_ZIP = "a node and its rebuilt arguments always have the same length"
_NOTE = "a step's note"
_TITLE = "a derivation's name"
_ORDER = "display: how a disjunction is written (the kernel compares disjuncts as a set)"
_EVALUATES = "Eq(a, b) evaluated to true or false has the same prop_key as Eq(a, b) unevaluated"
_EQ_OR = (
    "Eq(x, ±√w) of a symbol x never evaluates to True/False, and prop_key compares a"
    " disjunction as a set"
)
_TAG = "a tag inside the comparison key, renamed alike for both sides"
_ATOM = "every SymPy object has args, and a node without arguments is an atom"
_DUMMY = "the name of a positive dummy"
_NO_MODULE = (
    "a class without a module is foreign either way: neither '' nor 'XXXX' starts with"
    " 'sympy.' or 'scaledattn.kernel.'"
)
_VAR_CONST = "Var(a) = a²·Var(1) for a constant a: both are 0, the rewrite stays an equality"
_IMPORT = (
    "runs only while the kernel is imported (before freeze()), before mutmut switches a"
    " mutant on; the table it fills is tested (every rule in test_rules' ACCEPT and REJECT)"
)


def _fresh_index_names() -> dict[int, str]:
    """fresh_index's mutants that only respell a candidate name (``"XXjXX"``, ``"J"``)."""
    names = ("i", "j", "l", "m", "r", "s", "t", "u", "v", "w")
    found = {1: 'preferred: str = "XXjXX"', 2: 'preferred: str = "J"'}
    for k, name in enumerate(names):
        for n, spelled in ((4 + 2 * k, f"XX{name}XX"), (5 + 2 * k, name.upper())):
            quoted = [f'"{spelled}"' if m == k else f'"{x}"' for m, x in enumerate(names)]
            found[n] = f"for name in (preferred, {', '.join(quoted)}):"
    return found


#: Single mutants argued equivalent, by mutmut's name, with the mutated text and the reason.
#: Reviewed against the run of 2026-12-01 (kernel): entries whose number had come to
#: name another mutant were renumbered or removed.
ARGUED: dict[str, Argument] = {
    # ----------------------------------------------------------- the calculator
    "scaledattn.moments.gaussian.x_standard_normal_moment__mutmut_4": Argument(
        "if (n) or True", "(0 − 1)!! = 1 = E[z⁰]"
    ),
    **_argue(B + "x_closed_mean", {1: "evaluate(None)", 2: "evaluate(False)"}, _SHOWN),
    **_argue(B + "x_closed_variance", {1: "evaluate(None)", 2: "evaluate(False)"}, _SHOWN),
    **_argue(B + "x__covariance", {2: "evaluate(None)", 3: "evaluate(False)"}, _SHOWN),
    **_argue(B + "x_scaled_std_derivation", {6: "evaluate(None)", 7: "evaluate(False)"}, _SHOWN),
    **_argue(B + "x_scaled_std_derivation", {29: "calc(None, Std("}, _TITLE),
    **_argue(B + "x_scaled_mean_derivation", {20: "calc(None, E("}, _TITLE),
    **_argue(B + "x_scale_derivation", {9: 's.call("SCALE")'}, _TITLE),
    **_argue(
        B + "x_all_steps",
        {1: "sum(None)"},
        "a count for the CLI's summary line, reached only by tests/cli (not selected)",
    ),
    B + "x__variance_to_sums__mutmut_251": Argument("note=None", _NOTE),
    B + "x__variance_to_sums__mutmut_254": Argument(")", _NOTE, old='note="declared moments;'),
    **_argue(
        B + "x__variance_to_sums",
        {338: '"XX k = μ_k', 339: "i.i.d. n(0, 1) (isserlis)", 340: "I.I.D. N(0, 1) (ISSERLIS)"},
        _NOTE,
    ),
    **_argue(B + "x__count_and_close", {23: "note = None"}, _NOTE),
    **_argue(
        B + "x__times",
        {6: "body.is_Number or not count.is_Number", 7: "body.is_Number and count.is_Number"},
        "display: the order of a product as written",
    ),
    # --------------------------------------------------------------- the kernel
    **_argue(
        K + "expr.x_fresh_index",
        _fresh_index_names(),
        "the spelling of a fresh index: the loop still skips every name in use, and the"
        " kernel compares bound indices up to renaming (a name in use is a survivor)",
    ),
    K + "calculus.x__exp_of_delta__mutmut_5": Argument(
        "sympy.preorder_traversal(None)",
        "a redundant guard: subst never replaces a delta under a binder of one of its"
        " indices (the binder discipline), and a delta is a constant for a derivative and"
        " a limit, so e^f = e^{f|δ=0} + (e^{f|δ=1} − e^{f|δ=0})·δ holds inside them too",
    ),
    K + "calculus.x__limit_at_infinity__mutmut_49": Argument(
        "return None if (value is None) and False else (value, NOTHING)",
        "a rewrite to None is no rewrite: _everywhere's visit returns the new term, a node"
        " whose visit gives None is kept, and NOTHING adds no assumption",
    ),
    K + "expr.xǁRandomVectorǁ__hash____mutmut_1": Argument(
        "hash(None)",
        "a constant hash keeps the hash contract (equal vectors, equal hashes); only speed changes",
    ),
    **_argue(
        K + "vectors.xǁSoftmaxVectorǁ__init__",
        {1: 'name: str = "XXpXX"', 2: 'name: str = "P"'},
        _NAME,
    ),
    **_argue(
        K + "vectors.xǁSoftmaxVectorǁ__getitem__",
        {8: "Softmax(self.scores.name, i, self.scores.dim, )"},
        _NAME,
    ),
    **_argue(K + "vectors.x_Lead", {16: "sympy.pretty(lam, )"}, "an assumption's label"),
    K + "vectors.x_Lead__mutmut_25": Argument(
        "KroneckerDelta(j, _index_symbol(w)), j, )", "an assumption's label", old="leads by"
    ),
    **_argue(
        K + "calculus.x__deriv_chain",
        {39: "c.is_Integer and c >= 0"},
        "SymPy evaluates f⁰ to 1: no power 0",
    ),
    **_argue(
        K + "calculus.x__deriv_chain",
        {40: "c.is_Integer and c > 1"},
        "SymPy evaluates f¹ to f: no power 1",
    ),
    **_argue(
        K + "rules.x__sqrt_mul",
        {9: "len(factors) < 2 and sympy.expand"},
        "sympy.factor is exact: its product always expands back to the radicand (the check"
        " is defensive)",
    ),
    **_argue(
        K + "rules.x__square_roots",
        {
            47: "evaluate=False), evaluate=None), NOTHING",
            50: "Eq(x, -root, evaluate=False), ), NOTHING",
            53: "Eq(x, root, evaluate=None)",
            56: "Or(Eq(x, root, ), ",
            57: "Eq(x, root, evaluate=True)",
            60: "Eq(x, -root, evaluate=None)",
            63: "Eq(x, -root, ), evaluate=False",
            65: "Eq(x, -root, evaluate=True)",
            66: "evaluate=False), evaluate=True), NOTHING",
        },
        _EQ_OR,
    ),
    **_argue(
        K + "rules.x__square_roots",
        {29: "(a.free_symbols & c.free_symbols)"},
        "the coefficients of a polynomial in x never contain x (the check is defensive)",
    ),
    **_argue(
        K + "rules.x__square_roots",
        {11: "x.is_real is not True and isinstance(x, RandomVariable)"},
        "an unknown x that is random makes the polynomial random (refused by is_random(p));"
        " x² = w ⇔ x = ±√w holds over the complex numbers too",
    ),
    **_argue(
        K + "rules.x__exclude_by_sign",
        {
            22: "if (len(keep) > 1) or True else",
            23: "Or(*keep, evaluate=None)",
            25: "Or(*keep, ) if",
            26: "Or(*keep, evaluate=True)",
            27: "if len(keep) >= 1 else",
        },
        _ORDER,
    ),
    **_argue(
        K + "rules.x__lift",
        {18: "parts), evaluate=None)", 20: "parts), ), used", 21: "parts), evaluate=True)"},
        _ORDER,
    ),
    **_argue(
        K + "rules.x__lift",
        {6: "Eq(lhs, rhs, evaluate=None)", 9: "Eq(lhs, rhs, )", 10: "Eq(lhs, rhs, evaluate=True)"},
        _EVALUATES,
    ),
    **_argue(
        K + "rules.x__clear_denominator",
        {15: "0, evaluate=None)", 18: "0, ), used", 21: "0, evaluate=True)"},
        _EVALUATES,
    ),
    **_argue(K + "expr.x_as_written", {1: "evaluate(None)"}, "evaluate(None) is falsy like False"),
    **_argue(
        K + "assumptions.x_sign_facts",
        {5: "sympy.Dummy(None, positive=True)", 7: "sympy.Dummy(positive=True)"},
        _DUMMY,
    ),
    **_argue(
        K + "rules.x__variance_const_mul",
        {5: "const == 1 and rand == 1", 9: "const == 1 or rand == 2"},
        _VAR_CONST,
    ),
    **_argue(
        K + "rules.x_prop_key",
        {
            8: '("XXtrueXX",)',
            9: '("TRUE",)',
            14: '("XXeqXX", p)',
            15: '("EQ", p)',
            16: '("XXorXX", frozenset',
            17: '("OR", frozenset',
            21: '("TRUE",)',
            22: '("XXeqXX", sympy.S.One)',
            24: '("XXotherXX", prop)',
            25: '("OTHER", prop)',
        },
        _TAG,
    ),
    **_argue(K + "expr.x__canon_cross", {12: "strict=None"}, _ZIP),
    **_argue(
        K + "rules.x__dot_def",
        {4: 'index("XXiXX")', 5: 'index("I")'},
        "the name of a bound index (the kernel renames bound indices canonically)",
    ),
    **_argue(
        K + "rules.x__independent_groups",
        {13: "for y in range(len(atoms))", 14: "range(x + 1, )", 15: "range(x - 1, len(atoms))"},
        "union-find over every pair, in either order or twice, gives the same groups",
    ),
    **_argue(
        K + "rules.x__expectation_mul_of_indep",
        {19: "len(groups) >= 1 and"},
        "one group is the product itself: E[UV] = E[UV], no change",
    ),
    **_argue(
        K + "rules.x__expectation_mul_of_indep",
        {23: "len(groups) >= len(best[0])"},
        "of two groupings with as many groups, either is licensed by the declared independence",
    ),
    **_argue(
        K + "rules.x__provably_distinct",
        {9: "i is None and j is None or i == j"},
        "the keys of one family have indices on all blocks or on none",
    ),
    **_argue(
        K + "rules.x__monomial",
        {5: "if (isinstance(f, Pow)) or True else"},
        "as_base_exp of a non-power is (f, 1)",
    ),
    **_argue(
        K + "rules.x__monomial",
        {9: "power.is_Integer and power >= 0"},
        "SymPy evaluates f⁰ to 1: no power 0",
    ),
    **_argue(
        K + "rules.x__monomial",
        {8: "power.is_Integer or power > 0"},
        "independence gives E[XᵃYᵇ] = E[Xᵃ]E[Yᵇ] for any powers; the restriction to positive"
        " integer powers is conservative",
    ),
    **_argue(
        K + "calculus.x__delta_eq",
        {6: "if (b.is_Integer) and False else"},
        "SymPy orders a delta's arguments numbers first, so its second argument is never the"
        " number",
    ),
    **_argue(
        K + "theorem.x__rejection",
        {34: "isinstance(derived, Expr) or isinstance(step.claim, Expr)"},
        "a rule maps an expression to an expression and a proposition to a proposition: both"
        " sides are Expr or neither",
    ),
    **_argue(
        K + "calculus.x__rational_limit",
        {
            2: "Dummy(None, positive=True)",
            3: 'Dummy("u", positive=None)',
            4: "Dummy(positive=True)",
            5: 'Dummy("u", )',
            6: 'Dummy("XXuXX", positive=True)',
            7: 'Dummy("U", positive=True)',
            8: 'Dummy("u", positive=False)',
        },
        "u is only the generator of the polynomials: its name and sign play no part",
    ),
    **_argue(
        K + "calculus.x__exp_to_power",
        {
            13: "x == 1 and not c.is_Integer",
            14: "x != 1 or not c.is_Integer",
            15: "x == 2 or not c.is_Integer",
            16: "x == 1 or c.is_Integer or",
            18: "x.is_real is not False",
        },
        "SymPy merges e^a·e^b and (e^a)^k itself: writing e^x of a real x as a positive"
        " unknown is a normalisation the limit does not need",
    ),
    **_argue(
        K + "calculus.x__exp_to_power",
        {27: "sympy.Dummy(None, positive=True)", 29: "sympy.Dummy(positive=True)"},
        _DUMMY,
    ),
    **_argue(
        K + "calculus.x__exp_to_power",
        {35: "or not expr.args and expr.is_Atom", 36: "Softmax)) and not expr.args or"},
        "an atom has no arguments, and the terms kept whole (sums, entries) are free of λ,"
        " checked by _admissible",
    ),
    **_argue(
        K + "calculus.x__admissible",
        {
            3: "depends_on(expr, None, defs, lam)",
            10: 'depends_on(expr, "XXXX", defs, lam)',
            16: "depends_on(expr, None, defs, lam)",
            23: 'depends_on(expr, "XXXX", defs, lam)',
        },
        "no vector is named '', 'XXXX' or None: only λ is looked for",
    ),
    **_argue(
        K + "rules.xǁRuleǁ_apply_prop",
        {4: "self.local(prop, ctx, None)"},
        "no rule on propositions reads the sum environment (they walk their own scopes)",
    ),
    **_argue(
        K + "theorem.x__kind",
        {5: '"XXcalcXX"', 6: '"CALC"'},
        "_equal tells only 'iff' apart: every other kind is compared as an equation",
    ),
    **_argue(
        K + "expr.x_canonical_indices",
        {5: "_canon(expr, 1)"},
        "the canonical names start one later, alike for both sides",
    ),
    **_argue(
        K + "expr.x__rebuild",
        {
            3: 'getattr(expr, "args", ()) and expr.is_Atom',
            7: 'getattr(expr, "args", None)',
            10: 'getattr(expr, "args", )',
        },
        _ATOM,
    ),
    # Argued after the run of 2026-12-01 (docs/testing.md, "Mutation testing").
    **_argue(
        K + "theorem.xǁAxiomǁapply",
        {1: "with evaluate(None):", 2: "with evaluate(False):"},
        "rebuild, Rule.apply and _Rewrite.apply each evaluate for themselves",
    ),
    **_argue(
        K + "theorem.xǁ_Rewriteǁapply",
        {
            15: 'getattr(e, "args", ()) and e.is_Atom',
            19: 'getattr(e, "args", None)',
            22: 'getattr(e, "args", ) or',
        },
        _ATOM,
    ),
    **_argue(
        K + "theorem.xǁ_Rewriteǁapply",
        {42: "scope), strict=None)", 45: "arg_scopes(e, scope), )))", 50: "scope), strict=False)"},
        "arg_scopes gives one scope per argument: the zip is always of equal lengths",
    ),
    **_argue(
        K + "theorem.xǁ_Rewriteǁapply",
        {51: "with evaluate(None):", 52: "with evaluate(False):"},
        "every comparison rebuilds the expression with evaluation on (same, prop_key); the"
        " rewritten term is otherwise only shown",
    ),
    **_argue(
        K + "theorem.x__theorem_rule",
        {3: "if (isinstance(t.statement, Equation)) or True else"},
        "an equivalence's sides are propositions, and _Rewrite rewrites only expressions"
        " (isinstance(e, Expr)), whose normal form is never a proposition's",
    ),
    **_argue(
        K + "theorem.x_axiom",
        {16: "Axiom(rule, _Rewrite(None, lhs, rhs))"},
        "the inner rewrite's name is never read: steps, errors and theorems name the Axiom",
    ),
    **_argue(
        K + "rules.x__sum_unroll",
        {7: "MAX_UNROLL + 2"},
        "a sum with a symbolic bound is not unrolled: MAX_UNROLL + 1 or + 2, both exceed it",
    ),
    **_argue(
        K + "rules.x_register",
        {3: "if rule.name not in _TABLE", 4: "RuntimeError(None)", 5: "_TABLE[rule.name] = None"},
        _IMPORT,
    ),
    **_argue(
        K + "binders.x__rename_inner",
        {
            1: 'getattr(e, "args", ()) and e.is_Atom',
            5: 'getattr(e, "args", None)',
            8: 'getattr(e, "args", )',
        },
        _ATOM,
    ),
    **_argue(
        K + "binders.xǁBinderǁwith_bound",
        {
            9: "zip(self.bound, new, strict=None)",
            12: "zip(self.bound, new, ))",
            13: "zip(self.bound, new, strict=False)",
        },
        "new symbols of another count are refused by the next zip (bound_at, new, strict=True)",
    ),
    **_argue(
        K + "binders.xǁBinderǁwith_bound",
        {
            23: "zip(self.bound_at, new, strict=None)",
            26: "zip(self.bound_at, new, ):",
            27: "zip(self.bound_at, new, strict=False)",
        },
        "new symbols of another count are refused by the zip before (bound, new, strict=True)",
    ),
    **_argue(
        K + "binders.x_fresh_like",
        {1: "return Dummy(None, **s.assumptions0)", 2: "return Dummy(**s.assumptions0)"},
        "the name of a fresh Dummy: a Dummy differs from every other symbol whatever its name",
    ),
    **_argue(
        K + "binders.x_fresh_like",
        {6: 's.name + "XX\'XX"'},
        "a fresh name: s + XX'XX (then primes until not taken) is as fresh as s'",
    ),
    **_argue(
        K + "binders.x_fresh_like",
        {8: 'name = "\'"', 10: 'name += "XX\'XX"'},
        "a fresh name: the loop stops at a name not taken, whatever it appends",
    ),
    **_argue(
        K + "binders.x__rebinds",
        {3: "names | set(b.bound) for b"},
        "True for any inner binder: _rename_inner then renames only the binders that rebind"
        " one of the names (the others keep their symbols): the same term, only slower",
    ),
    **_argue(
        K + "binders.x_subst",
        {7: "if (mapping) or True else expr"},
        "with nothing to replace, _subst rebuilds the same term (evaluated, as every"
        " comparison does anyway)",
    ),
    **_argue(
        K + "binders.x__subst_binder",
        {34: "_subst(a, inner) if (inner) or True else a"},
        "with nothing to replace, _subst rebuilds the same term (evaluated, as every"
        " comparison does anyway)",
    ),
    **_argue(
        K + "binders.x_rename_away",
        {2: "clash = set(b.bound) | avoid"},
        "renames every bound symbol when none clashes: alpha-conversion, the same term",
    ),
    **_argue(
        K + "binders.xǁScopeǁenter",
        {35: 'getattr(b, "is_limit", None)'},
        "a getattr default of None is falsy like False",
    ),
    **_argue(
        K + "binders.x_arg_scopes",
        {6: "inside if (n in e.scope_at) or True else scope"},
        "the arguments outside a binder's scope are its bound symbols and its bound (a"
        " dimension: a number or a symbol, never the binder's own index), atoms that no"
        " rule or theorem rewrites, whatever the scope",
    ),
    **_argue(
        K + "binders.x_walk_scoped",
        {
            1: 'getattr(e, "args", ()) or not e.is_Atom',
            4: 'getattr(e, "args", None) and',
            7: 'getattr(e, "args", ) and',
        },
        _ATOM,
    ),
    **_argue(
        K + "binders.x_walk_scoped",
        {
            18: "arg_scopes(e, scope), strict=None)]",
            21: "arg_scopes(e, scope), )]",
            26: "arg_scopes(e, scope), strict=False)]",
            31: "zip(new, e.args, strict=None)",
            34: "zip(new, e.args, ))",
            35: "zip(new, e.args, strict=False)",
        },
        "arg_scopes gives one scope per argument, and new one term per argument: the zips"
        " are always of equal lengths",
    ),
    **_argue(
        K + "expr.x__genuine",
        {3: 'cls.__module__ or "XXXX"'},
        _NO_MODULE,
    ),
    **_argue(
        K + "expr.x__rebind",
        {
            9: "zip(order, new, strict=None)",
            12: "zip(order, new, )}",
            13: "zip(order, new, strict=False)",
        },
        "new is _bound_names(depth, len(order)), exactly as long as order (a nesting"
        " deeper than its 64 names is refused there): the zip's strictness is never used",
    ),
    **_argue(
        K + "expr.x__canon_cross",
        {
            15: "zip(expr.indices, new, strict=None)",
            18: "zip(expr.indices, new, ))",
            19: "zip(expr.indices, new, strict=False)",
        },
        "new is _bound_names(depth, 2), exactly as long as a cross sum's two indices:"
        " the zip's strictness is never used",
    ),
    **_argue(
        K + "theorem.x__explain",
        {10: "break"},
        "display: which hint explains a rejection (the hints live outside the kernel); the"
        " step is rejected either way",
    ),
    **_argue(
        K + "theorem.x__refusal",
        {
            1: "kind_of = None",
            2: "isinstance(err, InvalidArgument)) and False",
            3: "isinstance(err, InvalidArgument)) or True",
            4: 'kind_of = "XXXX"',
            5: "type(None).__name__",
        },
        "display: whether a refusal's message names the class of the error it reports (a"
        " refusal either way, naming its theorem, step and rule)",
    ),
    **_argue(
        K + "expr.x_fresh_index",
        {30: "n -= 1", 31: "n += 2"},
        "the spelling of a fresh index past i, j, …, w: the loop still skips every i<n> in"
        " use (tests/kernel/test_bound_names.py), and bound indices compare up to renaming",
    ),
    **_argue(
        K + "calculus.x__sum_delta",
        {12: "if m == j and j in m.free_symbols:"},
        "_in_range accepts only an integer or an index symbol (bound, or an IndexRange's),"
        " and the only such m containing j is j itself, which the mutant still skips",
    ),
    **_argue(
        K + "calculus.x__sum_delta",
        {15: "break"},
        "a skipped delta δ(j, e) has e compound and containing j, and SymPy orders a"
        " product's factors so that every δ(j, m) with m an integer or a symbol (the only"
        " ones _in_range accepts) comes before it: nothing usable follows a skipped delta",
    ),
    **_argue(
        K + "binders.x__subst",
        {
            2: 'getattr(e, "args", ()) and e.is_Atom',
            6: 'getattr(e, "args", None)',
            9: 'getattr(e, "args", ) or',
        },
        _ATOM,
    ),
    **_argue(
        K + "binders.x__rename_inner",
        {13: "names | set(e.bound):"},
        "a binder that rebinds none of the names is renamed to its own symbols: the same term",
    ),
    **_argue(
        K + "binders.x__rename_inner",
        {26: "_fresh_for(e.bound, names | set(e.bound), taken)"},
        "the other bound index of a cross sum renamed too: alpha-conversion, the same term",
    ),
    **_argue(
        K + "expr.x__canonical_dummy",
        {8: 'sympy.Dummy(f"β{depth}", )'},
        "the canonical dummy without the bound symbol's assumptions: the term was evaluated"
        " and expanded with the symbol's own before renaming, and renaming (an injective"
        " substitution) re-evaluates with fewer facts, which can merge nothing",
    ),
    **_argue(K + "vectors.x_OneHot", {6: "j, None)"}, "an assumption's label"),
    **_argue(K + "vectors.x_Shift", {13: "s[j] + a, j, None)"}, "an assumption's label"),
    **_argue(
        K + "vectors.x_Lead", {12: "lead = None"}, "an assumption's label (lead is only shown)"
    ),
    **_argue(
        K + "expr.x__canonical_dummy",
        {6: "sympy.Dummy(None, **like.assumptions0)", 7: "sympy.Dummy(**like.assumptions0)"},
        "the name of a canonical dummy (kept in _CANONICAL, so the same at every use)",
    ),
    # Argued after the run of 2026-12-02 on the kernel of f20e3c9 (the admission checks).
    **_argue(
        K + "expr.x_in_language",
        {4: "_LANGUAGE.add(None)"},
        "a cache: kernel_class(cls) is computed again at each use, and a class the kernel's"
        " modules hold stays held (they are never changed after import)",
    ),
    **_argue(
        K + "expr.x__refused",
        {8: "if (isinstance(node, Symbol)) or True else None"},
        "_symbol_refused of a node that is no Symbol returns None: no VectorLabel, no kind"
        " of _KIND_FACTS, and its assumptions0 is Basic's {} (of SymPy's classes only"
        " Symbol and Indexed override it; Indexed is refused as not in the language, and a"
        " class of one's own that overrides it is refused either way, as not the kernel's);"
        " the nodes it adds to _DEFINED only fill the cache sooner",
    ),
    **_argue(
        K + "expr.x__symbol_refused",
        {15: "len(_DEFINED) <= 20_000", 16: "len(_DEFINED) < 20001", 17: "_DEFINED.add(None)"},
        "a cache of the symbols found admissible (one more, or none): a symbol's equality"
        " includes its kind and its facts, the only things the check reads past the"
        " vector-name check that comes before the cache, so every symbol is judged alike"
        " with or without it",
    ),
    **_argue(
        K + "assumptions.x__acyclic",
        {27: 'getattr(d, "body", None) for d in', 30: 'getattr(d, "body", ) for d in'},
        "the default is never read: a is a definition (the loop skips what has no body),"
        " and reached returns only definitions, each with a body",
    ),
    **_argue(
        K + "theorem.x__name_clash",
        {31: '("XXfunctionXX", facts)', 32: '("FUNCTION", facts)'},
        "the tag of a function's name is compared only with another function's (the same"
        " tag) or with what a symbol (a Symbol) or a vector entry (a triple) is: any"
        " spelling tells them apart alike",
    ),
    **_argue(
        K + "assumptions.xǁContextǁof",
        {27: 'is not None and getattr(a, "name", )'},
        "the name is read only of a definition (its body is not None), and every"
        " definition has one: the getattr default is never used",
    ),
    **_argue(
        K + "theorem.x__claim",
        {11: "unclaimable(term) if (isinstance(term, sympy.Basic)) or True else None"},
        "as_term returns a SymPy term or raises: the term is always a sympy.Basic",
    ),
    **_argue(
        K + "theorem.x__name_clash",
        {21: "if (isinstance(term, sympy.Basic)) or True else ()"},
        "preorder_traversal yields a term that is no SymPy object (an int, a Fraction)"
        " alone, and it is no Symbol, no applied function and has no vector; a claim of"
        " another kind is refused by its step, and anything the walk raises on is caught"
        " as a refusal of the statement: the verdict is the same",
    ),
    **_argue(
        K + "expr.x_normal_form",
        {
            1: "found = None",
            2: "found = _NORMAL_FORMS.get(None)",
            7: "found, keep = None",
            18: "_NORMAL_FORMS[expr] = None",
        },
        "the cache is not read (or keeps None, or the unpacking raises the TypeError its"
        " except catches): the normal form of a term of the language's classes (the only"
        " ones kept) is computed again, the same",
    ),
    **_argue(
        K + "expr.x_normal_form",
        {17: "len(_NORMAL_FORMS) > NORMAL_FORMS_KEPT"},
        "the cache of normal forms is cleared one entry later: only its size changes",
    ),
    **_argue(
        K + "theorem.x_audit",
        {38: "if (derivation.steps) or True else None"},
        "with no steps the statement is refused (a derivation needs at least one step)"
        " whatever ends is, and an exception the comparison raises is caught as a refusal",
    ),
    **_argue(K + "expr.x__canon", {95: 'getattr(expr, "args", None)'}, _ATOM),
    **_argue(
        K + "expr.x__canon",
        {80: "if (n in renamed.scope_at) or True else _canon(a, depth)"},
        "a binder's bounds canonicalised from the inner depth: the names they open start"
        " past the binder's own (no capture), alike for both sides compared",
    ),
    **_argue(
        K + "assumptions.x_reached",
        {22: "named = {getattr("},
        "each round finds every definition that a name in named names, so the names of"
        " earlier rounds find only definitions already found: keeping only the newest"
        " round's names finds the same definitions",
    ),
    **_argue(
        K + "calculus.x_eventual_sign",
        {22: "lead = form[0].LC() * form[1].LC()"},
        "only the sign of the lead is read: a/b and a·b have the same sign for b ≠ 0, and"
        " _rational_form keeps only a Q whose leading coefficient is non-zero",
    ),
    **_argue(
        K + "expr.x__sufficient",
        {21: 'if kind == "nonzero" and (k.is_even and'},
        "a divisor's base is a product only as written (SymPy spreads an integer power over"
        " a product as it evaluates), and the evaluated term's own conditions name each"
        " factor: in a claim every one must hold, and in an assumption or an axiom they"
        " are kept, so x²·y ≠ 0 is decided through x ≠ 0 and y ≠ 0 either way",
    ),
    **_argue(
        K + "calculus.x__limit_at_infinity",
        {50: "if (value is None) and False else (value, NOTHING)"},
        "a local rule returning (None, NOTHING) is read as no rewrite: _everywhere's visit"
        " returns the None and walk_scoped keeps the node, as when the rule returns None",
    ),
    **_argue(
        K + "calculus.x__rational_form",
        {2: "Dummy(None,", 3: "positive=None", 5: 'Dummy("u", )', 6: '"XXuXX"', 7: '"U"'},
        "u's name and facts are read nowhere: P and Q are polynomials in u (only integer"
        " powers of u are made) and only their degrees and leading coefficients are used",
    ),
    **_argue(
        K + "calculus.x__rational_form",
        {8: "positive=False"},
        "u's facts are read nowhere: P and Q are polynomials in u (only integer powers of"
        " u are made) and only their degrees and leading coefficients are used",
    ),
    **_argue(
        K + "calculus.x_converges",
        {18: "form[1].is_zero or"},
        "Q is never the zero polynomial in a form, and a zero P has degree −∞, at most Q's:"
        " either way a zero P converges",
    ),
    **_argue(
        K + "expr.x__genuine",
        {3: '"XXXX"'},
        "a class without a module: no module is named XXXX (nor is it a kernel or SymPy"
        " module), so it is no one's, as with the empty name",
    ),
    **_argue(
        K + "expr.x__sufficient",
        {12: '"CONVERGENT"', 13: '"XXsmoothXX"', 14: '"SMOOTH"'},
        "a limit's condition has the limit itself as its base, which is one factor with"
        " coefficient 1: the product branch returns it unchanged, as the early return does",
    ),
    **_argue(
        K + "expr.x__sufficient",
        {24: 'if kind == "NONZERO" or'},
        "a divisor's base is a product only as written (SymPy spreads an integer power over"
        " a product as it evaluates), and the evaluated term's own conditions name each"
        " factor: x²·y ≠ 0 is decided through x ≠ 0 and y ≠ 0 either way",
    ),
    **_argue(
        K + "calculus.x__rational_form",
        {4: "Dummy(positive=True)"},
        "u's name is read nowhere: only the degrees and leading coefficients of P and Q",
    ),
    **_argue(
        K + "expr.x__sufficient",
        {23: '"XXnonzeroXX"'},
        "a divisor's base is a product only as written, and the evaluated term's own"
        " conditions name each factor: x²·y ≠ 0 is decided through x ≠ 0 and y ≠ 0 either way",
    ),
    **_argue(
        K + "expr.x_by_own_facts",
        {1: "dropped: bool = False"},
        "by_own_facts reads neither dropped nor limits: they are there so that it can be"
        " the default of the check a claim's holds replaces",
    ),
    **_argue(
        K + "expr.x_conditions",
        {13: 'getattr(n, "is_limit", None)'},
        "is_limit is read only as a truth value, and None is false as False is",
    ),
    **_argue(
        K + "expr.x_conditions",
        {95: 'getattr(n, "args", None)', 98: 'getattr(n, "args", )'},
        "every node reached is SymPy's (the term passed _refused first), and each has args",
    ),
    **_argue(
        K + "theorem.x__claim",
        {66: "depends_on(term, None, defs, v)"},
        "with a symbol given, depends_on compares the name only with the vectors entries"
        " and weights belong to, and no vector's name is None or empty",
    ),
    **_argue(
        K + "theorem.x__claim",
        {80: "_bare(term, None)"},
        "a root whose argument holds λ bare stands in the body of a limit over λ, which then"
        " holds λ bare too: that limit's convergence has no form and is refused (holds'"
        " convergent branch), so the claim is refused whatever the root's answer",
    ),
    **_argue(
        K + "theorem.x__claim",
        {98: "isinstance(term, sympy.Basic)) or True"},
        "as_term returns a SymPy term or raises: the test is always true where it is reached",
    ),
    **_argue(
        K + "vectors.x_nonnegative",
        {16: "if c <= 0 and"},
        "a term of an Add has a non-zero coefficient (SymPy drops 0·t): c = 0 never occurs",
    ),
    **_argue(
        K + "calculus.x__limit_at_infinity",
        {18: "if inner is None and eventual_sign("},
        "a claim's root inside a limit is admitted only where its argument is ≥ 0 for large λ"
        " (the claim check decides it by the same eventual_sign): the rule's own check of it"
        " never refuses what the admission let through",
    ),
    **_argue(
        K + "expr.x_conditions",
        {70: 'getattr(n, "is_limit", None)'},
        "is_limit is read only as a truth value, and None is false as False is",
    ),
    **_argue(
        K + "theorem.x__claim",
        {73: 'depends_on(term, "XXXX", defs, v)'},
        "with a symbol given, depends_on compares the name only with the vectors entries"
        " and weights belong to, and no vector is named XXXX (names are identifiers)",
    ),
    **_argue(
        K + "theorem.x__claim",
        {77: "bare = None"},
        "a root whose argument holds λ bare stands in the body of a limit over λ, which then"
        " holds λ bare too: that limit's convergence has no form and is refused (holds'"
        " convergent branch), so the claim is refused whatever the root's answer",
    ),
    **_argue(
        K + "expr.x_conditions",
        {25: 'getattr(n, "is_derivative", None)'},
        "smooth is read only as a truth value, and None is false as False is",
    ),
    **_argue(
        K + "expr.x__sufficient",
        {11: '"XXconvergentXX"'},
        "a limit's condition has the limit itself as its base, which is one factor with"
        " coefficient 1: the product branch returns it unchanged, as the early return does",
    ),
    **_argue(
        K + "expr.x_conditions",
        {
            9: 'smooth or getattr(n, "is_derivative", None)',
            71: 'elif getattr(n, "is_limit", None):',
            88: 'elif getattr(n, "is_derivative", None):',
            108: 'if getattr(n, "args", None):',
        },
        "read only as a truth value, and None is false as False and () are",
    ),
    **_argue(K + "expr.x_conditions", {111: 'if getattr(n, "args", ):'}, _ATOM),
    **_argue(
        K + "expr.x_conditions",
        {
            117: "scope), strict=None)",
            120: "arg_scopes(n, scope), ))",
            125: "scope), strict=False)",
        },
        "arg_scopes gives one scope per argument: the zip is always of equal lengths",
    ),
    **_argue(
        K + "binders.xǁScopeǁenter",
        {35: 'getattr(b, "is_limit", None)'},
        "read only as a truth value, and None is false as False is",
    ),
    **_argue(
        K + "binders.x_arg_scopes",
        {3: 'getattr(e, "is_derivative", None)'},
        "read only as a truth value, and None is false as False is",
    ),
    **_argue(
        K + "binders.x_arg_scopes",
        {22: "inside if (n in e.scope_at) or True else scope"},
        "a binder's other arguments are its bound symbols and its bounds (dimension symbols"
        " and numbers): no rule rewrites and no condition stands there, so the facts read"
        " at them do not matter",
    ),
    **_argue(
        K + "calculus.x_cases",
        {29: "depends_on(d, None, defs, lam)", 36: 'depends_on(d, "XXXX", defs, lam)'},
        "with a symbol given, depends_on compares the name only with the vectors entries"
        " and weights belong to: a vector is never named '' or None, and XXXX only by a user"
        " who names one so (then a delta of its entries is refused, more cautiously)",
    ),
    **_argue(
        K + "calculus.x_cases",
        {41: "indexed_by(f, None)"},
        "after the unfolding an entry at an index growing with λ can only come from a"
        " definition's body (softmax_def and the sum rules bring none: sum_delta needs"
        " 1 ≤ λ ≤ n, which no fact visible inside the limit gives), and the definitions"
        " reached are read for one before the unfolding",
    ),
    **_argue(
        K + "calculus.x_cases",
        {63: "strict=None)))", 66: "zip(deltas, v, )))", 67: "strict=False)))"},
        "product(..., repeat=len(deltas)) gives tuples of len(deltas): equal lengths",
    ),
    **_argue(
        K + "expr.x_unclaimable",
        {23: "_refused(term) and _refused(evaluated)"},
        "every caller admits the term first (as_term refuses what _refused refuses), so"
        " _refused(term) is None here and only the evaluated term's answer counts",
    ),
    **_argue(
        K + "expr.x_unclaimable",
        {
            35: "conditions(term, None)",
            37: "conditions(term, ),",
            39: "conditions(evaluated, None)",
            41: "conditions(evaluated, )",
        },
        "smooth is true only for a definition's body, which Entries rebuilds before the"
        " check: the written and the evaluated term are the same, and either reading, with"
        " smooth, finds every condition (None is false as False is)",
    ),
    **_argue(
        K + "theorem.x__claim",
        {10: '"XXsmoothXX", "free"'},
        "a smooth condition's base is a limit or a delta of entries: no fact, form, sign for"
        " large λ or case makes one hold (is_smooth is no SymPy fact, _SIGNS has no smooth)",
    ),
    **_argue(
        K + "theorem.x_check_step",
        {60: "if (result.ok) or True else result"},
        "a refused step's used set is read by no verdict: audit makes a Theorem only when"
        " every step is accepted, and reports name the rule and the terms",
    ),
    **_argue(
        K + "theorem.x__admitted",
        {2: "if id(None) not in seen", 5: "seen[id(x)][1] is not x", 6: "seen[id(x)][0] is x:"},
        "the memo only saves work: each mutant admits a claim again where the original reuses"
        " its admission, with the same result (x is kept in the memo, so an id is never"
        " reused within one audit, and admitting is deterministic)",
    ),
    **_argue(
        K + "theorem.x_audit",
        {16: "derivation, theorems, None))", 22: "derivation, theorems, ))"},
        "without the shared memo each step admits its claims again: the same results, slower",
    ),
    **_argue(
        K + "theorem.x_audit",
        {43: "if (derivation.steps) or True else None"},
        "with no step the statement is refused as needing one, whatever ends is",
    ),
    **_argue(
        K + "theorem.x__claim",
        {11: '"SMOOTH", "free"'},
        "a smooth condition's base is a limit or a delta of entries: no fact, form, sign for"
        " large λ or case makes one hold (is_smooth is no SymPy fact, _SIGNS has no smooth)",
    ),
    **_argue(
        K + "theorem.x__claim",
        {78: "depends_on(term, None, defs, s)", 85: 'depends_on(term, "XXXX", defs, s)'},
        "with a symbol given, depends_on compares the name only with the vectors entries"
        " and weights belong to: a vector is never named '' or None, and XXXX only by a user"
        " who names one so (then the condition is refused, more cautiously)",
    ),
    **_argue(
        K + "vectors.x_indexed_by",
        {
            10: "arg_scopes(e, scope), strict=None))",
            13: "arg_scopes(e, scope), ))",
            18: "arg_scopes(e, scope), strict=False))",
        },
        "arg_scopes gives one scope per argument: the zip is always of equal lengths",
    ),
    **_argue(
        K + "assumptions.xǁMomentǁ__init__",
        {9: 'negative = ""'},
        "read only as a truth value, and '' is false as None is",
    ),
}
