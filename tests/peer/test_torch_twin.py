"""llm0 against its PyTorch twin (tools/torch_twin.py), as llm.c tests itself against PyTorch.

For each tiny config (here: long sequences on 2 threads and DeepSeek's omitted routing fields;
every model kind and combination comes from the kind table through tests/kinds/twin_table.py,
which calls run_config below): `llm0 init` writes a checkpoint, every weight is then replaced by random
values of a scale that exercises every path (norm weights != 1, biases != 0, attention far from
uniform), and `llm0 check grads` and the twin (float32, all configs in this one process) compute
logits, loss, every parameter's gradient and the losses of 5 AdamW steps on the same batch.
Errors are norm-based per tensor, ||llm0 - twin|| / ||twin|| (gradients: denominator at least
1e-4 of the largest gradient norm, for tensors whose exact gradient is 0); the float64 twin's figures are
printed beside them to tell llm0's rounding from the twin's.

Usage: /usr/bin/python3 tests/peer/test_torch_twin.py PATH/TO/llm0 [--keep DIR]
Exit 0 pass, 1 fail, 77 skipped (no torch).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"skipped: /usr/bin/python3 has no torch/numpy ({e}); scripts/setup.sh installs python3-torch")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_twin  # noqa: E402

TOL_LOGITS, TOL_LOSS, TOL_GRAD, TOL_STEP = 1e-4, 1e-4, 1e-3, 1e-4
STEPS, LR, WD = 5, 1e-2, 0.1
B, T = 3, 7  # default batch: T below max_position_embeddings and not a power of two

BASE = {"vocab_size": 53, "hidden_size": 24, "intermediate_size": 40, "num_hidden_layers": 2,
        "max_position_embeddings": 11, "rms_norm_eps": 1e-5, "rope_theta": 1000.0}
CONFIGS = {
    # Every model kind and combination runs through the twin from the kind table
    # (tests/kinds/kind_table.json, tests/kinds/twin_table.py, ctest peer_kinds_twin). Here: what
    # the table's short rows do not reach. _seed: the random weights and batch (each row keeps the
    # seed it had when this file held every config: the 5 AdamW steps at lr 1e-2 of a 70-token
    # batch are sensitive to the draw; long_gqa_2threads at seed 100 parts from both twins by
    # 1.7e-3 while they part from each other by 2e-4).
    # Longer than the attention kernel's 64-row query block, wider, and on 2 threads.
    "long_gqa_2threads": dict(_seed=106, vocab_size=301, hidden_size=64, intermediate_size=96, num_attention_heads=8,
                              num_key_value_heads=2, head_dim=16, max_position_embeddings=80,
                              rope_theta=10000.0, _batch=(2, 70), _threads=2),
    # Sliding window and sinks past 64 rows, on 2 threads.
    "layer_types_sinks_long": dict(_seed=109, num_attention_heads=4, num_key_value_heads=1, head_dim=8, vocab_size=97,
                                   layer_types=["sliding_attention", "full_attention"], sliding_window=20,
                                   attention_sinks=True, max_position_embeddings=80, _batch=(2, 70), _threads=2),
    # DeepSeek configs that omit the routing fields: each side applies transformers' defaults by
    # its own code (V3: 8 groups keeping 4, top 8, × 2.5, renormalised, one shared expert, layers
    # 0-2 dense; V2: × 1.0, two shared experts, greedy softmax, not renormalised, no dense layer).
    "deepseek_v3_moe_defaults": dict(_seed=116, model_type="deepseek_v3", num_attention_heads=4, num_key_value_heads=4,
                                     kv_lora_rank=9, qk_nope_head_dim=6, qk_rope_head_dim=2, v_head_dim=5,
                                     q_lora_rank=None, rms_norm_eps=1e-6, num_hidden_layers=4,
                                     n_routed_experts=32, moe_intermediate_size=6),
    "deepseek_v2_moe_defaults": dict(_seed=117, model_type="deepseek_v2", num_attention_heads=3, num_key_value_heads=3,
                                     kv_lora_rank=11, qk_nope_head_dim=5, qk_rope_head_dim=4, v_head_dim=7,
                                     q_lora_rank=None, rms_norm_eps=1e-6, n_routed_experts=6,
                                     num_experts_per_tok=2, moe_intermediate_size=10),
    # Gated DeltaNet past the op's 64-token chunk, on 2 threads (AdamW at lr 3e-3: the hybrids'
    # 5 steps at 1e-2 are chaotic enough that the f32 and f64 twins part by ~1e-3).
    "qwen3_next_long_2threads": dict(_seed=121, model_type="qwen3_next", vocab_size=131, hidden_size=32,
                                     intermediate_size=48, num_attention_heads=4, num_key_value_heads=2,
                                     head_dim=8, full_attention_interval=2, partial_rotary_factor=0.5,
                                     linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=8,
                                     linear_value_head_dim=6, linear_conv_kernel_dim=4, num_experts=0,
                                     max_position_embeddings=150, _batch=(2, 140), _threads=2, _lr=3e-3),
}
SLIDING_OR_SINKS = ("sliding_window", "attention_sinks", "layer_types", "kv_lora_rank", "num_experts",
                    "n_routed_experts", "linear_num_key_heads")


def randomize(weights, cfg, rng):
    """Replaces every weight by values that make each term matter (see the module docstring)."""
    out = {}
    for n, w in weights.items():
        if n.endswith("e_score_correction_bias"):  # DeepSeek-V3: shifts which experts are chosen
            v = 0.1 * rng.standard_normal(w.shape)
        elif w.ndim == 1 and n.endswith(".bias"):
            v = 0.2 * rng.standard_normal(w.shape)
        elif n.endswith(".sinks"):  # sink logits from well below to above the scores
            v = 1.5 * rng.standard_normal(w.shape)
        elif w.ndim == 1:  # norm weights (Qwen3-Next's (1 + w) norms store them zero-centred)
            centred = cfg.get("model_type") == "qwen3_next" and "linear_attn." not in n
            v = (0.0 if centred else 1.0) + 0.3 * rng.standard_normal(w.shape)
        elif "embed" in n:
            v = 0.7 * rng.standard_normal(w.shape)
        else:  # linear [out, in]; q and k larger so attention is far from uniform
            gain = 2.0 if ("q_proj" in n or "k_proj" in n or "kv_proj" in n) else 1.0
            v = gain * rng.standard_normal(w.shape) / np.sqrt(w.shape[1])
        out[n] = v.astype(np.float32)
    return out


def rel(a, b, floor=0.0):
    """||a - b|| / max(||b||, floor) in float64 (0 when both are 0)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    den = max(float(np.linalg.norm(b)), floor)
    diff = float(np.linalg.norm(a - b))
    return diff / den if den > 0 else diff


def write_bf16_copy(src, dst):
    """dst: config.json of src and its weights rounded to BF16 (round to nearest even), as a Hugging
    Face BF16 checkpoint; returns the rounded weights (float32)."""
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    cfg["torch_dtype"] = "bfloat16"
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(cfg, f)
    header, blobs, offset = {}, [], 0
    for name, a in torch_twin.read_safetensors(os.path.join(src, "model.safetensors")).items():
        bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")  # RNE, finite inputs
        b = bits.tobytes()
        header[name] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(os.path.join(dst, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def check_cached_and_bf16(llm0, ckpt, d, row, threads):
    """Logits of one sequence through llm0's cached path (--chunks 4,2: the chunks straddle the
    sliding window; they add up to 6, within the shortest row, T = 7, as llm0 requires) and from a BF16 copy of the checkpoint (full and cached), each against the twin
    (float32) on the same weights. Returns failure messages."""
    failures = []
    ids = " ".join(str(int(t)) for t in row)
    bf16 = os.path.join(d, "ckpt_bf16")
    write_bf16_copy(ckpt, bf16)
    # A BF16 checkpoint runs in BF16 (--weights-dtype auto) with a BF16 cache by default; the
    # float32 cache keeps the 1e-4 bound, the BF16 cache (K/V rounded to 8 bits) gets 3e-2.
    runs = [("cached f32", ckpt, ["--chunks", "4,2"], TOL_LOGITS), ("full bf16", bf16, [], TOL_LOGITS),
            ("cached bf16", bf16, ["--chunks", "4,2", "--kv-dtype", "f32"], TOL_LOGITS),
            ("cached bf16 bf16-kv", bf16, ["--chunks", "4,2"], 3e-2)]
    if "deepseek" in open(os.path.join(ckpt, "config.json")).read():
        runs += [("cached f32 expanded", ckpt, ["--chunks", "4,2", "--mla-decode", "expanded"], TOL_LOGITS)]
    for label, model, extra, tol in runs:
        out = os.path.join(d, label.replace(" ", "_") + ".npy")
        cmd = [llm0, "forward", "--model", model, "--tokens", ids, "--output", out, "--threads", str(threads)]
        subprocess.run(cmd + extra, check=True, capture_output=True)
        ref = torch_twin.run_twin(model, row[None, :], np.full((1, len(row)), -1), 0)["logits"]
        err = rel(np.load(out), ref)
        print(f"  {'':24s} {label:19s} vs twin f32: logits {err:.2e}")
        if not err <= tol:
            failures.append(f"{label} logits rel err {err:.3e} > {tol:g}")
    return failures


def run_config(llm0, name, overrides, work, seed, base=BASE):
    """Runs one config (`base` with `overrides` on top; keys starting with _ are settings) through
    llm0 and the twin; returns the failure messages (empty: pass)."""
    cfg = dict(base)
    cfg.update(overrides)
    B, T = cfg.pop("_batch", (globals()["B"], globals()["T"]))
    threads = cfg.pop("_threads", 1)
    lr = cfg.pop("_lr", LR)
    as_given = any(k in cfg for k in SLIDING_OR_SINKS)
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.in.json"), "w") as f:
        json.dump(cfg, f)
    ckpt, out = os.path.join(d, "ckpt"), os.path.join(d, "llm0")
    subprocess.run([llm0, "init", "--config", os.path.join(d, "config.in.json"), "--seed", str(seed),
                    "--output", ckpt, "--threads", "1"], check=True, capture_output=True)
    if as_given:
        # The Hugging Face style config as given (Mistral / Qwen2 rules, not llm0's explicit
        # layer_types; DeepSeek's omitted fields): each side resolves them by its own code.
        with open(os.path.join(ckpt, "config.json"), "w") as f:
            json.dump(cfg, f)
    rng = np.random.default_rng(seed)
    st = os.path.join(ckpt, "model.safetensors")
    torch_twin.write_safetensors(st, randomize(torch_twin.read_safetensors(st), cfg, rng))
    V = cfg["vocab_size"]
    tokens = rng.integers(0, V - 5, size=(B, T)).astype(np.int32)  # the last ids stay unused
    targets = rng.integers(0, V, size=(B, T)).astype(np.int32)
    targets[0, 0], targets[-1, -2:] = -1, -1  # ignored targets
    np.save(os.path.join(d, "tokens.npy"), tokens)
    np.save(os.path.join(d, "targets.npy"), targets)
    subprocess.run([llm0, "check", "grads", "--model", ckpt, "--tokens", os.path.join(d, "tokens.npy"),
                    "--targets", os.path.join(d, "targets.npy"), "--steps", str(STEPS), "--lr", str(lr),
                    "--weight-decay", str(WD), "--output", out, "--threads", str(threads)], check=True, capture_output=True)
    ours_logits = np.load(os.path.join(out, "logits.npy"))
    ours_grads = torch_twin.read_safetensors(os.path.join(out, "grads.safetensors"))
    with open(os.path.join(out, "losses.json")) as f:
        ours = json.load(f)
    failures = []
    report = {}
    for label, dtype in (("f32", torch.float32), ("f64", torch.float64)):
        ref = torch_twin.run_twin(ckpt, tokens, targets, STEPS, lr, WD, dtype)
        if ours["count"] != ref["count"]:
            failures.append(f"target count {ours['count']} != twin {ref['count']}")
        if set(ours_grads) != set(ref["grads"]):
            failures.append(f"gradient names differ: {sorted(set(ours_grads) ^ set(ref['grads']))}")
            continue
        # Floor: a gradient that is 0 in exact arithmetic is rounding noise in both, so its relative
        # error means nothing (k_proj.bias without RoPE: q.b is the same for every key and cancels
        # in the softmax). Errors are taken relative to at least 1e-4 of the largest gradient norm.
        floor = 1e-4 * max(float(np.linalg.norm(v)) for v in ref["grads"].values())
        g = {n: rel(ours_grads[n], ref["grads"][n], floor) for n in ref["grads"]}
        real = [n for n in g if np.linalg.norm(ref["grads"][n]) >= floor] or list(g)
        worst = max(real, key=g.get)
        zeros = [n for n in g if n not in real]
        r = {"logits": rel(ours_logits, ref["logits"]), "loss": abs(ours["loss"] - ref["loss"]) / abs(ref["loss"]),
             "grad": g[worst], "grad_name": worst, "zero_grad": max([g[n] for n in zeros], default=0.0),
             "steps": max(abs(a - b) / abs(b) for a, b in zip(ours["losses"], ref["losses"]))}
        report[label] = r
        print(f"  {name:24s} vs twin {label}: logits {r['logits']:.2e}  loss {r['loss']:.2e}  "
              f"grad {r['grad']:.2e} ({worst})" + (f"  ~0-grad x{len(zeros)} {r['zero_grad']:.1e}" if zeros else "")
              + f"  adamw losses {r['steps']:.2e}"
              f"  [{ref['losses'][0]:.4f} -> {ref['losses'][-1]:.4f}]")
        # The AdamW losses are checked against the float64 twin, the others against the float32
        # twin. Five steps amplify rounding: a float32 twin's own losses part from the float64
        # twin's by up to ~2e-4 on a sensitive row (qwen3_next_hybrid at lr 3e-3, by OpenBLAS core),
        # so against the float32 twin the check would compare two float32 errors, not llm0's.
        if label == "f64" and not r["steps"] <= TOL_STEP:
            failures.append(f"steps rel err vs the float64 twin {r['steps']:.3e} > {TOL_STEP:g}")
        if label != "f32":
            continue
        if len(ours["losses"]) != STEPS + 1:
            failures.append(f"{len(ours['losses'])} losses, expected {STEPS + 1}")
        for key, tol in (("logits", TOL_LOGITS), ("loss", TOL_LOSS), ("grad", TOL_GRAD), ("zero_grad", TOL_GRAD)):
            if not r[key] <= tol:  # also catches NaN
                failures.append(f"{key} rel err {r[key]:.3e} > {tol:g}" + (f" ({worst})" if key == "grad" else ""))
        if not ref["losses"][-1] < ref["losses"][0]:
            failures.append("the twin's loss did not fall over the AdamW steps: the check is vacuous")
    if as_given:
        failures += check_cached_and_bf16(llm0, ckpt, d, tokens[0], threads)
    return failures


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    llm0 = os.path.abspath(args[0])
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    torch.set_num_threads(1)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="llm0_peer_") as tmp:
        work = keep or tmp
        bad = {}
        for name, overrides in CONFIGS.items():
            overrides = dict(overrides)
            f = run_config(llm0, name, overrides, work, seed=overrides.pop("_seed"))
            if f:
                bad[name] = f
    print(f"peer_torch_twin: {len(CONFIGS)} configs in {time.time() - t0:.1f} s")
    for name, f in bad.items():
        for msg in f:
            print(f"FAIL {name}: {msg}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
