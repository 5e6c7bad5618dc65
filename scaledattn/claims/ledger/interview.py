"""The interview article (004): coins, the variance of q·k, softmax scenes, the √dk scale."""

from __future__ import annotations

from scaledattn.claims.ledger.entry import LedgerEntry
from scaledattn.claims.ledger.meaning import (
    HUNDREDS,
    NOT_MUCH,
    NOT_ONE_HOT,
    OTHERS_ZERO,
    TWO_SIGMA,
    VANISHED,
    Meaning,
)

SOURCE = "004_59b122b8ce81be9e.txt"


def _e(quote: str, claim: str, *assume: str, condition: str = "", note: str = "",
       inconsistency: bool = False, meaning: Meaning | None = None,
       context: str = "") -> LedgerEntry:  # fmt: skip
    return LedgerEntry(SOURCE, quote, claim, tuple(assume), condition, note, inconsistency, meaning,
                 context)  # fmt: skip


HEADS = "Z = (dot(q, k, 512) + 512)/2"

ENTRIES: tuple[LedgerEntry, ...] = (
    _e("但如果你抛 512 枚硬币呢？正面数量可能在 200 到 350 之间波动",
       "[E(Z) - 2*std(Z), E(Z) + 2*std(Z)] ≈ [200, 350]", HEADS,
       note="the heads of 512 fair coins have the law of (q·k + 512)/2 with coin"
            " components (each q_i k_i is a fair ±1 coin)", meaning=TWO_SIGMA),
    _e("这个数字大概在 0 到 2 之间，差距不会太大",
       "[E(Z) - 2*std(Z), E(Z) + 2*std(Z)] ≈ [0, 2]", "Z = (dot(q, k, 2) + 2)/2",
       note="the heads of 2 fair coins, read as the 512 coins are", meaning=TWO_SIGMA),
    _e("如果维度 dk 只有 64，点积结果的方差大概是 64", "Var(dot(q, k, 64)) = 64"),
    _e("但如果 dk 是 512，点积结果的方差就变成了 512", "Var(dot(q, k, 512)) = 512"),
    _e("有的点积结果可能是几十，有的可能是几百甚至更大", "2*std(dot(q, k, 512)) >= 100",
       meaning=HUNDREDS, note="at the article's d_k = 512"),
    _e("数值范围一下子大了 8 倍", "Var(dot(q, k, 512)) / Var(dot(q, k, 64)) = 8",
       condition="of the variance"),
    _e("数值范围一下子大了 8 倍", "std(dot(q, k, 512)) / std(dot(q, k, 64)) ≈ 8",
       condition="of the range of values (the standard deviation), as the sentence says"),
    _e("场景 A：分数是 60、65、70 → softmax 后大概是 0.25、0.30、0.35",
       "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]"),
    _e("场景 B：分数是 1、2、100 → softmax 后大概是 0.00、0.00、1.00",
       "softmax([1, 2, 100]) ≈ [0.00, 0.00, 1.00]"),
    _e('当点积结果变得很大很悬殊时，softmax 的输出会变成一种"一个很强、其他全是零"的极端分布',
       "lim(leader_weight) = 1",
       note="a general statement (as the scores grow apart): the limit is its judge"),
    _e("反向传播的时候，梯度会变得极其小",
       "jacobian_norm(softmax([20, 5])) / jacobian_norm(softmax([20, 5] / sqrt(512))) <= 1/10",
       condition="of the gradient back through the softmax (its Jacobian), at the article's"
                 " d_k = 512 example (20 against 5) against its scaled scores",
       meaning=VANISHED, context="lim(backward) = 0"),
    _e("反向传播的时候，梯度会变得极其小",
       "max(softmax([20, 5])) / max(softmax([20, 5] / sqrt(512))) <= 1/10",
       condition="of the cross-entropy gradient p − y at the same example, the target at the"
                 " score 5",
       meaning=VANISHED, context="lim(p_minus_y) = sqrt(2)",
       note="with two keys and the target at the lower score ‖p − y‖ = √2·max p, so the"
            " gradients are in the ratio of the leading weights"),
    _e("反向传播的时候，梯度会变得极其小 … 这就是传说中的梯度消失", "lim(backward) = 0",
       condition="of the gradient sent back through the softmax from a loss on its output"),
    _e("反向传播的时候，梯度会变得极其小 … 这就是传说中的梯度消失", "lim(p_minus_y) = 0",
       condition="of the cross-entropy gradient ∂L/∂s = p − y on a wrong target"),
    _e("两个独立的这样分布的向量做点积，结果的方差就等于 dk", "Var(dot(q, k)) = d_k"),
    _e("所以 Q · K^T 的标准差是 √dk", "std(dot(q, k)) = sqrt(d_k)"),
    _e("为了让这个标准差恢复到 1（和输入保持一致），我们需要除以 √dk",
       "std(dot(q, k)/sqrt(d_k)) = 1"),
    _e("1 / √dk × √dk = 1", "1/sqrt(d_k) * sqrt(d_k) = 1"),
    _e("不是拍脑袋选的，是唯一正确的选择", "Var(dot(q, k)/c) = 1 <=> c = sqrt(d_k)",
       condition="for the target variance 1"),
    _e("当然，理论上任何能让方差保持稳定的缩放都可以",
       "Var(dot(q, k)/c) = sigma^2 <=> c = sqrt(d_k)/sigma",
       condition="each target variance σ² has its own unique scale, proportional to √dk"),
    _e("做缩放：除以 √512 ≈ 22.6", "sqrt(512) ≈ 22.6"),
    _e("点积结果变成 20/22.6 ≈ 0.89", "20/sqrt(512) ≈ 0.89"),
    _e("5/22.6 ≈ 0.22", "5/sqrt(512) ≈ 0.22"),
    _e("不做缩放：softmax(20) ≈ 1，其他都是 0", "softmax([20, 5]) ≈ [1, 0]",
       note="one other position, at the average 5"),
    _e("不做缩放：softmax(20) ≈ 1，其他都是 0", "1 - max(softmax([20, 5])) <= 0.01",
       meaning=OTHERS_ZERO, note="one other position, at the average 5"),
    _e("softmax(0.89) ≈ 0.71，softmax(0.22) ≈ 0.29", "softmax([0.89, 0.22]) ≈ [0.71, 0.29]"),
    _e("注意力分散开了，虽然有侧重但不会只有一个选手", "max(softmax([20, 5] / sqrt(512))) < 0.99",
       meaning=NOT_ONE_HOT),
    _e("dk 较小时（64 左右），除不除 √dk 差别不大",
       "measured(max_weight_unscaled) / measured(max_weight_scaled) < 2",
       note="P2 at d_k = 64", meaning=NOT_MUCH),
    _e("softmax 不会完全失控", "measured(max_weight_unscaled) < 0.99", meaning=NOT_ONE_HOT,
       note="P2 at d_k = 64 without 1/√d_k"),
    _e("这就是为什么 Transformer 固定用 dk = 512", "512 / 8 = 512",
       note="Vaswani et al. 2017, §3.2.2: d_model = 512 and h = 8 heads, so d_k = d_model/h"),
    _e('所以严格来说，√dk 的推导依赖一个假设："Q、K 的各分量是独立同分布的，均值为 0，方差为 1"',
       "Var(dot(q, k)) = 2*d_k", "E(q_i) = 1",
       condition="with mean 1 instead of 0 the variance changes, as the sentence warns"),
)  # fmt: skip
