// gguf_model_tensors (see import_tensors.h).
#include "io/gguf/import_tensors.h"

#include <cmath>
#include <map>
#include <set>

#include "core/check.h"
#include "core/params.h"
#include "io/gguf/tensor_names.h"
#include "model/param_table.h"

namespace llm0 {

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// "model.layers.{il}.<rest>" -> il and rest; false for a name outside the layers.
bool split_layer(const std::string& name, int& il, std::string& rest) {
  const std::string pre = "model.layers.";
  if (name.rfind(pre, 0) != 0) return false;
  const size_t dot = name.find('.', pre.size());
  il = std::stoi(name.substr(pre.size(), dot - pre.size()));
  rest = name.substr(dot + 1);
  return true;
}

class Importer {
 public:
  Importer(const GgufMeta& m, const ModelConfig& c, DType dtype)
      : m_(m), c_(c), dtype_(dtype), arch_(m.req_string("general.architecture")) {}

  std::vector<HfTensor> run() {
    ParamStore table;
    declare_model_params(table, c_);
    std::vector<HfTensor> out;
    out.reserve(table.params().size());
    for (const ParamInfo& p : table.params()) {
      HfTensor t{p.name, p.shape, {}, DType::F32};
      convert(p, t);
      LLM0_CHECK(t.values.size() == p.numel, "{}: internal size mismatch for {}", m_.where, p.name);
      out.push_back(std::move(t));
    }
    for (const GgufTensorInfo& t : m_.file.tensors)
      LLM0_CHECK(used_.count(t.name), "{}: GGUF tensor {} {} is left over: no parameter of this {} "
                 "model uses it", m_.where, t.name, shape_text(t.shape()), arch_);
    return out;
  }

 private:
  const GgufMeta& m_;
  const ModelConfig& c_;
  DType dtype_;
  std::string arch_;
  std::set<std::string> used_;
  std::map<std::string, std::vector<float>> stacks_;  // expert stacks being unstacked

  // The GGUF tensor `name`, checked against `shape` (PyTorch order), marked used.
  const GgufTensorInfo& find(const std::string& name, const std::vector<int64_t>& shape,
                             const std::string& hf) {
    const GgufTensorInfo* t = m_.file.tensor(name);
    LLM0_CHECK(t != nullptr, "{}: GGUF tensor {} is missing (parameter {} of this {} model)",
               m_.where, name, hf, arch_);
    LLM0_CHECK(t->shape() == shape, "{}: GGUF tensor {} has shape {} but the config implies {} "
               "(parameter {})", m_.where, name, shape_text(t->shape()), shape_text(shape), hf);
    used_.insert(name);
    return *t;
  }

  // Written dtype of a parameter of `rank` whose values came unchanged from a `stored` tensor.
  DType dtype_of(GgmlType stored, size_t rank) const {
    if (stored == GgmlType::F16) return DType::F16;
    if (stored == GgmlType::BF16) return DType::BF16;
    return rank == 1 ? DType::F32 : dtype_;
  }

  // The tensor moved unchanged.
  void plain(const std::string& name, HfTensor& t, const std::vector<int64_t>& shape) {
    const GgufTensorInfo& g = find(name, shape, t.name);
    t.values = g.to_float();
    t.dtype = dtype_of(g.type, t.shape.dims.size());
  }

  void convert(const ParamInfo& p, HfTensor& t) {
    int il = -1;
    std::string rest;
    const bool in_layer = split_layer(p.name, il, rest);
    const std::string blk = "blk." + std::to_string(il) + ".";
    if (in_layer && rest.rfind("mlp.", 0) == 0 && c_.layer(il).has_experts())
      return moe(blk, rest.substr(4), t);
    if (arch_ == "qwen3next" && (in_layer ? rest.rfind("linear_attn.", 0) == 0 : false))
      return linear_attn(blk, rest.substr(12), t);
    if (arch_ == "qwen3next" && unit_offset(p.name, in_layer, rest))
      return minus_one(rest == "post_attention_layernorm.weight" ? blk + "post_attention_norm.weight"
                                                                 : gguf_tensor_name(p.name), t);
    if (in_layer && rest == "self_attn.kv_b_proj.weight") return kv_b(blk, t);
    const bool bias = p.name.ends_with(".bias");
    std::string name = gguf_tensor_name(bias ? p.name.substr(0, p.name.size() - 5) + ".weight" : p.name);
    if (bias) name = name.substr(0, name.size() - 7) + ".bias";
    plain(name, t, p.shape.dims);
    const bool q = rest == "self_attn.q_proj.weight", k = rest == "self_attn.k_proj.weight";
    if (arch_ == "llama" && (q || k))  // llama.cpp's adjacent-pair RoPE rows -> rotate-half
      t.values = rope_rows_to_rotate_half(t.values.data(), q ? c_.num_attention_heads
                                          : c_.num_key_value_heads, c_.head_dim, c_.hidden_size);
  }

  static bool unit_offset(const std::string& name, bool in_layer, const std::string& rest) {
    return name == "model.norm.weight" ||
           (in_layer && (rest == "input_layernorm.weight" || rest == "post_attention_layernorm.weight" ||
                         rest == "self_attn.q_norm.weight" || rest == "self_attn.k_norm.weight"));
  }

  // Qwen3-Next's (1 + w) norms, stored as 1 + w by the conversion: w = stored − 1 (F32).
  void minus_one(const std::string& name, HfTensor& t) {
    plain(name, t, t.shape.dims);
    for (float& x : t.values) x -= 1.0f;
    t.dtype = DType::F32;
  }

  void moe(const std::string& blk, const std::string& rest, HfTensor& t) {
    const std::vector<int64_t>& s = t.shape.dims;
    if (rest == "gate.weight") return plain(blk + "ffn_gate_inp.weight", t, s);
    if (rest == "gate.e_score_correction_bias") return plain(blk + "exp_probs_b.bias", t, s);
    if (rest == "shared_expert_gate.weight") {  // [1, C]; llama.cpp also reads a 1-D [C]
      const GgufTensorInfo* g = m_.file.tensor(blk + "ffn_gate_inp_shexp.weight");
      return plain(blk + "ffn_gate_inp_shexp.weight", t,
                   g && g->dims.size() == 1 ? std::vector<int64_t>{s[1]} : s);
    }
    LLM0_CHECK(rest.ends_with("_proj.weight"), "{}: parameter {} has no GGUF counterpart", m_.where, t.name);
    const size_t end = rest.size() - std::string("_proj.weight").size(), begin = rest.rfind('.', end) + 1;
    const std::string which = rest.substr(begin, end - begin);  // gate, up or down
    if (rest.rfind("shared_expert", 0) == 0) return plain(blk + "ffn_" + which + "_shexp.weight", t, s);
    // experts.{e}.{gate,up,down}_proj.weight: slice e of the stack [E, rows, cols]
    const int E = c_.moe.num_experts, e = std::stoi(rest.substr(8, rest.find('.', 8) - 8));
    const std::string name = blk + "ffn_" + which + "_exps.weight";
    auto it = stacks_.find(name);
    if (it == stacks_.end()) {
      const GgufTensorInfo& g = find(name, {E, s[0], s[1]}, t.name);
      it = stacks_.emplace(name, g.to_float()).first;
      stack_type_[name] = g.type;
    }
    const size_t n = (size_t)(s[0] * s[1]);
    t.values.assign(it->second.begin() + (ptrdiff_t)(e * n), it->second.begin() + (ptrdiff_t)((e + 1) * n));
    t.dtype = dtype_of(stack_type_[name], 2);
    if (e == E - 1) stacks_.erase(it);  // experts come in order: the stack is done
  }
  std::map<std::string, GgmlType> stack_type_;

  // kv_b_proj [H·(dn+dv), r] from attn_kv_b, or from attn_k_b [H, r, dn] and attn_v_b [H, dv, r].
  void kv_b(const std::string& blk, HfTensor& t) {
    const MlaConfig& m = c_.mla;
    const int H = c_.num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim, dv = m.v_head_dim;
    const bool whole = m_.file.tensor(blk + "attn_kv_b.weight") != nullptr;
    if (whole) plain(blk + "attn_kv_b.weight", t, t.shape.dims);
    const bool split = !whole || m_.file.tensor(blk + "attn_k_b.weight") != nullptr;
    if (!split) return;
    const GgufTensorInfo& kb = find(blk + "attn_k_b.weight", {H, r, dn}, t.name);
    const GgufTensorInfo& vb = find(blk + "attn_v_b.weight", {H, dv, r}, t.name);
    if (whole) return;  // both forms present: the unsplit one is used
    const std::vector<float> k = kb.to_float(), v = vb.to_float();
    const int E = dn + dv;
    t.values.resize((size_t)H * E * r);
    for (int h = 0; h < H; ++h) {
      for (int i = 0; i < dn; ++i)
        for (int j = 0; j < r; ++j)
          t.values[((size_t)h * E + i) * r + j] = k[((size_t)h * r + j) * dn + i];
      std::copy_n(v.begin() + (ptrdiff_t)h * dv * r, (size_t)dv * r,
                  t.values.begin() + (ptrdiff_t)(h * E + dn) * r);
    }
    t.dtype = kb.type == vb.type ? dtype_of(kb.type, 2) : dtype_;
  }

  void linear_attn(const std::string& blk, const std::string& rest, HfTensor& t) {
    const GatedDeltaNetConfig& d = c_.linear;
    const int nv = d.linear_num_value_heads, C = c_.hidden_size;
    if (rest == "in_proj_qkvz.weight") return qkvz(blk, t);
    if (rest == "in_proj_ba.weight") return plain(blk + "ssm_ba.weight", t, t.shape.dims);
    if (rest == "conv1d.weight")
      return plain(blk + "ssm_conv1d.weight", t, {d.conv_channels(), d.linear_conv_kernel_dim});
    if (rest == "dt_bias") return plain(blk + "ssm_dt.bias", t, {nv});
    if (rest == "norm.weight") return plain(blk + "ssm_norm.weight", t, t.shape.dims);
    if (rest == "out_proj.weight") return plain(blk + "ssm_out.weight", t, {C, d.value_dim()});
    LLM0_CHECK(rest == "A_log", "{}: parameter {} has no GGUF counterpart", m_.where, t.name);
    plain(blk + "ssm_a", t, {nv});
    for (float& a : t.values) {  // ssm_a = −exp(A_log)
      LLM0_CHECK(a < 0, "{}: GGUF tensor {}ssm_a holds {}, but −exp(A_log) is negative", m_.where, blk, a);
      a = std::log(-a);
    }
    t.dtype = DType::F32;
  }

  // attn_qkv [all q | all k | all v] + attn_gate [all z] -> in_proj_qkvz grouped by key head
  // ([q_h | k_h | v of group h | z of group h] for each key head h).
  void qkvz(const std::string& blk, HfTensor& t) {
    const GatedDeltaNetConfig& d = c_.linear;
    const int nk = d.linear_num_key_heads, dk = d.linear_key_head_dim, rv = d.value_dim() / nk;
    const size_t C = (size_t)c_.hidden_size, group = (size_t)(2 * dk + 2 * rv);
    const GgufTensorInfo& qkv_t = find(blk + "attn_qkv.weight", {d.conv_channels(), c_.hidden_size}, t.name);
    const GgufTensorInfo& z_t = find(blk + "attn_gate.weight", {d.value_dim(), c_.hidden_size}, t.name);
    const std::vector<float> qkv = qkv_t.to_float(), z = z_t.to_float();
    t.values.resize((size_t)d.qkvz_rows() * C);
    const auto rows = [&](const std::vector<float>& src, size_t src_row, size_t dst_row, size_t n) {
      std::copy_n(src.begin() + (ptrdiff_t)(src_row * C), n * C, t.values.begin() + (ptrdiff_t)(dst_row * C));
    };
    for (int h = 0; h < nk; ++h) {
      const size_t dst = (size_t)h * group;
      rows(qkv, (size_t)h * dk, dst, (size_t)dk);
      rows(qkv, (size_t)(d.key_dim() + h * dk), dst + dk, (size_t)dk);
      rows(qkv, (size_t)(2 * d.key_dim() + h * rv), dst + 2 * dk, (size_t)rv);
      rows(z, (size_t)h * rv, dst + 2 * dk + rv, (size_t)rv);
    }
    t.dtype = qkv_t.type == z_t.type ? dtype_of(qkv_t.type, 2) : dtype_;
  }
};

}  // namespace

std::vector<HfTensor> gguf_model_tensors(const GgufMeta& meta, const ModelConfig& cfg, DType dtype) {
  return Importer(meta, cfg, dtype).run();
}

}  // namespace llm0
