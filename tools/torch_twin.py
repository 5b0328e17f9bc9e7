#!/usr/bin/python3
"""PyTorch twin of an llm0 model: the same architecture written out in plain PyTorch (1.13), used
as an independent reference for llm0's forward, backward and AdamW (as llm.c tests itself against
PyTorch). Run with /usr/bin/python3 (Debian's python3-torch and python3-numpy).

  /usr/bin/python3 tools/torch_twin.py --model DIR --tokens T.npy --targets Y.npy \
      [--steps N --lr X --weight-decay W --dtype float32|float64] --output OUT

reads DIR/config.json + DIR/model.safetensors (Hugging Face names, as `llm0 init` writes them) and a
batch of token ids / targets [B, T] (.npy of integers, or a JSON list of lists; targets < 0 are
ignored), and writes to OUT:
  logits.npy          float32 [B*T, V] of the initial weights
  grads.safetensors   F32 gradient of the mean loss for every parameter (HF names)
  losses.json         {"loss": L0, "count": n, "losses": [L0, L1, ..., LN]}: Li is the loss after
                      i AdamW steps (betas 0.9/0.95, eps 1e-8, weight decay on params with >= 2 dims)
  /usr/bin/python3 tools/torch_twin.py --bench-train --config C.json [--batch-size 8 --seq-len 256
      --steps N --warmup 1 --threads T --autocast none|bf16]
times training steps (forward, backward, AdamW) of a random-init model on random tokens and
prints one JSON line with tokens/s (run with OMP_WAIT_POLICY=PASSIVE; scripts/bench_peers.sh).
The same file can be imported: build_model / run_twin / read_safetensors / write_safetensors.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

# ---- safetensors (format: 8-byte LE header length, JSON header, data section) ----

_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I32": np.int32, "I64": np.int64}


def read_safetensors(path):
    """Returns {name: np.ndarray} (BF16 becomes float32) of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path}: shorter than 8 bytes")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} past the end of the file")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = memoryview(raw)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        if info["dtype"] == "BF16":
            bits = np.frombuffer(data[begin:end], dtype="<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32)
        else:
            arr = np.frombuffer(data[begin:end], dtype=np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<"))
        out[name] = arr.reshape(shape).copy()
    return out


def write_safetensors(path, tensors):
    """Writes {name: array} as F32 safetensors (header padded to a multiple of 8 bytes)."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(np.shape(a)), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


# ---- config (the same fields and defaults as src/config/config.cpp) ----

def load_config(path):
    with open(path) as f:
        j = json.load(f)
    c = dict(j)
    c.setdefault("model_type", "llama")
    H = c["num_attention_heads"]
    c.setdefault("num_key_value_heads", H)
    if c.get("head_dim") is None:
        c["head_dim"] = c["hidden_size"] // H
    c.setdefault("norm_type", "rmsnorm")
    if c["norm_type"] == "layernorm" and "layer_norm_eps" in j:
        c["rms_norm_eps"] = j["layer_norm_eps"]
    c.setdefault("position_embedding_type", "rope")
    if c["position_embedding_type"] == "absolute":
        c["position_embedding_type"] = "learned"
    c.setdefault("partial_rotary_factor", 1.0)
    c.setdefault("tie_word_embeddings", False)
    c.setdefault("attention_bias", False)
    c.setdefault("mlp_bias", False)
    # qwen2: bias on q/k/v (always), none on o_proj (HF Qwen2Attention)
    qwen2 = c["model_type"] in ("qwen2", "qwen2_moe")
    c["qkv_bias"] = c["attention_bias"] or qwen2
    c["o_bias"] = c["attention_bias"] and not qwen2
    c["layer_types"] = layer_types(c)
    c.setdefault("attention_sinks", False)
    c["mla"] = c["model_type"] in ("deepseek_v2", "deepseek_v3")
    if c["mla"]:
        c["head_dim"] = c["qk_rope_head_dim"]
        c["q_lora_rank"] = c.get("q_lora_rank") or 0
    if c.get("use_qk_norm") is None:
        c["use_qk_norm"] = c["model_type"] in ("qwen3", "qwen3_moe", "qwen3_next")
    # Qwen3-Next: gated attention always, (1 + w) norms outside the DeltaNet (Qwen3NextRMSNorm);
    # elsewhere llm0's extension key attn_output_gate.
    c["attn_output_gate"] = c.get("attn_output_gate", c["model_type"] == "qwen3_next")
    c["unit_offset_norms"] = c["model_type"] == "qwen3_next"
    c.setdefault("hidden_act", "silu")
    c["moe"] = moe_config(c)
    return c


def moe_config(c):
    """Mixture-of-experts settings and which layers have experts, by Hugging Face's rules
    (Qwen2MoeConfig / Qwen3MoeConfig / DeepseekV2Config / DeepseekV3Config), written again here
    independently of src/config/moe_config.cpp and src/config/config_fields.cpp."""
    t, L = c["model_type"], c["num_hidden_layers"]
    m = {"E": 0, "layers": [False] * L}
    if t in ("deepseek_v2", "deepseek_v3"):
        # transformers' DeepseekV3Config / DeepseekV2Config defaults for what the config omits
        # (V2's None for K and the groups: must be stated where used; V3 has no topk_method or
        # scoring_func field: always noaux_tc + sigmoid).
        d = (dict(n_shared_experts=1, routed_scaling_factor=2.5, n_group=8, topk_group=4,
                  num_experts_per_tok=8, first_k_dense_replace=3, norm_topk_prob=True,
                  moe_intermediate_size=2048, topk_method="noaux_tc", scoring_func="sigmoid")
             if t == "deepseek_v3" else
             dict(n_shared_experts=2, routed_scaling_factor=1.0, n_group=None, topk_group=None,
                  num_experts_per_tok=None, first_k_dense_replace=0, norm_topk_prob=False,
                  moe_intermediate_size=1407, topk_method="greedy", scoring_func="softmax"))
        get = lambda k: d[k] if c.get(k) is None else c[k]  # noqa: E731
        E = c.get("n_routed_experts") or 0
        first, freq = get("first_k_dense_replace"), c.get("moe_layer_freq") or 1
        m = {"E": E, "layers": [E > 0 and i >= first and i % freq == 0 for i in range(L)],
             "scoring": get("scoring_func"), "topk_method": get("topk_method"),
             "n_group": get("n_group") or 1, "topk_group": get("topk_group") or 1,
             "norm": get("norm_topk_prob"), "scale": get("routed_scaling_factor"),
             "Fs": get("n_shared_experts") * get("moe_intermediate_size"),
             "shared": "shared_experts", "gated": False, "coef": c.get("aux_loss_alpha") or 0.0,
             "K": get("num_experts_per_tok"), "Fe": get("moe_intermediate_size")}
    elif t in ("qwen2_moe", "qwen3_moe", "qwen3_next"):  # Qwen3NextSparseMoeBlock = Qwen2Moe's
        E = c.get("num_experts") or 0
        step, only = c.get("decoder_sparse_step") or 1, c.get("mlp_only_layers") or []
        m = {"E": E, "layers": [E > 0 and i not in only and (i + 1) % step == 0 for i in range(L)],
             "scoring": "softmax", "topk_method": "greedy", "n_group": 1, "topk_group": 1,
             "norm": c.get("norm_topk_prob", t == "qwen3_next"), "scale": 1.0,
             "Fs": (c.get("shared_expert_intermediate_size") or 0) if t != "qwen3_moe" else 0,
             "shared": "shared_expert", "gated": t != "qwen3_moe",
             "coef": c.get("router_aux_loss_coef") or 0.0}
    if "K" not in m:
        m["K"], m["Fe"] = c.get("num_experts_per_tok"), c.get("moe_intermediate_size")
    balance = c.get("moe_balance") or ("aux_loss" if m.get("coef", 0) > 0 else "none")
    m["aux"] = m.get("coef", 0.0) if balance == "aux_loss" else 0.0
    return m


def layer_types(c):
    """Per-layer "full_attention" / "sliding_attention", by Hugging Face's config rules (written
    again here, independently of src/config/config_fields.cpp)."""
    L = c["num_hidden_layers"]
    if c.get("layer_types") is not None:
        return list(c["layer_types"])
    if c.get("full_attention_interval") is not None:  # Qwen3NextConfig
        n = c["full_attention_interval"]
        return ["linear_attention" if (i + 1) % n else "full_attention" for i in range(L)]
    W = c.get("sliding_window")
    if W is None:
        return ["full_attention"] * L
    if c.get("sliding_window_pattern") is not None:  # Gemma 3: every pattern-th layer is full
        p = c["sliding_window_pattern"]
        return ["sliding_attention" if (i + 1) % p else "full_attention" for i in range(L)]
    if "use_sliding_window" in c:  # Qwen2: layers i >= max_window_layers slide
        if not c["use_sliding_window"]:
            return ["full_attention"] * L
        first = c.get("max_window_layers") or 0
        return ["sliding_attention" if i >= first else "full_attention" for i in range(L)]
    return ["sliding_attention"] * L  # Mistral: every layer slides


def rotary_dim(c):
    r = int(c["head_dim"] * c["partial_rotary_factor"])
    return r - r % 2


def param_shapes(c):
    """{HF name: shape} in llm0's declaration order (src/model/param_layout.cpp)."""
    C, F, D = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    H, Hkv, V = c["num_attention_heads"], c["num_key_value_heads"], c["vocab_size"]
    s = {"model.embed_tokens.weight": (V, C)}
    if c["position_embedding_type"] == "learned":
        s["model.embed_positions.weight"] = (c["max_position_embeddings"], C)

    def norm(n):
        s[n + ".weight"] = (C,)
        if c["norm_type"] == "layernorm":
            s[n + ".bias"] = (C,)

    def linear(n, out, inp, bias):
        s[n + ".weight"] = (out, inp)
        if bias:
            s[n + ".bias"] = (out,)

    def mlp(pre, width):
        if c["hidden_act"] == "silu":
            linear(pre + "gate_proj", width, C, c["mlp_bias"])
        linear(pre + "up_proj", width, C, c["mlp_bias"])
        linear(pre + "down_proj", C, width, c["mlp_bias"])

    def ffn(i, pre):  # HF Qwen2MoeSparseMoeBlock / DeepseekV3MoE names
        m = c["moe"]
        if not m["layers"][i]:
            return mlp(pre, F)
        s[pre + "gate.weight"] = (m["E"], C)
        if m["topk_method"] == "noaux_tc":
            s[pre + "gate.e_score_correction_bias"] = (m["E"],)
        for e in range(m["E"]):
            mlp(pre + f"experts.{e}.", m["Fe"])
        if m["Fs"]:
            mlp(pre + m["shared"] + ".", m["Fs"])
            if m["gated"]:
                s[pre + "shared_expert_gate.weight"] = (1, C)

    def post_norm_and_mlp(i, p):
        norm(p + "post_attention_layernorm")
        ffn(i, p + "mlp.")

    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        norm(p + "input_layernorm")
        if c["mla"]:  # DeepseekV2Attention (bias on q_a, kv_a and o with attention_bias)
            dn, dr, dv, r, qr = (c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"],
                                 c["kv_lora_rank"], c["q_lora_rank"])
            a, bias = p + "self_attn.", c["attention_bias"]
            if qr:
                linear(a + "q_a_proj", qr, C, bias)
                s[a + "q_a_layernorm.weight"] = (qr,)
                linear(a + "q_b_proj", H * (dn + dr), qr, False)
            else:
                linear(a + "q_proj", H * (dn + dr), C, False)
            linear(a + "kv_a_proj_with_mqa", r + dr, C, bias)
            s[a + "kv_a_layernorm.weight"] = (r,)
            linear(a + "kv_b_proj", H * (dn + dv), r, False)
            linear(a + "o_proj", C, H * dv, bias)
            post_norm_and_mlp(i, p)
            continue
        if c["layer_types"][i] == "linear_attention":  # Qwen3NextGatedDeltaNet
            nk, nv = c["linear_num_key_heads"], c["linear_num_value_heads"]
            dk, dv, K = c["linear_key_head_dim"], c["linear_value_head_dim"], c["linear_conv_kernel_dim"]
            a = p + "linear_attn."
            linear(a + "in_proj_qkvz", 2 * nk * dk + 2 * nv * dv, C, False)
            linear(a + "in_proj_ba", 2 * nv, C, False)
            s[a + "conv1d.weight"] = (2 * nk * dk + nv * dv, 1, K)
            s[a + "dt_bias"] = (nv,)
            s[a + "A_log"] = (nv,)
            s[a + "norm.weight"] = (dv,)
            linear(a + "out_proj", C, nv * dv, False)
            post_norm_and_mlp(i, p)
            continue
        if c["layer_types"][i] == "shared_kv_attention":  # llm0 extension: one row is K and V
            for proj, out, inp in (("q", H * D, C), ("kv", Hkv * D, C), ("o", C, H * D)):
                linear(p + f"self_attn.{proj}_proj", out, inp, False)
            if c["attention_sinks"]:
                s[p + "self_attn.sinks"] = (H,)
            post_norm_and_mlp(i, p)
            continue
        gate = 2 if c["attn_output_gate"] else 1
        for proj, out, inp in (("q", H * D * gate, C), ("k", Hkv * D, C), ("v", Hkv * D, C), ("o", C, H * D)):
            linear(p + f"self_attn.{proj}_proj", out, inp, c["o_bias"] if proj == "o" else c["qkv_bias"])
        if c["attention_sinks"]:
            s[p + "self_attn.sinks"] = (H,)
        if c["use_qk_norm"]:
            s[p + "self_attn.q_norm.weight"] = (D,)
            s[p + "self_attn.k_norm.weight"] = (D,)
        post_norm_and_mlp(i, p)
    norm("model.norm")
    if not c["tie_word_embeddings"]:
        s["lm_head.weight"] = (V, C)
    return s


# ---- the model ----

class Twin:
    """The llm0 architecture in PyTorch; params: {HF name: leaf tensor with requires_grad}."""

    def __init__(self, cfg, weights, dtype=torch.float32):
        self.c = cfg
        self.dtype = dtype
        shapes = param_shapes(cfg)
        extra = sorted(set(weights) - set(shapes) - {"lm_head.weight"})
        missing = sorted(set(shapes) - set(weights))
        if extra or missing:
            raise ValueError(f"checkpoint tensors differ from the config: missing {missing}, unexpected {extra}")
        self.params = {}
        for n, shape in shapes.items():
            w = np.asarray(weights[n])
            if tuple(w.shape) != tuple(shape):
                raise ValueError(f"{n}: shape {w.shape} != {shape}")
            self.params[n] = torch.tensor(w, dtype=dtype, requires_grad=True)

    def _norm(self, x, name):
        c, p = self.c, self.params
        eps = c["rms_norm_eps"]
        if c["norm_type"] == "layernorm":
            return torch.nn.functional.layer_norm(x, (x.shape[-1],), p[name + ".weight"], p[name + ".bias"], eps)
        return self._rms(x, p[name + ".weight"], eps)

    def _rms(self, x, w, eps, plain=False):
        """RMSNorm over the last dim; scale (1 + w) for Qwen3-Next's norms unless plain."""
        scale = 1.0 + w if self.c["unit_offset_norms"] and not plain else w
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * scale

    def _linear(self, x, name):
        return torch.nn.functional.linear(x, self.params[name + ".weight"], self.params.get(name + ".bias"))

    def _rope(self, x, T):
        """HF rotate_half on the first R dims; x [B, h, T, D]; angles in float64."""
        R = rotary_dim(self.c)
        half = R // 2
        inv = self.c["rope_theta"] ** (-2.0 * torch.arange(half, dtype=torch.float64) / R)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]  # [T, half]
        cos = torch.cat([torch.cos(ang)] * 2, -1).to(self.dtype)
        sin = torch.cat([torch.sin(ang)] * 2, -1).to(self.dtype)
        xr, xp = x[..., :R], x[..., R:]
        rot = torch.cat([-xr[..., half:], xr[..., :half]], -1)
        return torch.cat([xr * cos + rot * sin, xp], -1)

    def _attention(self, x, pre, sliding):
        c = self.c
        B, T, _ = x.shape
        H, Hkv, D = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        gate = None
        if c["attn_output_gate"]:  # Qwen3NextAttention: per head [query (D) | gate (D)]
            q, gate = torch.chunk(self._linear(x, pre + "q_proj").view(B, T, H, 2 * D), 2, dim=-1)
            gate = gate.reshape(B, T, H * D)
        else:
            q = self._linear(x, pre + "q_proj").view(B, T, H, D)
        k = self._linear(x, pre + "k_proj").view(B, T, Hkv, D)
        v = self._linear(x, pre + "v_proj").view(B, T, Hkv, D)
        if c["use_qk_norm"]:
            eps = c["rms_norm_eps"]
            q = self._rms(q, self.params[pre + "q_norm.weight"], eps)
            k = self._rms(k, self.params[pre + "k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B, h, T, D]
        if c["position_embedding_type"] == "rope":
            q, k = self._rope(q, T), self._rope(k, T)
        g = H // Hkv  # query head h reads KV head h // g
        k = k.repeat_interleave(g, dim=1)
        v = v.repeat_interleave(g, dim=1)
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(D))
        i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
        visible = j <= i
        if sliding:  # HF sliding_window_overlay: key j visible to query i iff j > i - W
            visible = visible & (j > i - c["sliding_window"])
        s = s.masked_fill(~visible, float("-inf"))
        if c["attention_sinks"]:  # gpt-oss eager_attention_forward: a sink column, dropped after
            sink = self.params[pre + "sinks"].reshape(1, H, 1, 1).expand(B, H, T, 1)
            p = torch.softmax(torch.cat([s, sink], -1), -1)[..., :-1]
        else:
            p = torch.softmax(s, -1)
        a = (p @ v).transpose(1, 2).reshape(B, T, H * D)
        if gate is not None:
            a = a * torch.sigmoid(gate)
        return self._linear(a, pre + "o_proj")

    def _gated_deltanet(self, x, pre):
        """Qwen3NextGatedDeltaNet with the delta rule as a plain per-token loop
        (torch_recurrent_gated_delta_rule), not llm0's chunked form."""
        c, p = self.c, self.params
        B, T, _ = x.shape
        nk, nv = c["linear_num_key_heads"], c["linear_num_value_heads"]
        dk, dv, K = c["linear_key_head_dim"], c["linear_value_head_dim"], c["linear_conv_kernel_dim"]
        r, F = nv // nk, torch.nn.functional
        qkvz = self._linear(x, pre + "in_proj_qkvz").view(B, T, nk, 2 * dk + 2 * r * dv)
        q, k, v, z = torch.split(qkvz, [dk, dk, r * dv, r * dv], dim=-1)
        b, a = torch.split(self._linear(x, pre + "in_proj_ba").view(B, T, nk, 2 * r), [r, r], dim=-1)
        mixed = torch.cat([q.reshape(B, T, -1), k.reshape(B, T, -1), v.reshape(B, T, -1)], -1)
        Cc = mixed.shape[-1]
        conv = F.conv1d(mixed.transpose(1, 2), p[pre + "conv1d.weight"], padding=K - 1, groups=Cc)
        mixed = F.silu(conv[..., :T]).transpose(1, 2)  # [B, T, Cc]
        q, k, v = torch.split(mixed, [nk * dk, nk * dk, nv * dv], dim=-1)
        q, k, v = q.reshape(B, T, nk, dk), k.reshape(B, T, nk, dk), v.reshape(B, T, nv, dv)
        q = q * torch.rsqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6) / math.sqrt(dk)
        k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
        q, k = q.repeat_interleave(r, dim=2), k.repeat_interleave(r, dim=2)  # value head j: key head j // r
        beta = torch.sigmoid(b.reshape(B, T, nv))
        g = -torch.exp(p[pre + "A_log"]) * F.softplus(a.reshape(B, T, nv) + p[pre + "dt_bias"])
        S = torch.zeros(B, nv, dk, dv, dtype=x.dtype)
        outs = []
        for t in range(T):
            S = S * torch.exp(g[:, t])[..., None, None]
            u = beta[:, t, :, None] * (v[:, t] - torch.einsum("bhkv,bhk->bhv", S, k[:, t]))
            S = S + torch.einsum("bhk,bhv->bhkv", k[:, t], u)
            outs.append(torch.einsum("bhkv,bhk->bhv", S, q[:, t]))
        o = torch.stack(outs, 1)  # [B, T, nv, dv]
        o = self._rms(o, p[pre + "norm.weight"], c["rms_norm_eps"], plain=True)
        o = o * F.silu(z.reshape(B, T, nv, dv))
        return self._linear(o.reshape(B, T, nv * dv), pre + "out_proj")

    def _rope_interleaved(self, x, T):
        """DeepSeek's complex-product RoPE: pairs (2i, 2i+1) of x [..., T, dr]; angles in float64."""
        dr = x.shape[-1]
        inv = self.c["rope_theta"] ** (-2.0 * torch.arange(dr // 2, dtype=torch.float64) / dr)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]  # [T, dr/2]
        cos, sin = torch.cos(ang).to(self.dtype), torch.sin(ang).to(self.dtype)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * cos - x1 * sin, x1 * cos + x0 * sin], -1).flatten(-2)

    def _mla(self, x, pre):
        """DeepseekV2Attention: latent c_kv + one shared rotary key, expanded per head."""
        c, p = self.c, self.params
        B, T, _ = x.shape
        H, dn, dr, dv, r = (c["num_attention_heads"], c["qk_nope_head_dim"], c["qk_rope_head_dim"],
                            c["v_head_dim"], c["kv_lora_rank"])

        def rms(v, name):  # the latent norms use eps 1e-6 (HF default)
            return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * p[name]

        if c["q_lora_rank"]:
            q = self._linear(rms(self._linear(x, pre + "q_a_proj"), pre + "q_a_layernorm.weight"), pre + "q_b_proj")
        else:
            q = self._linear(x, pre + "q_proj")
        q = q.view(B, T, H, dn + dr).transpose(1, 2)  # [B, H, T, D]
        kv_a = self._linear(x, pre + "kv_a_proj_with_mqa")
        latent, k_pe = kv_a[..., :r], kv_a[..., r:]
        kv = self._linear(rms(latent, pre + "kv_a_layernorm.weight"), pre + "kv_b_proj")
        kv = kv.view(B, T, H, dn + dv).transpose(1, 2)
        k_nope, v = kv[..., :dn], kv[..., dn:]
        q = torch.cat([q[..., :dn], self._rope_interleaved(q[..., dn:], T)], -1)
        k_pe = self._rope_interleaved(k_pe, T)[:, None].expand(B, H, T, dr)  # one head for all
        k = torch.cat([k_nope, k_pe], -1)
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(dn + dr))
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        a = torch.softmax(s, -1) @ v  # [B, H, T, dv]
        return self._linear(a.transpose(1, 2).reshape(B, T, H * dv), pre + "o_proj")

    def _shared_kv(self, x, pre):
        """llm0's shared-KV attention (src/layers/shared_kv_attention.h): s = kv_proj(x) is the
        key AND the value of its KV head; RoPE (interleaved pairs) on the last R dims of q and s;
        the output's last R dims turned back by -i before o_proj."""
        c = self.c
        B, T, _ = x.shape
        H, Hkv, D, R = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], rotary_dim(c)

        def rope_tail(v, sign):  # v [B, h, T, D]; angle sign * t * theta^(-2i/R)
            inv = c["rope_theta"] ** (-2.0 * torch.arange(R // 2, dtype=torch.float64) / R)
            ang = sign * torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
            cos, sin = torch.cos(ang).to(self.dtype), torch.sin(ang).to(self.dtype)
            tail = v[..., D - R:]
            t0, t1 = tail[..., 0::2], tail[..., 1::2]
            rot = torch.stack([t0 * cos - t1 * sin, t1 * cos + t0 * sin], -1).flatten(-2)
            return torch.cat([v[..., :D - R], rot], -1)

        q = rope_tail(self._linear(x, pre + "q_proj").view(B, T, H, D).transpose(1, 2), 1.0)
        kv = rope_tail(self._linear(x, pre + "kv_proj").view(B, T, Hkv, D).transpose(1, 2), 1.0)
        kv = kv.repeat_interleave(H // Hkv, dim=1)  # query head h reads KV head h // (H / Hkv)
        s = (q @ kv.transpose(-1, -2)) * (1.0 / math.sqrt(D))
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        if c["attention_sinks"]:
            sink = self.params[pre + "sinks"].reshape(1, H, 1, 1).expand(B, H, T, 1)
            p = torch.softmax(torch.cat([s, sink], -1), -1)[..., :-1]
        else:
            p = torch.softmax(s, -1)
        a = rope_tail(p @ kv, -1.0)  # [B, H, T, D], rotary tail back at relative positions
        return self._linear(a.transpose(1, 2).reshape(B, T, H * D), pre + "o_proj")

    def _mlp(self, x, pre):
        act = self.c["hidden_act"]
        up = self._linear(x, pre + "up_proj")
        if act == "silu":
            h = torch.nn.functional.silu(self._linear(x, pre + "gate_proj")) * up
        else:
            h = torch.nn.functional.gelu(up, approximate="none" if act == "gelu" else "tanh")
        return self._linear(h, pre + "down_proj")

    def _moe(self, x, pre):
        """HF-style sparse MoE block: route, then a loop over experts with index_add_ (as
        Qwen2MoeSparseMoeBlock); adds the Switch balancing loss to self.aux when configured."""
        m, p = self.c["moe"], self.params
        B, T, C = x.shape
        h = x.reshape(-1, C)
        N, E, K = h.shape[0], m["E"], m["K"]
        logits = h @ p[pre + "gate.weight"].t()
        scores = logits.softmax(-1) if m["scoring"] == "softmax" else logits.sigmoid()
        choice = scores.detach()
        if m["topk_method"] == "noaux_tc":
            choice = choice + p[pre + "gate.e_score_correction_bias"].detach()
        G = m["n_group"]
        if m["topk_method"] != "greedy" and G > 1:
            g = choice.view(N, G, E // G)
            gs = g.topk(2, -1).values.sum(-1) if m["topk_method"] == "noaux_tc" else g.max(-1).values
            keep = torch.zeros_like(gs, dtype=torch.bool).scatter_(1, gs.topk(m["topk_group"], -1).indices, True)
            choice = choice.masked_fill(~keep[:, :, None].expand(N, G, E // G).reshape(N, E), float("-inf"))
        idx = choice.topk(K, -1).indices  # [N, K]
        w = scores.gather(1, idx)
        if m["norm"]:
            w = w / w.sum(-1, keepdim=True)
        w = w * m["scale"]
        y = torch.zeros_like(h)
        for e in range(E):
            tok, slot = torch.where(idx == e)
            if tok.numel():
                y = y.index_add(0, tok, self._mlp(h[tok], pre + f"experts.{e}.") * w[tok, slot, None])
        if m["Fs"]:
            sh = self._mlp(h, pre + m["shared"] + ".")
            if m["gated"]:
                sh = sh * torch.sigmoid(h @ p[pre + "shared_expert_gate.weight"].t())
            y = y + sh
        if m["aux"]:
            f = torch.zeros(E, dtype=h.dtype).index_add_(0, idx.reshape(-1), torch.ones(N * K, dtype=h.dtype)) / N
            P = scores if m["scoring"] == "softmax" else scores / scores.sum(-1, keepdim=True)
            self.aux = self.aux + m["aux"] * E * (f * P.mean(0)).sum()
        return y.view(B, T, C)

    def logits(self, tokens):
        c, p = self.c, self.params
        B, T = tokens.shape
        self.aux = 0.0  # the MoE balancing loss of this forward (0 without one)
        x = p["model.embed_tokens.weight"][tokens]
        if c["position_embedding_type"] == "learned":
            x = x + p["model.embed_positions.weight"][:T][None]
        for i in range(c["num_hidden_layers"]):
            pre = f"model.layers.{i}."
            h = self._norm(x, pre + "input_layernorm")
            if c["mla"]:
                x = x + self._mla(h, pre + "self_attn.")
            elif c["layer_types"][i] == "linear_attention":
                x = x + self._gated_deltanet(h, pre + "linear_attn.")
            elif c["layer_types"][i] == "shared_kv_attention":
                x = x + self._shared_kv(h, pre + "self_attn.")
            else:
                x = x + self._attention(h, pre + "self_attn.", c["layer_types"][i] == "sliding_attention")
            ffn = self._moe if c["moe"]["layers"][i] else self._mlp
            x = x + ffn(self._norm(x, pre + "post_attention_layernorm"), pre + "mlp.")
        x = self._norm(x, "model.norm")
        head = p["model.embed_tokens.weight"] if c["tie_word_embeddings"] else p["lm_head.weight"]
        return x @ head.t()  # [B, T, V]

    def loss(self, tokens, targets):
        """(mean cross-entropy over targets >= 0 + the MoE balancing loss, logits [B, T, V], count)."""
        lg = self.logits(tokens)
        V = lg.shape[-1]
        y = targets.reshape(-1)
        count = int((y >= 0).sum())
        return torch.nn.functional.cross_entropy(lg.reshape(-1, V), y, ignore_index=-100,
                                                 reduction="sum") / count + self.aux, lg, count

    def optimizer(self, lr, weight_decay):
        """torch AdamW matching src/train/adamw.h: decay only params with >= 2 dims."""
        decay = [t for t in self.params.values() if t.dim() >= 2]
        rest = [t for t in self.params.values() if t.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8)


def _to_ids(a):
    t = torch.tensor(np.asarray(a).astype(np.int64))
    return t.masked_fill(t < 0, -100)  # cross_entropy's ignore_index


def run_twin(model_dir, tokens, targets, steps=0, lr=1e-3, weight_decay=0.1, dtype=torch.float32):
    """Loss, logits, gradients and the losses of `steps` AdamW steps of the checkpoint at model_dir.
    Returns {"loss", "count", "logits" [B*T, V] np, "grads" {name: np}, "losses" [L0..Lsteps]}."""
    cfg = load_config(os.path.join(model_dir, "config.json"))
    twin = Twin(cfg, read_safetensors(os.path.join(model_dir, "model.safetensors")), dtype)
    tok, tgt = _to_ids(tokens), _to_ids(targets)
    if tok.dim() != 2 or tok.shape != tgt.shape:
        raise ValueError(f"tokens {tuple(tok.shape)} and targets {tuple(tgt.shape)} must both be [B, T]")
    opt = twin.optimizer(lr, weight_decay)
    loss, lg, count = twin.loss(tok, tgt)
    loss.backward()
    out = {"loss": float(loss), "count": count, "losses": [float(loss)],
           "logits": lg.detach().reshape(-1, lg.shape[-1]).double().numpy(),
           # e_score_correction_bias only chooses experts: no gradient (zeros, as llm0 writes)
           "grads": {n: (t.grad if t.grad is not None else torch.zeros_like(t)).detach().double().numpy().copy()
                     for n, t in twin.params.items()}}
    for i in range(steps):  # step with the current gradient, then the loss of the new weights
        # An expert no token was routed to has gradient 0, not None: AdamW still decays it and
        # counts the step (llm0's AdamW steps every tensor, as with HF's fused experts tensor;
        # torch.optim skips a None gradient, which would leave it undecayed and its step count behind).
        for t in twin.params.values():
            if t.grad is None:
                t.grad = torch.zeros_like(t)
        opt.step()
        opt.zero_grad(set_to_none=False)
        loss, _, _ = twin.loss(tok, tgt)
        out["losses"].append(float(loss))
        if i + 1 < steps:
            loss.backward()
    return out


def _load_ids(path):
    if path.endswith(".json"):
        with open(path) as f:
            return np.array(json.load(f))
    return np.load(path)


# ---- training speed (scripts/bench_peers.sh): --bench-train ----

def bench_train(argv):
    """Times full training steps (zero_grad, forward, backward, AdamW) of a random-init model of
    a config on random tokens; prints one JSON line with tokens/s."""
    import time
    ap = argparse.ArgumentParser(prog="torch_twin.py --bench-train")
    ap.add_argument("--bench-train", action="store_true")
    ap.add_argument("--config", required=True, help="model config.json")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--steps", type=int, default=5, help="timed steps")
    ap.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    ap.add_argument("--autocast", choices=["none", "bf16"], default="none",
                    help="bf16: forward and loss under torch.autocast('cpu', dtype=torch.bfloat16) "
                         "(BF16 matrix products, float32 weights and AdamW: mixed precision as "
                         "PyTorch users train it)")
    a = ap.parse_args(argv)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    cfg = load_config(a.config)
    rng = np.random.default_rng(1)
    weights = {n: (rng.standard_normal(shape, dtype=np.float32) * 0.02 if len(shape) >= 2
                   else np.ones(shape, dtype=np.float32))
               for n, shape in param_shapes(cfg).items()}
    twin = Twin(cfg, weights)
    opt = twin.optimizer(1e-4, 0.1)
    g = torch.Generator().manual_seed(1234)
    shape = (a.batch_size, a.seq_len)
    tok = torch.randint(0, cfg["vocab_size"], shape, generator=g)
    tgt = torch.randint(0, cfg["vocab_size"], shape, generator=g)

    def step():
        opt.zero_grad(set_to_none=False)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.autocast == "bf16"):
            loss, _, _ = twin.loss(tok, tgt)
        loss.backward()
        opt.step()
        return float(loss)

    for _ in range(a.warmup):
        step()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    secs = time.perf_counter() - t0
    n = a.batch_size * a.seq_len
    print(json.dumps({"engine": "pytorch", "bench": "train", "config": a.config,
                      "threads": torch.get_num_threads(), "batch_size": a.batch_size,
                      "seq_len": a.seq_len, "steps": a.steps, "autocast": a.autocast,
                      "num_parameters": sum(t.numel() for t in twin.params.values()),
                      "seconds_per_step": secs / a.steps, "tokens_per_s": n * a.steps / secs,
                      "last_loss": loss, "torch": torch.__version__}))
    return 0


def main(argv=None):
    if "--bench-train" in (sys.argv[1:] if argv is None else argv):
        return bench_train(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="checkpoint directory (config.json + model.safetensors)")
    ap.add_argument("--tokens", required=True, help="token ids [B, T]: .npy or .json")
    ap.add_argument("--targets", required=True, help="targets [B, T] (< 0 ignored): .npy or .json")
    ap.add_argument("--steps", type=int, default=0, help="AdamW steps after the gradient")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    ap.add_argument("--output", required=True, help="output directory")
    a = ap.parse_args(argv)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    r = run_twin(a.model, _load_ids(a.tokens), _load_ids(a.targets), a.steps, a.lr, a.weight_decay,
                 torch.float64 if a.dtype == "float64" else torch.float32)
    os.makedirs(a.output, exist_ok=True)
    np.save(os.path.join(a.output, "logits.npy"), r["logits"].astype(np.float32))
    write_safetensors(os.path.join(a.output, "grads.safetensors"), r["grads"])
    with open(os.path.join(a.output, "losses.json"), "w") as f:
        json.dump({"loss": r["loss"], "count": r["count"], "losses": r["losses"]}, f, indent=1)
    print(f"twin: loss {r['loss']:.6f} over {r['count']} targets; {a.steps} AdamW steps -> {r['losses'][-1]:.6f}")


if __name__ == "__main__":
    sys.exit(main())
