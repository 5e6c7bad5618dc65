"""The blog post (002): the variance argument, the d_k = 3 expansion, softmax with and without √d_k.

The post's formulas lost their "=" signs in the copy ("1×11" is "1×1 = 1"); the
quotes keep the text as it is.
"""

from __future__ import annotations

from scaledattn.claims.ledger.entry import LedgerEntry
from scaledattn.claims.ledger.meaning import (
    HUNDREDS,
    NOT_MUCH,
    ONE_HOT,
    OTHERS_ZERO,
    THOUSANDS,
    UNIFORM,
    VANISHED,
    Meaning,
)

SOURCE = "002_ce3c95976c2eff63.txt"


def _e(quote: str, claim: str, *assume: str, condition: str = "", note: str = "",
       inconsistency: bool = False, meaning: Meaning | None = None,
       context: str = "") -> LedgerEntry:  # fmt: skip
    return LedgerEntry(SOURCE, quote, claim, tuple(assume), condition, note, inconsistency, meaning,
                 context)  # fmt: skip


AT_64 = ", at d_k = 64 (σ = 8, no 1/√d_k) against the scaled logits of the same draws"
JACOBIAN = "of the softmax Jacobian diag(p) − ppᵀ (the gradient back through the softmax)"
CROSS_ENTROPY = "of the cross-entropy gradient ∂L/∂s = p − y"
AT_EXAMPLE = (
    "of the gradient back through the softmax (its Jacobian), at the post's own scores"
    " [14, 10, 12] against their scaled [1.75, 1.25, 1.5]"
)

ENTRIES: tuple[LedgerEntry, ...] = (
    _e("不加这个缩放模型训练曲线立刻崩掉——梯度几乎为零softmax输出变成one-hot",
       "measured(jacobian_norm_ratio) <= 1/10", condition=JACOBIAN + AT_64, meaning=VANISHED,
       context="lim(jacobian) = 0"),
    _e("不加这个缩放模型训练曲线立刻崩掉——梯度几乎为零softmax输出变成one-hot",
       "measured(grad_norm_ratio) <= 1/10", condition=CROSS_ENTROPY + AT_64, meaning=VANISHED,
       context="lim(p_minus_y) = sqrt(2)"),
    _e("softmax输出变成one-hot", "measured(max_weight_unscaled) >= 0.99", meaning=ONE_HOT,
       note="P2: 64 keys, d_k = 64, no 1/√d_k — the post's d_k = 64",
       context="lim(leader_weight) = 1"),
    _e("不加这个缩放模型训练曲线立刻崩掉", "measured(diverged_d64_unscaled) ≈ 1.0",
       condition="d_k = 64, unscaled, at the training experiment's learning rate"),
    _e("点积随维度线性爆炸", "Var(dot(q, k, 128)) / Var(dot(q, k, 64)) = 2",
       condition="of the variance of q·k"),
    _e("点积随维度线性爆炸", "std(dot(q, k, 128)) / std(dot(q, k, 64)) = 2",
       condition="of the size of q·k (its standard deviation)",
       note="twice the dimension, twice the values, if the growth were linear"),
    _e("单个乘积q_i k_i的方差是1×11", "Var(q_i*k_i) = 1*1 = 1"),
    _e("整个点积是d_k个独立项的求和。根据方差可加性Var(q⋅k)dk", "Var(dot(q, k)) = d_k"),
    _e("原始分数动辄达到数十甚至上百", "2*std(dot(q, k, 128)) >= 100",
       note="at the largest d_k the post names (128)", meaning=HUNDREDS),
    _e("以d_k3为例点积平方展开后有9项对角项q1k1·q1k1等共3项",
       "theorem(dot_product_second_moment_d3)",
       note="the kernel checks the listing: nine products, three diagonal, six cross"),
    _e("每项期望值E[q_i²k_i²]1×11", "E(q_i^2*k_i^2) = 1*1 = 1"),
    _e("交叉项q1k1·q2k2等共6项每项期望值因独立且均值为0而等于0", "E(q_1*k_1*q_2*k_2) = 0"),
    _e("因此平均平方值正好等于3即方差d_k", "E(dot(q, k, 3)^2) = Var(dot(q, k, 3)) = 3"),
    _e("e{14} vs e^{10}已差几千倍", "exp(14)/exp(10) >= 1000",
       meaning=THOUSANDS),
    _e("三个分数[14,10,12]不缩放时softmax输出≈[0.867, 0.016, 0.117]",
       "softmax([14, 10, 12]) ≈ [0.867, 0.016, 0.117]"),
    _e("第一词几乎独占全部注意力", "max(softmax([14, 10, 12])) >= 0.99", meaning=ONE_HOT),
    _e("其余词被直接忽略", "1 - max(softmax([14, 10, 12])) <= 0.01", meaning=OTHERS_ZERO),
    _e("其余词被直接忽略梯度随之趋近0 … 单词霸权接近0vanishing gradient",
       "jacobian_norm(softmax([14, 10, 12])) / jacobian_norm(softmax([1.75, 1.25, 1.5])) <= 1/10",
       condition=AT_EXAMPLE, meaning=VANISHED, context="lim(backward) = 0"),
    _e("Var(q⋅kdk)Var(q⋅k)dkdkdk1",
       "Var(dot(q, k)/sqrt(d_k)) = Var(dot(q, k))/d_k = d_k/d_k = 1"),
    _e("除以c时方差除以c²", "Var(dot(q, k)/c) = Var(dot(q, k))/c^2"),
    _e("为什么√d_k是数学上唯一正确的缩放因子 … 因此c√d_k正好让方差归1",
       "Var(dot(q, k)/c) = 1 <=> c = sqrt(d_k)"),
    _e("d_k64时除以8就能把[14,10,12]变成[1.75,1.25,1.5]",
       "[14, 10, 12] / sqrt(64) = [1.75, 1.25, 1.5]"),
    _e("softmax输出变为[0.419,0.254,0.327]", "softmax([1.75, 1.25, 1.5]) ≈ [0.419, 0.254, 0.327]"),
    _e("注意力均匀分布模型能从所有相关词学习",
       "3*max(softmax([1.75, 1.25, 1.5])) <= 1.1",
       meaning=UNIFORM),
    _e("不缩放[14,10,12][86.7%, 1.6%, 11.7%]", "softmax([14, 10, 12]) ≈ [86.7%, 1.6%, 11.7%]"),
    _e("缩放 √648[1.75,1.25,1.5][41.9%, 25.4%, 32.6%]",
       "softmax([1.75, 1.25, 1.5]) ≈ [41.9%, 25.4%, 32.6%]"),
    _e("小维度d_k4对比[1,0.5,0.8]分布均匀",
       "3*max(softmax([1, 0.5, 0.8])) <= 1.1",
       meaning=UNIFORM, note="d_k = 4, unscaled: the post's scores as they are"),
    _e("小维度d_k4对比[1,0.5,0.8]分布均匀无需缩放均可正常缩放影响可忽略",
       "max(softmax([1, 0.5, 0.8])) / max(softmax([1, 0.5, 0.8] / sqrt(4))) < 2",
       meaning=NOT_MUCH),
    _e("多词协同正常流动方差稳定训练可行", "measured(diverged_d64_scaled) ≈ 0.0",
       condition="d_k = 64 with 1/√d_k, at the training experiment's learning rate"),
    _e("√d_k缩放 → 方差归1 → 分布均匀", "64*measured(max_weight_scaled) <= 1.1",
       meaning=UNIFORM,
       note="P2: 64 keys, d_k = 64, scores divided by 8; the largest weight against 1/64"),
    _e("在你的模型代码里把缩放因子改成1或2观察训练loss曲线和梯度范数——立刻就能看到崩盘",
       "measured(diverged_d64_unscaled) ≈ 1.0",
       condition="scale factor 1 at d_k = 64, at the training experiment's learning rate",
       note="the factor 2 is not measured: the training experiment has c = 1 and c = √d_k"),
    _e("softmax输出变为[0.419,0.254,0.327] … [41.9%, 25.4%, 32.6%]", "0.327 = 32.6%",
       note="the same weight in the text and in its table", inconsistency=True),
)  # fmt: skip
