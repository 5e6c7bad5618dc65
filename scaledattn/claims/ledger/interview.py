"""The interview article (004): coins, the variance of q·k, softmax scenes, the √dk scale."""

from __future__ import annotations

from scaledattn.claims.ledger.entry import LedgerEntry

SOURCE = "004_59b122b8ce81be9e.txt"


def _e(quote: str, claim: str, *assume: str, condition: str = "", note: str = "",
       inconsistency: bool = False) -> LedgerEntry:  # fmt: skip
    return LedgerEntry(SOURCE, quote, claim, tuple(assume), condition, note, inconsistency)


HEADS = "Z = (dot(q, k, 512) + 512)/2"

ENTRIES: tuple[LedgerEntry, ...] = (
    _e("但如果你抛 512 枚硬币呢？正面数量可能在 200 到 350 之间波动",
       "[E(Z) - 2*std(Z), E(Z) + 2*std(Z)] ≈ [200, 350]", HEADS,
       note="the heads of 512 fair coins have the law of (q·k + 512)/2 with coin"
            " components (each q_i k_i is a fair ±1 coin); 'fluctuate' read as mean ± 2σ"),
    _e("如果维度 dk 只有 64，点积结果的方差大概是 64", "Var(dot(q, k, 64)) = 64"),
    _e("但如果 dk 是 512，点积结果的方差就变成了 512", "Var(dot(q, k, 512)) = 512"),
    _e("数值范围一下子大了 8 倍", "Var(dot(q, k, 512)) / Var(dot(q, k, 64)) = 8",
       condition="of the variance"),
    _e("数值范围一下子大了 8 倍", "std(dot(q, k, 512)) / std(dot(q, k, 64)) ≈ 8",
       condition="of the range of values (the standard deviation), as the sentence says"),
    _e("场景 A：分数是 60、65、70 → softmax 后大概是 0.25、0.30、0.35",
       "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]"),
    _e("场景 B：分数是 1、2、100 → softmax 后大概是 0.00、0.00、1.00",
       "softmax([1, 2, 100]) ≈ [0.00, 0.00, 1.00]"),
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
    _e("softmax(0.89) ≈ 0.71，softmax(0.22) ≈ 0.29", "softmax([0.89, 0.22]) ≈ [0.71, 0.29]"),
    _e("dk 较小时（64 左右），除不除 √dk 差别不大",
       "measured(max_weight_unscaled) / measured(max_weight_scaled) < 2",
       note="P2 at d_k = 64; 'not much difference' read as less than a factor 2 in the largest weight"),
    _e("这就是为什么 Transformer 固定用 dk = 512", "512 / 8 = 512",
       note="Vaswani et al. 2017, §3.2.2: d_model = 512 and h = 8 heads, so d_k = d_model/h"),
    _e('所以严格来说，√dk 的推导依赖一个假设："Q、K 的各分量是独立同分布的，均值为 0，方差为 1"',
       "Var(dot(q, k)) = 2*d_k", "E(q_i) = 1",
       condition="with mean 1 instead of 0 the variance changes, as the sentence warns"),
)  # fmt: skip
