#!/usr/bin/python3
"""Fits data/teaching-world.json so that `llm0 lesson attention` reproduces the course's figures.

The world is the course's sentence 小明 把 苹果 给了 小王 with d_model = 4 and one head of
d_head = 4 (scores q·k / √4). Its two-head variant splits the same W_Q, W_K, W_V by columns into
heads A (columns 0–1) and B (columns 2–3), each with scores q·k / √2 (the course: "同一组投影按列
切成几个头"). The free parameters are the embeddings X [5, 4] and W_Q, W_K, W_V [4, 4]; W_O is the
identity and the head's sink logit is fixed at 1.

Each course figure becomes a squared-error term aimed at the centre of its printed interval (so
the rounding holds with half a printed unit of slack), and each ranking becomes a hinge with a
margin. Adam (torch, float64, seed 0) minimises the sum plus a small weight decay; the result is
rounded to 4 decimals and every figure is re-checked on the rounded numbers in float32 (what the
engine computes in); the script fails rather than write a world that misses one. Definitions of
each figure: docs/teaching-world.md.

Usage: /usr/bin/python3 tools/fit_teaching_world.py [--out data/teaching-world.json] [--steps N]
Deterministic: the same torch/numpy give the same file. Runs in a few seconds on one CPU core.
"""
import argparse
import json
import math
import sys

import numpy as np
import torch

TOKENS = ["小明", "把", "苹果", "给了", "小王"]
MING, BA, APPLE, GEI, WANG = range(5)
D = 4
SINK_LOGIT = 1.0

# The course's figures (lesson 5 and the attention timeline of lessons 5 and 8).
CAUSAL_ROW_GEI = [0.394, 0.022, 0.565, 0.019]  # 小明 把 苹果 自己, causal mask
UNMASKED_WANG = 0.325                           # row 给了 without the mask, weight on 小王
COS_K_NAMES, COS_V_NAMES = 0.995, 0.285         # cos(k_小明, k_小王), cos(v_小明, v_小王)
SWAP_DELTA_V = 0.639                            # |Σw·v (小明…小王) − Σw·v (小王…小明)|₂, row 给了
SWAP_RATIO = 7.5                                # "7 倍多": aim inside [7, 8)
HEAD_A_MING, HEAD_B_APPLE = 0.895, 0.770        # two heads, row 给了, causal
SINK_ROW_SCORES = [0.04, 0.36, 0.001]           # row 苹果: q·k/√4 for 小明 把 苹果 ("0.00")
EMB_ORDER = [GEI, BA, MING, APPLE, WANG]        # cos(x_给了, x_j), descending
QK_ORDER = [APPLE, WANG, MING, BA, GEI]         # q_给了·k_j, descending


def forward(X, WQ, WK, WV):
    """Every quantity a figure reads, from one set of parameters (torch tensors)."""
    q, k, v = X @ WQ, X @ WK, X @ WV  # [5, 4] each
    s = q @ k.T / math.sqrt(D)         # [5, 5] unmasked scores
    causal = lambda s_, t: torch.softmax(s_[t, : t + 1], 0)
    out = {"s": s, "k": k, "v": v, "w_gei": causal(s, GEI), "w_gei_all": torch.softmax(s[GEI], 0)}
    heads = []
    for c in (slice(0, 2), slice(2, 4)):
        sh = q[:, c] @ k[:, c].T / math.sqrt(2)
        heads.append(causal(sh, GEI))
    out["heads"] = heads
    perm = [WANG, BA, APPLE, GEI, MING]  # 小王把苹果给了小明
    ks, vs = k[perm], v[perm]
    ws = torch.softmax((q[perm][GEI] @ ks[: GEI + 1].T) / math.sqrt(D), 0)
    w = out["w_gei"]
    out["dk"] = torch.linalg.norm(w @ k[: GEI + 1] - ws @ ks[: GEI + 1])
    out["dv"] = torch.linalg.norm(w @ v[: GEI + 1] - ws @ vs[: GEI + 1])
    xn = X / torch.linalg.norm(X, dim=1, keepdim=True)
    out["cos_x"] = xn @ xn[GEI]
    cos = lambda a, b: (a @ b) / (torch.linalg.norm(a) * torch.linalg.norm(b))
    out["cos_k"], out["cos_v"] = cos(k[MING], k[WANG]), cos(v[MING], v[WANG])
    return out


def ranking_loss(values, order, margin):
    """Hinge: values[order[i]] ≥ values[order[i+1]] + margin."""
    return sum(torch.relu(margin - (values[a] - values[b])) ** 2 for a, b in zip(order, order[1:]))


def loss_of(p):
    f = forward(*p)
    t = lambda x: torch.tensor(x, dtype=torch.float64)
    L = ((f["w_gei"] - t(CAUSAL_ROW_GEI)) ** 2).sum() * 100
    L = L + (f["w_gei_all"][WANG] - UNMASKED_WANG) ** 2 * 100
    L = L + (f["cos_k"] - COS_K_NAMES) ** 2 * 100 + (f["cos_v"] - COS_V_NAMES) ** 2 * 100
    L = L + (f["dv"] - SWAP_DELTA_V) ** 2 * 100 + (f["dk"] - SWAP_DELTA_V / SWAP_RATIO) ** 2 * 100
    L = L + (f["heads"][0][MING] - HEAD_A_MING) ** 2 * 100
    L = L + (f["heads"][1][APPLE] - HEAD_B_APPLE) ** 2 * 100
    L = L + ((f["s"][APPLE, : APPLE + 1] - t(SINK_ROW_SCORES)) ** 2).sum() * 100
    L = L + ranking_loss(f["cos_x"], EMB_ORDER, 0.05) * 10
    L = L + ranking_loss(f["s"][GEI], QK_ORDER, 0.05) * 10
    return L + 1e-6 * sum((x ** 2).sum() for x in p)


def fit(steps, seed):
    torch.manual_seed(seed)
    p = [torch.randn(n, D, dtype=torch.float64, requires_grad=True) for n in (5, D, D, D)]
    opt = torch.optim.Adam(p, lr=0.02)
    for _ in range(steps):
        opt.zero_grad()
        L = loss_of(p)
        L.backward()
        opt.step()
    polish = torch.optim.LBFGS(p, max_iter=500, tolerance_grad=1e-12, tolerance_change=1e-15,
                               line_search_fn="strong_wolfe")

    def closure():
        polish.zero_grad()
        L = loss_of(p)
        L.backward()
        return L
    polish.step(closure)
    print(f"fit: loss {float(loss_of(p)):.3e} after {steps} Adam steps and L-BFGS")
    return [np.round(x.detach().numpy(), 4) for x in p]


def figures(params):
    """The figures as the course prints them, computed in float32 on the rounded numbers."""
    f = forward(*[torch.tensor(x, dtype=torch.float32) for x in params])
    pct = lambda x: f"{100 * float(x):.1f}"
    order = lambda vals: [int(i) for i in torch.argsort(vals, descending=True)]
    return {
        "row 给了, causal (%)": [pct(x) for x in f["w_gei"]],
        "row 给了, no mask, 小王 (%)": pct(f["w_gei_all"][WANG]),
        "cos k names": f"{float(f['cos_k']):.3f}",
        "cos v names": f"{float(f['cos_v']):.3f}",
        "swap delta V": f"{float(f['dv']):.3f}",
        "swap ratio V/K (floor)": int(float(f["dv"] / f["dk"])),
        "embedding order": order(f["cos_x"]),
        "embedding cos self": f"{float(f['cos_x'][GEI]):.3f}",
        "q·k order": order(f["s"][GEI]),
        "head A 小明 (%)": pct(f["heads"][0][MING]),
        "head B 苹果 (%)": pct(f["heads"][1][APPLE]),
        "sink row scores": [f"{float(x):.2f}" for x in f["s"][APPLE, : APPLE + 1]],
        "sink row (%)": [f"{100 * float(x):.0f}" for x in torch.softmax(f["s"][APPLE, :3], 0)],
    }


WANT = {
    "row 给了, causal (%)": ["39.4", "2.2", "56.5", "1.9"],
    "row 给了, no mask, 小王 (%)": "32.5",
    "cos k names": "0.995",
    "cos v names": "0.285",
    "swap delta V": "0.639",
    "swap ratio V/K (floor)": 7,
    "embedding order": EMB_ORDER,
    "embedding cos self": "1.000",
    "q·k order": QK_ORDER,
    "head A 小明 (%)": "89.5",
    "head B 苹果 (%)": "77.0",
    "sink row scores": ["0.04", "0.36", "0.00"],
    "sink row (%)": ["30", "41", "29"],
}


def world_json(params):
    X, WQ, WK, WV = (x.tolist() for x in params)
    return {
        "description": "小明把苹果给了小王 ('Xiaoming gave the apple to Xiaowang'): the course's "
                       "teaching world, fitted by tools/fit_teaching_world.py so that the engine "
                       "reproduces the course's figures (docs/teaching-world.md). One head of "
                       "d_head 4; split_heads cuts it by columns into heads A and B of 2.",
        "d_model": D,
        "d_head": D,
        "tokens": TOKENS,
        "embeddings": X,
        "heads": [{"name": "head", "W_Q": WQ, "W_K": WK, "W_V": WV, "sink_logit": SINK_LOGIT}],
        "W_O": np.eye(D).tolist(),
        "split_heads": {"count": 2, "names": ["A", "B"]},
        "swap_test": {"swap": ["小明", "小王"], "query": "给了", "head": 0},
        "sink_row": "苹果",
    }


def dump(world):
    """JSON with one matrix row per line (readable by hand)."""
    def val(x, ind):
        if isinstance(x, list) and x and isinstance(x[0], list):
            pad = " " * (ind + 2)
            return "[\n" + ",\n".join(pad + json.dumps(r, ensure_ascii=False) for r in x) + \
                   "\n" + " " * ind + "]"
        if isinstance(x, dict):
            pad = " " * (ind + 2)
            return "{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {val(v, ind + 2)}"
                                      for k, v in x.items()) + "\n" + " " * ind + "}"
        if isinstance(x, list) and x and isinstance(x[0], dict):
            pad = " " * (ind + 2)
            return "[\n" + ",\n".join(pad + val(v, ind + 2) for v in x) + "\n" + " " * ind + "]"
        return json.dumps(x, ensure_ascii=False)
    return val(world, 0) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="data/teaching-world.json")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    params = fit(a.steps, a.seed)
    got = figures(params)
    bad = [k for k in WANT if got[k] != WANT[k]]
    for k in WANT:
        print(f"{'ok ' if k not in bad else 'MISS'} {k}: {got[k]}" +
              ("" if k not in bad else f" (course: {WANT[k]})"))
    if bad:
        sys.exit(f"error: {len(bad)} figure(s) missed; not writing {a.out}")
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(dump(world_json(params)))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
