"""Operational meanings of the texts' qualitative words: a threshold, its reason, its source.

A sentence that says "uniform", "≈ 0", "vanishes" or "on the σ = 8 scale" is judged
under a stated threshold; the claim written for it in the claim language carries
that threshold (``Meaning.threshold`` appears verbatim in the claim, a test checks
it), and docs/claims.md shows the meaning beside the verdict. The same word gets
the same meaning in every text.

Examples
--------
>>> UNIFORM.threshold in "3*max(softmax([0.02, 0.01, 0.01])) <= 1.1"
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ALMOST_ALL",
    "HUNDREDS",
    "LR_LITERAL",
    "LR_STEP",
    "LR_STEP_GAP",
    "Meaning",
    "NOT_MUCH",
    "NOT_ONE_HOT",
    "NOT_VANISHED",
    "ONE_HOT",
    "OTHERS_ZERO",
    "SIGMA_SCALE",
    "TENS",
    "THOUSANDS",
    "TWO_SIGMA",
    "UNIFORM",
    "VANISHED",
]


@dataclass(frozen=True)
class Meaning:
    """A qualitative word, the operational reading it is judged under, and why.

    ``word`` is the text's word (with a gloss); ``reading`` the measurable statement;
    ``threshold`` the relation and bound as written in the claim; ``reason`` why this
    bound; ``source`` where the bound comes from.
    """

    word: str
    reading: str
    threshold: str
    reason: str
    source: str

    def short(self) -> str:
        """“word” := reading (threshold): what the claim was judged under."""
        return f"“{self.word}” := {self.reading} (threshold {self.threshold})"

    def text(self) -> str:
        """One line: “word” := reading (threshold; reason; source)."""
        return (
            f"“{self.word}” := {self.reading} (threshold {self.threshold}; why: {self.reason};"
            f" source: {self.source})"
        )


_SHARP = "lesson 000 §3: '训好的注意力目标格 >0.99' (a trained, sharp row puts > 0.99 on its key)"
_TENFOLD = (
    "a gradient an order of magnitude below the one it is compared with cannot be made up by"
    " the learning rate that suits the other; a smaller factor is a rescaling, not a vanishing"
)
_COMPARED = (
    "the texts' own comparison: the same scores (or draws) with and without 1/√d_k; the"
    " factor 10 is this ledger's, stated here"
)

UNIFORM = Meaning(
    "均匀 (uniform)",
    "no key gets more than 10% above its equal share: n·max p ≤ 1.1 (then, for 3 keys, every"
    " weight is within 20% of 1/n)",
    "<= 1.1",
    "uniform weights are all 1/n; 10% is the slack 'about equal' allows — the book's own"
    " 'almost uniform' row [0.337, 0.332, 0.332] is within 1.1%",
    "the definition of the uniform distribution; the 10% slack is this ledger's",
)
ONE_HOT = Meaning(
    "one-hot / 独占 (one key takes all)",
    "the largest weight is at least 0.99",
    ">= 0.99",
    "the lesson's own mark of a sharp row",
    _SHARP,
)
ALMOST_ALL = Meaning(
    "几乎所有 (almost all)",
    "the largest weight is at least 0.99",
    ">= 0.99",
    "the lesson's own mark of a sharp row",
    _SHARP,
)
NOT_ONE_HOT = Meaning(
    "不会只有一个 / 不会完全失控 (not one key only, not out of control)",
    "the largest weight is below 0.99 (not one-hot in the sense above)",
    "< 0.99",
    "the negation of one-hot, under the same bound",
    _SHARP,
)
OTHERS_ZERO = Meaning(
    "几乎为零 / 全是零 / 被忽略 (the other weights ≈ 0, ignored)",
    "the other keys together get at most 1%: 1 − max p ≤ 0.01",
    "<= 0.01",
    "the complement of 'one key takes all' (≥ 0.99)",
    _SHARP,
)
VANISHED = Meaning(
    "梯度几乎为零 / 趋近0 / 极其小 / 消失 (the gradient ≈ 0, vanishes)",
    "the gradient is at most a tenth of the same gradient with the 1/√d_k scale",
    "<= 1/10",
    _TENFOLD,
    _COMPARED,
)
NOT_VANISHED = Meaning(
    "不消失 (does not vanish)",
    "the gradient is more than a tenth of the same gradient with the 1/√d_k scale",
    "> 1/10",
    _TENFOLD,
    _COMPARED,
)
SIGMA_SCALE = Meaning(
    "σ = 8 量级 (on the σ = 8 scale)",
    "the scores' root mean square (their spread about q·k's mean 0) is nearer 8 than 2 on a"
    " log scale: above √(2·8) = 4",
    "> 4",
    "the lesson contrasts two scales only, ±2 at d_k = 4 and ±8 at d_k = 64; their geometric"
    " mean separates them",
    "lesson 000 §1 ('±8 的尺度', '±2 尺度'); q·k has mean 0 (theorem dot_product_mean)",
)
LR_STEP = Meaning(
    "每步迈学习率那么大 (steps the size of the learning rate)",
    "one update's largest logit change does not grow with σ: step without 1/√d_k over step"
    " with it (same draws, same learning rate) at most 2",
    "<= 2",
    "the sentence sets a step of fixed size against a gap that widens σ-fold (8×); a factor 2"
    " is a quarter of that widening",
    "lesson 000 §4; the widening is P3's gap ratio (measured(gap_ratio))",
)
LR_STEP_GAP = Meaning(
    "路却在按 σ 变宽 (the road widens while the step does not)",
    "relative to the top1 − top2 gap the step shrinks without 1/√d_k: (step/gap) unscaled"
    " over scaled at most 1/2",
    "<= 1/2",
    "a fixed step on an 8× wider gap is 8× smaller relative to it; 1/2 is the loosest bound"
    " that still says 'smaller'",
    "lesson 000 §4",
)
LR_LITERAL = Meaning(
    "学习率那么大 (literally: the size of the learning rate)",
    "one update's largest logit change within a factor 10 of the learning rate",
    "<= 10",
    "'the size of' read as the same order of magnitude",
    "lesson 000 §4; the order of magnitude is this ledger's",
)
NOT_MUCH = Meaning(
    "差别不大 / 影响可忽略 (not much difference, negligible)",
    "dividing by √d_k changes the largest weight by less than a factor 2",
    "< 2",
    "a factor 2 in the weight of the leading key is the least change a reader would call a"
    " difference; the same bound for every text",
    "this ledger's reading (004 '差别不大', 002 '缩放影响可忽略')",
)
TENS = Meaning(
    "几十 (tens)",
    "the standard deviation (the typical absolute value) is between 10 and 100",
    "< 100",
    "'tens' are the numbers with two digits",
    "the word itself",
)
HUNDREDS = Meaning(
    "上百 / 几百 (a hundred and more)",
    "typical scores reach 100: two standard deviations are at least 100",
    ">= 100",
    "two standard deviations hold 95% of a normal's mass: 'typical'",
    "the normal approximation of q·k (central limit theorem)",
)
THOUSANDS = Meaning(
    "几千倍 (several thousand times)",
    "the ratio is at least 1000",
    ">= 1000",
    "'thousands' start at 1000",
    "the word itself",
)
TWO_SIGMA = Meaning(
    "波动 / 典型值 (fluctuates between, typical values)",
    "the range mean ± 2 standard deviations",
    "2*std",
    "two standard deviations hold 95% of a normal's mass",
    "the book's own reading (001: '正负两个标准差')",
)
