"""The book chapter (001): the dot product's growth, softmax worked by hand, the √d scale."""

from __future__ import annotations

from scaledattn.claims.ledger.entry import LedgerEntry
from scaledattn.claims.ledger.meaning import (
    ALMOST_ALL,
    OTHERS_ZERO,
    TENS,
    TWO_SIGMA,
    UNIFORM,
    Meaning,
)

SOURCE = "001_a43a78bc7663ccac.txt"


def _e(quote: str, claim: str, *assume: str, condition: str = "", note: str = "",
       inconsistency: bool = False, meaning: Meaning | None = None,
       context: str = "") -> LedgerEntry:  # fmt: skip
    return LedgerEntry(SOURCE, quote, claim, tuple(assume), condition, note, inconsistency, meaning,
                 context)  # fmt: skip


ENTRIES: tuple[LedgerEntry, ...] = (
    _e("如果每个维度的值大约在 -1 到 1 之间，那 1,536 次相乘得到的 1,536 个数字（有正有负）加起来，结果的绝对值大约在几十的量级",
       "10 <= std(dot(q, k, 1536)) < 100", "Var(q_i) = 1/3", "Var(k_i) = 1/3",
       note="values spread evenly over [−1, 1] have variance 1/3", meaning=TENS),
    _e("但如果维度从 1,536 增加到 6,144（四倍）", "6144 / 1536 = 4"),
    _e("点积的绝对值也会大致增加到原来的四倍——因为有四倍多的项被加了起来",
       "std(dot(q, k, 6144)) / std(dot(q, k, 1536)) ≈ 4"),
    _e("两个 d 维向量的点积的方差等于 d", "Var(dot(q, k)) = d_k"),
    _e("标准差（方差的平方根）就是 √d", "std(dot(q, k)) = sqrt(d_k)"),
    _e("维度 1,536 的标准差 ≈ 39", "std(dot(q, k, 1536)) ≈ 39"),
    _e("维度 6,144 的标准差 ≈ 78", "std(dot(q, k, 6144)) ≈ 78"),
    _e("点积的绝对值也会大致增加到原来的四倍 … 维度 1,536 的标准差 ≈ 39。维度 6,144 的标准差 ≈ 78",
       "rounded(78) / rounded(39) ≈ 4", note="the text's own figures", inconsistency=True),
    _e("e^2.0 = 7.389 … e^1.0 = 2.718 … e^0.1 = 1.105",
       "exp([2.0, 1.0, 0.1]) ≈ [7.389, 2.718, 1.105]"),
    _e("总和 = 7.389 + 2.718 + 1.105 = 11.212", "7.389 + 2.718 + 1.105 = 11.212",
       condition="as the sum of the rounded terms"),
    _e("总和 = 7.389 + 2.718 + 1.105 = 11.212", "sum(exp([2.0, 1.0, 0.1])) ≈ 11.212",
       condition="as the sum of the exponentials themselves"),
    _e("softmax = [7.389/11.212, 2.718/11.212, 1.105/11.212]",
       "[7.389, 2.718, 1.105] / 11.212 ≈ [0.659, 0.242, 0.099]"),
    _e("输入：[2.0, 1.0, 0.1] … = [0.659, 0.242, 0.099]",
       "softmax([2.0, 1.0, 0.1]) ≈ [0.659, 0.242, 0.099]"),
    _e("最大的数字（2.0）得到了最大的概率（65.9%），最小的（0.1）得到了最小的概率（9.9%）",
       "[max(softmax([2.0, 1.0, 0.1])), min(softmax([2.0, 1.0, 0.1]))] ≈ [65.9%, 9.9%]"),
    _e("e^20 = 485,165,195 … e^10 = 22,026 … e^1 = 2.718",
       "exp([20, 10, 1]) ≈ [485165195, 22026, 2.718]"),
    _e("输入：[20.0, 10.0, 1.0] … softmax ≈ [0.99998, 0.00005, 0.00000]",
       "softmax([20.0, 10.0, 1.0]) ≈ [0.99998, 0.00005, 0.00000]"),
    _e("几乎所有的概率都集中在了最大的那个值上", "max(softmax([20.0, 10.0, 1.0])) >= 0.99",
       meaning=ALMOST_ALL),
    _e("只有分数最高的 token 得到关注，其他 token 的注意力权重几乎为零",
       "1 - max(softmax([20.0, 10.0, 1.0])) <= 0.01", meaning=OTHERS_ZERO),
    _e("输入：[0.02, 0.01, 0.01] … softmax ≈ [0.337, 0.332, 0.332]",
       "softmax([0.02, 0.01, 0.01]) ≈ [0.337, 0.332, 0.332]"),
    _e("几乎是均匀分布——所有 token 得到的注意力差不多",
       "3*max(softmax([0.02, 0.01, 0.01])) <= 1.1",
       meaning=UNIFORM),
    _e("d = 1,536 时，√d ≈ 39.2", "sqrt(1536) ≈ 39.2"),
    _e("除以 39.2 之后，原本绝对值几十的分数被压缩到 ±1 左右",
       "std(dot(q, k, 1536) / sqrt(1536)) = 1",
       condition="'±1' read as one standard deviation, unit-variance components"),
    _e("除以 39.2 之后，原本绝对值几十的分数被压缩到 ±1 左右",
       "2*std(dot(q, k, 1536) / sqrt(1536)) ≈ 1", meaning=TWO_SIGMA,
       condition="'±1' read as the chapter reads typical values later (± two standard"
                 " deviations), with unit-variance components, as the chapter assumes later"),
    _e("除以 39.2 之后，原本绝对值几十的分数被压缩到 ±1 左右",
       "2*std(dot(q, k, 1536) / sqrt(1536)) ≈ 1", "Var(q_i) = 1/3", "Var(k_i) = 1/3",
       meaning=TWO_SIGMA,
       condition="the same reading, with the chapter's first values 'between −1 and 1'"
                 " (spread evenly: variance 1/3), the scores it calls 'tens'"),
    _e("除以 √d 的目的是让缩放后的点积的方差约等于 1，无论 d 多大",
       "Var(dot(q, k)/sqrt(d_k)) = 1"),
    _e("方差为 d 的随机变量，除以 √d 之后，方差变为 d / (√d)² = d / d = 1",
       "Var(X/sqrt(d_k)) = d_k/sqrt(d_k)^2 = d_k/d_k = 1", "Var(X) = d_k"),
    _e("方差为 1 意味着点积的典型值大约在 -2 到 +2 之间（正负两个标准差）",
       "[E(X) - 2*std(X), E(X) + 2*std(X)] = [-2, 2]", "X = dot(q, k)/sqrt(d_k)",
       meaning=TWO_SIGMA),
)  # fmt: skip
