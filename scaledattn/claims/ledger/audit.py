"""The sentence audit: every checkable sentence of the four texts has an entry or a reason.

The texts are split into sentences (after a Chinese full stop, exclamation or question
mark, U+3002, U+FF01, U+FF1F, and at line ends). A sentence is
*checkable* when it holds a number, a formula sign, a comparison or a qualitative
word about attention (:data:`CHECKABLE`). Each checkable sentence must overlap the
quote of a ledger entry, or a sentence of :data:`UNCHECKED` that records why it has
no entry: a heading, a question, a definition, a paper not readable offline, a model
that cannot be identified, a claim about other models (measured with the torch
extra in :mod:`scaledattn.torchattn.model_claims`), or the same claim as an entry
(``same_as`` names that entry's claim). :func:`gaps` lists what is missing; a test
requires it to be empty, and every recorded sentence to be verbatim in its text.

The blog post (002) lost most of its punctuation in the copy: its "sentences" are
long runs, read by hand; the entries quote the parts.

Examples
--------
>>> sentences("一。二。三")
['一。', '二。', '三']
>>> bool(CHECKABLE.search("分数在 ±8 尺度上晃。"))
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scaledattn.claims.ledger import book, interview, lesson, post
from scaledattn.claims.ledger.entry import LedgerEntry

__all__ = ["CHECKABLE", "UNCHECKED", "Unchecked", "covered", "gaps", "sentences"]

_END = re.compile(r"(?<=[。！？])|\n")
#: Numbers, formula signs, comparisons and the texts' qualitative words about attention.
CHECKABLE = re.compile(
    r"[0-9０-９√=≈±×÷^\\σΣ∑²<>]|Var|softmax|Softmax"
    r"|倍|越|更|比|均匀|消失|极|爆炸|饱和|尖锐|崩|几乎|差别|唯一|平均|悬殊|失控|稳定|温和|集中"
    r"|为零|趋近|发散|正常|接近|通吃|霸权|灾难|区分|缩放|方差|标准差|线性|指数|大|小"
)


def sentences(text: str) -> list[str]:
    """The text's sentences, split after U+3002, U+FF01, U+FF1F and at line ends, none empty."""
    return [s.strip() for s in _END.split(text) if s.strip()]


@dataclass(frozen=True)
class Unchecked:
    """A checkable-looking sentence with no ledger entry, and why."""

    source: str
    quote: str
    reason: str
    same_as: str = ""


HEADING = "a heading or a numbered step: it announces, it does not claim"
QUESTION = "a question: the sentences after it answer it, and those are in the ledger"
NARRATIVE = (
    "narration, an analogy or advice: no number, formula or judgement of attention that a"
    " measurement could decide"
)
DEFINITION = (
    "a definition (the formula of the computation, or what softmax is by construction):"
    " true by definition"
)
CODE = "program text: the output it prints is checked in its own entry"
OPINION = (
    "a judgement with no measurable criterion in the text ('best', 'needed', 'natural',"
    " 'reasonable', 'large' are not bounded); the figures around it have entries"
)
MODEL = (
    "a claim about other models: measured with `scaledattn audit` on their attention code"
    " (scaledattn.torchattn.model_claims, docs/model-claims.md; torch extra)"
)
SAME = "says again what an entry checks"

L, B, P, A = lesson.SOURCE, book.SOURCE, post.SOURCE, interview.SOURCE


def _u(source: str, quote: str, reason: str, same_as: str = "") -> Unchecked:
    return Unchecked(source, quote, reason, same_as)


UNCHECKED: tuple[Unchecked, ...] = (
    # --- the lesson (000)
    _u(L, "0. 你的 4 维玩具一切正常。", OPINION + "; d_k = 4 training is measured",
       "measured(diverged_d4_unscaled) ≈ 0.0"),
    _u(L, "换 64 维——机器失明。", SAME, "measured(max_weight_unscaled) ≈ 79%"),
    _u(L, "L1 造出了打分器（内积），L2 给了它一次算完的记号（矩阵乘法）。", NARRATIVE),
    _u(L, "玩具世界——4 维词向量——里一切正常：合拍分有区分度，softmax 出来的配比合理。", OPINION),
    _u(L, "现代模型的词向量是 64 维起步，128 维打底。", MODEL),
    _u(L, "你什么都不改——同样的打分函数、同样的 softmax、同样的初始化——只是把向量的长度从 4 换成 64。",
       "the set-up of the experiments (d_k = 4 and 64, all else equal), which the training"
       " and P1 entries follow", "measured(score_std_ratio) ≈ 4"),
    _u(L, "代码一模一样。", NARRATIVE),
    _u(L, "1. 先看看分数长什么样", HEADING),
    _u(L, r"打分函数 q\cdot k = \sum_{i=1}^{64} q_i k_i——64 项相加。", DEFINITION),
    _u(L, "为什么不是 d_k 本身或者 d_k^2？", QUESTION),
    _u(L, "要回答”为什么是平方根”，你需要的工具只有一条：独立随机变量的方差可相加。", SAME,
       "Var(X + Y) = Var(X) + Var(Y)"),
    _u(L, "2. 硬币模型：方差可加律的发明", HEADING),
    _u(L, "用最粗的模型：假设 q 和 k 的每个分量都是一枚独立均匀的硬币，取 +1 或 -1，各半。",
       "the coin model's assumption, under which its entries are checked",
       "E(q_i*k_i) = 0"),
    _u(L, "现在 64 枚独立硬币的乘积相加。", SAME, "Var(dot(q, k, 64)) = 64"),
    _u(L, "方差怎么走？", QUESTION),
    _u(L, "两个独立随机变量 X 和 Y 相加，方差是什么？", QUESTION),
    _u(L, r"展开右边的平方：前两项和最后两项拼起来就是 \mathrm{Var}(X) + \mathrm{Var}(Y)。",
       SAME, "Var(X + Y) = E((X + Y)^2) - E(X + Y)^2 = Var(X) + Var(Y) + 2*Cov(X, Y)"),
    _u(L, "方差逐项相加。", SAME, "Var(X + Y) = Var(X) + Var(Y)"),
    _u(L, "64 枚独立硬币的乘积求和：", SAME, "Var(dot(q, k, 64)) = 64"),
    _u(L, "分数变大不是玄学，是项数——分量方差是 1，项数是 64，和的方差就是 64。", SAME,
       "Var(dot(q, k, 64)) = 64"),
    _u(L, r"3. \sigma = 8 意味着什么：饱和", HEADING),
    _u(L, "分数在 ±8 尺度上晃。", SAME, "measured(score_std_d64) ≈ 8"),
    _u(L, "现在把这 8 个分数扔进 softmax，看它吐出什么。",
       "'这 8 个分数' (these 8 scores): the list that follows has 4, so it is read as 'these"
       " σ = 8 scores', whose scale has its own entry",
       "sqrt(sum([3.2, 0.1, -2.5, 0.4]^2)/4) > 4"),
    _u(L, "softmax 里住着一个指数。", DEFINITION),
    _u(L, "尖锐本身不是罪——训好的注意力目标格 >0.99 是好事。",
       "a value judgement about trained attention (no trained model offline); its 0.99 is"
       " the bound of 'one-hot' in the ledger's meanings"),
    _u(L, "罪在开局：随机初始化的投影没有理由让错键夺冠，而饱和让这个错误无法被温和地纠正。",
       "'cannot be gently corrected' is what the one-update experiment measures",
       "measured(step_gap_ratio_sgd) <= 1/2"),
    _u(L, "4. 拆账：到底什么”消失”了", HEADING),
    _u(L, "论文脚注说”梯度极小”。",
       "quotes the footnote of Vaswani et al. 2017, which cannot be read offline; the"
       " gradient it means is judged in the entries on “梯度消失”死了",
       "measured(jacobian_norm_ratio) > 1/10"),
    _u(L, "5. 补丁", HEADING),
    _u(L, "6. 验证", HEADING),
    _u(L, "repro_t2_scaled_dotprod.py 10 断言全过。",
       "names a script that is not among the sources (not available offline); its figures"
       " are re-measured by the P1–P3 entries"),
    _u(L, "样本量 20000（P1）/2000（P2）/500（P3）。",
       "the sizes the re-runs use (scaledattn.claims.statistics.LESSON_TRIALS); each"
       " measured entry states its size"),
    _u(L, "7. 练习", HEADING),
    _u(L, "8. 下一课", HEADING),
    _u(L, "L4：旋转与正交矩阵。", HEADING),
    # --- the book chapter (001)
    _u(B, "上一章节走完了自注意力的四步计算，但跳过了两个细节：分数为什么要除以一个数，以及 softmax 是怎么工作的。",
       NARRATIVE),
    _u(B, "这两个细节看似微小，但对模型能否正常训练至关重要。", OPINION),
    _u(B, "问题：点积会随维度变大", HEADING),
    _u(B, "回忆点积的计算：两个 1,536 维的向量，对应位置相乘再求和，得到一个数字。", DEFINITION),
    _u(B, "1,536 个数各自相乘之后加起来。", DEFINITION),
    _u(B, "维度越大，点积的值域越宽——有些分数会变得很大，有些很小。", SAME,
       "std(dot(q, k)) = sqrt(d_k)"),
    _u(B, "因为下一步是 softmax。", NARRATIVE),
    _u(B, "Softmax 做什么", HEADING),
    _u(B, "Softmax 把一组任意的数字变成一个概率分布：所有数字变为非负，且加起来等于 1。",
       DEFINITION),
    _u(B, "def softmax(scores):", CODE),
    _u(B, "exps = [math.exp(s) for s in scores]", CODE),
    _u(B, "total = sum(exps) # 求总和", CODE),
    _u(B, "print(softmax([2.0, 1.0, 0.1]))", CODE, "softmax([2.0, 1.0, 0.1]) ≈ [0.659, 0.242, 0.099]"),
    _u(B, "# 输出 [0.659, 0.242, 0.099]", SAME, "softmax([2.0, 1.0, 0.1]) ≈ [0.659, 0.242, 0.099]"),
    _u(B, "Softmax 对极端值非常敏感", HEADING),
    _u(B, "现在看看如果输入的数字很大会怎样：", NARRATIVE),
    _u(B, "如果注意力分布过于尖锐，模型就失去了融合多方信息的能力。", OPINION),
    _u(B, "反过来，如果输入的数字都很小且很接近：", NARRATIVE),
    _u(B, "softmax 需要输入的数字在一个「温和」的范围内——有差异但不极端——才能产生有区分度又不过于尖锐的注意力分布。",
       OPINION),
    _u(B, "缩放：除以 √d", HEADING),
    _u(B, "现在把两件事连起来：点积随维度增大而增大，softmax 对极端值非常敏感。", SAME,
       "std(dot(q, k)) = sqrt(d_k)"),
    _u(B, "如果不做任何处理，维度 1,536 的点积可能产生绝对值几十的分数。", SAME,
       "10 <= std(dot(q, k, 1536)) < 100"),
    _u(B, "放进 softmax 之后就会出现上面的情况——几乎全部注意力集中在一两个 token 上。",
       "names no number of tokens, so 'one or two tokens' has no weight to compute; the"
       " lesson's P2 (64 keys, σ = 8) measures the same situation",
       "measured(max_weight_unscaled) ≈ 0.787"),
    _u(B, "解决方法很简单：把点积除以 √d。", SAME, "Var(dot(q, k)/sqrt(d_k)) = 1"),
    _u(B, "缩放后的分数 = (Q × K的转置) / √d", DEFINITION),
    _u(B, "注意力权重 = softmax(缩放后的分数)", DEFINITION),
    _u(B, "输出 = 注意力权重 × V", DEFINITION),
    _u(B, "2017 年的论文 “Attention Is All You Need” 正式提出了这个设计，之后所有的 Transformer 模型——包括 Sophia——都沿用了这个做法。",
       MODEL + "; the 2017 paper itself cannot be read offline"),
    _u(B, "为什么是 √d 而不是别的数", HEADING),
    _u(B, "前面说过，d 维向量的点积的方差 = d。", SAME, "Var(dot(q, k)) = d_k"),
    _u(B, "这个范围让 softmax 产生的分布既有区分度又不会过于极端——恰好是注意力机制需要的。",
       OPINION),
    _u(B, "这不是拍脑袋的选择，而是统计学上自然的归一化方式。", OPINION),
    _u(B, "1. 生成 Q、K、V（三次矩阵乘法）", DEFINITION),
    _u(B, "2. 计算分数 = Q × K的转置（矩阵乘法）", DEFINITION),
    _u(B, "3. 缩放 = 分数 / √d", DEFINITION),
    _u(B, "4. 掩码（把不允许看到的位置设为负无穷）", DEFINITION),
    _u(B, "5. 注意力权重 = softmax(缩放后的分数)", DEFINITION),
    _u(B, "6. 输出 = 注意力权重 × V（矩阵乘法）", DEFINITION),
    _u(B, "下一章节要看多头注意力——不只用一组 Q、K、V，而是同时用 16 组，让不同的「头」关注不同类型的信息。",
       "the 16 heads are Sophia's, a model that cannot be identified (no config or code"
       " offline)"),
    # --- the blog post (002)
    _u(P, "在读《Attention Is All You Need》论文时大多数人看到Scaled Dot-Product Attention公式里的/ √d_k就直接跳过去了以为只是个常规归一化技巧。",
       NARRATIVE),
    _u(P, "这正是Amit Shekhar在最新帖子里用完整数值推导和方差证明拆解的核心",
       "refers to a post by Amit Shekhar that cannot be read offline"),
    _u(P, "少了它注意力机制就从“多词协同”退化成“单词霸权”。", SAME,
       "max(softmax([14, 10, 12])) >= 0.99"),
    _u(P, "每个q_i和k_i假设是均值0、方差1的独立随机变量Transformer初始化里的标准假设",
       "the assumptions under which the variance entries are checked (the claim language's"
       " defaults); whether models' inits meet them is measured in docs/model-claims.md",
       "Var(dot(q, k)) = d_k"),
    _u(P, "生活里可以这么类比就像你在混音台上把d_k条音轨叠加", NARRATIVE),
    _u(P, "另一处类比是扔d_k枚骰子求和骰子越多总点数波动范围越大", NARRATIVE),
    _u(P, "这个逻辑对任意d_k都严格成立对角项贡献d_k×1交叉项贡献0。", SAME,
       "Var(dot(q, k)) = d_k"),
    _u(P, "它不是孤立的trick而是把“维度爆炸”这个根本矛盾一次性解决的数学最优解。", OPINION),
    _u(P, "√d_k缩放仍是注意力层最基础、最不可或缺的稳定器", MODEL),
    _u(P, "手动跑一次d_k64的数值案例不缩放 vs 缩放亲手验证softmax从极端到均匀的转变",
       "advice; the d_k = 64 example it points to is judged in its entries (one-hot,"
       " uniform)", "3*max(softmax([1.75, 1.25, 1.5])) <= 1.1"),
    _u(P, "把注意力模块的方差假设均值0、方差1作为初始化检查点任何偏离都必须先修复再训练。",
       NARRATIVE),
    _u(P, "这份拆解把Transformer里看似简单的一行/ √d_k拉回到“方差控制 → softmax稳定 → 梯度流动”的完整因果闭环。",
       OPINION),
    _u(P, "它提醒我们真正决定模型能否学下去的往往不是更深网络或更大参数而是这些数学上精确到小数点的细节权衡。",
       OPINION),
    _u(P, "在你训练或复现Transformer时注意力缩放这一步是否曾让你踩坑", NARRATIVE),
    # --- the interview article (004)
    _u(A, "整个流程是这样的：先用你的问题 Q，去和所有的 Key 做比较，看看哪个 Key 最匹配你的问题。",
       DEFINITION),
    _u(A, "类比一下，就像你在图书馆找书。", NARRATIVE),
    _u(A, "打个比方：你的气球吹得有点过了，现在需要放掉一些气。", NARRATIVE),
    _u(A, "来对比一下实际效果。", NARRATIVE),
    _u(A, "匹配度越高，权重就越大。", "softmax is increasing in each score: by definition"),
    _u(A, '点积越大，两个向量越"相似"。', DEFINITION),
    _u(A, "但问题来了：点积的结果会随着向量维度变大而变大。", SAME, "std(dot(q, k)) = sqrt(d_k)"),
    _u(A, "这听起来是个小问题，但真正计算的时候，它会变成灾难。", OPINION),
    _u(A, '点积为什么会"爆炸"？', QUESTION),
    _u(A, "正面数量可能在 200 到 350 之间波动，差距就非常悬殊了。", SAME,
       "[E(Z) - 2*std(Z), E(Z) + 2*std(Z)] ≈ [200, 350]"),
    _u(A, "假设 Q 和 K 都是标准化的向量（均值 0，方差 1）。",
       "the assumptions under which the variance entries are checked",
       "Var(dot(q, k)) = d_k"),
    _u(A, "当你计算 Q · K^T 时，相当于把对应位置的数字相乘再加总。", DEFINITION),
    _u(A, "差距变得非常悬殊。", SAME, "2*std(dot(q, k, 512)) >= 100"),
    _u(A, '你可能觉得"数值大一点有什么关系？', QUESTION),
    _u(A, "关系大了。", NARRATIVE),
    _u(A, "softmax 遇到极端值会怎样？", QUESTION),
    _u(A, "算完点积之后，Self-Attention 会做一个 softmax，把这些分数变成概率分布。", DEFINITION),
    _u(A, "softmax 的公式长这样：", DEFINITION),
    _u(A, "softmax(x_i) = e^{x_i} / Σe^{x_j}", DEFINITION),
    _u(A, "说人话就是：把每个数取 e 的指数次方，然后除以所有指数的和。", DEFINITION),
    _u(A, "这样输出的就是个概率分布，所有值加起来等于 1。", DEFINITION),
    _u(A, '问题来了：当输入值的差距很大时，softmax 会"赢家通吃"。', SAME,
       "lim(leader_weight) = 1"),
    _u(A, "假设考试满分 100 分：", NARRATIVE),
    _u(A, '在场景 B 里，100 分那个同学拿走了几乎所有"注意力"，其他人的分数被完全忽略了。', SAME,
       "softmax([1, 2, 100]) ≈ [0.00, 0.00, 1.00]"),
    _u(A, "这就是 softmax 在 Self-Attention 里干的事。", NARRATIVE),
    _u(A, "模型几乎学不动，就像在一条几乎平坦的马路上开车，方向盘怎么打车子都不转弯。", SAME,
       "lim(backward) = 0"),
    _u(A, "好，现在问题清楚了：点积结果太大 → softmax 输出太极端 → 梯度消失 → 模型训练不动。", SAME,
       "lim(backward) = 0"),
    _u(A, "很简单：在 softmax 之前，把点积结果缩小一点。", SAME, "std(dot(q, k)/sqrt(d_k)) = 1"),
    _u(A, "假设 Q 和 K 都是标准化过的向量，每一维的均值接近 0，方差接近 1。",
       "the assumptions under which the variance entries are checked", "Var(dot(q, k)) = d_k"),
    _u(A, "除以其他常数要么缩得不够（还是会有极端值），要么缩得太过（softmax 输出又变得太平均，丢失了区分度）。",
       "names no other constant, so no scale is there to measure; the exact statement (σ² = 1"
       " only at c = √d_k) has its entry", "Var(dot(q, k)/c) = 1 <=> c = sqrt(d_k)"),
    _u(A, "√dk 就是刚好能把气球放回正常大小的那一口气。", NARRATIVE),
    _u(A, "假设 dk = 512，某个位置的点积结果是 20，其他位置平均是 5。",
       "the set-up of the example whose figures have entries", "softmax([20, 5]) ≈ [1, 0]"),
    _u(A, "因为即使不除，数值范围也大不到哪里去。", OPINION),
    _u(A, "但 dk 很大时，这个缩放就是救命的设计。", OPINION),
    _u(A, "512 维、768 维、1024 维...现代 Transformer 用的是大维度，不用缩放几乎不可能训练成功。",
       MODEL + "; whether they train without the scale is not measured (no training of"
       " these models offline)"),
    _u(A, '大部分人只会背"防止梯度消失"，再追问就卡壳了。', NARRATIVE),
    _u(A, "点积值会随 dk 增大而变大，导致 softmax 梯度消失。", SAME, "lim(backward) = 0"),
    _u(A, "除以 √dk 可以把方差缩放到合理范围。", SAME, "std(dot(q, k)/sqrt(d_k)) = 1"),
    _u(A, "假设 Q、K 是均值为 0、方差为 1 的向量，它们点积的方差等于 dk。", SAME,
       "Var(dot(q, k)) = d_k"),
    _u(A, "要让点积结果的方差恢复到 1，需要除以 √dk。", SAME, "std(dot(q, k)/sqrt(d_k)) = 1"),
    _u(A, "这样 softmax 的输入不会落入极端区域，梯度保持正常。", SAME,
       "max(softmax([20, 5] / sqrt(512))) < 0.99"),
    _u(A, "√dk 是让点积方差恢复为 1 的数学解。", SAME, "Var(dot(q, k)/c) = 1 <=> c = sqrt(d_k)"),
    _u(A, "这些权重矩阵是随机初始化的，并没有刻意保证 Q 和 K 的方差为 1。", MODEL),
    _u(A, '这也是为什么 √dk 被称为"缩放因子"而不是"精确归一化"——它更像是一个经验性的调优，让点积结果不会太大。',
       OPINION),
    _u(A, "√dk 就是两者的结合体——不是纯粹的理论推导，也不是盲目的调参碰运气，而是两者配合出来的结果。",
       OPINION),
    _u(A, "下次再被问到这个问题，你可以自信地从点积方差讲到梯度消失，再讲到缩放的数学直觉。",
       NARRATIVE),
    _u(A, '如果面试官继续追问"那如果维度更大怎么办"或者"有没有更好的缩放因子"——', QUESTION),
)  # fmt: skip


def covered(sentence: str, source: str, entries: tuple[LedgerEntry, ...]) -> bool:
    """Whether a ledger entry's quote, or a recorded reason, overlaps the sentence."""
    parts = [p for e in entries if e.source == source for p in e.parts]
    parts += [u.quote for u in UNCHECKED if u.source == source]
    return any(p in sentence or sentence in p for p in parts)


def gaps(source: str, text: str, entries: tuple[LedgerEntry, ...]) -> list[str]:
    """The checkable sentences of ``text`` with neither an entry nor a recorded reason."""
    return [s for s in sentences(text) if CHECKABLE.search(s) and not covered(s, source, entries)]
