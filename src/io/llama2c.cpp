// read_llama2c_model, interleaved_to_rotate_half (see llama2c.h). convert_llama2c lives in
// llama2c_convert.cpp.
#include "io/llama2c.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/check.h"

namespace llm0 {

namespace {

constexpr uint32_t kMagic = 0x616b3432;  // "ak42" little-endian, export.py version1/2 headers
constexpr int64_t kV1HeaderBytes = 256;

using Shape64 = std::vector<int64_t>;

int64_t numel(const Shape64& s) {  // of a shape whose bytes are known to fit the file
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// One tensor of the file: name ("" = skipped), shape, and whether its rows are q/k heads.
struct Slot {
  std::string name;
  Shape64 shape;
  int rope_heads = 0;  // > 0: permute rows from interleaved pairs (q: H, k: Hkv)
};

void check_header(const Llama2cHeader& h, const std::string& path) {
  LLM0_CHECK(h.dim > 0 && h.hidden_dim > 0 && h.n_layers > 0 && h.n_heads > 0 && h.n_kv_heads > 0 &&
                 h.vocab_size > 0 && h.seq_len > 0,
             "{}: llama2.c header has a size that is not positive (dim={}, hidden_dim={}, n_layers={}, "
             "n_heads={}, n_kv_heads={}, vocab_size={}, seq_len={})", path, h.dim, h.hidden_dim,
             h.n_layers, h.n_heads, h.n_kv_heads, h.vocab_size, h.seq_len);
  LLM0_CHECK(h.dim % h.n_heads == 0, "{}: llama2.c header: dim={} is not divisible by n_heads={}",
             path, h.dim, h.n_heads);
  LLM0_CHECK(h.n_heads % h.n_kv_heads == 0,
             "{}: llama2.c header: n_heads={} is not divisible by n_kv_heads={}", path, h.n_heads, h.n_kv_heads);
  LLM0_CHECK((h.dim / h.n_heads) % 2 == 0, "{}: llama2.c header: head size dim/n_heads={} is odd (RoPE "
             "rotates pairs)", path, h.dim / h.n_heads);
}

// The tensors of the file in storage order (legacy v0 or v1), with HF names.
std::vector<Slot> layout(const Llama2cHeader& h) {
  const int64_t C = h.dim, F = h.hidden_dim, L = h.n_layers, V = h.vocab_size, H = h.n_heads;
  const int64_t D = C / H, Hkv = h.n_kv_heads, Ckv = Hkv * D;
  auto per_layer = [&](const std::string& module, Shape64 shape, int rope_heads = 0) {
    std::vector<Slot> s;
    for (int64_t il = 0; il < L; ++il)
      s.push_back({"model.layers." + std::to_string(il) + "." + module + ".weight", shape, rope_heads});
    return s;
  };
  const std::vector<Slot> embed = {{"model.embed_tokens.weight", {V, C}}};
  const std::vector<Slot> final_norm = {{"model.norm.weight", {C}}};
  std::vector<std::vector<Slot>> groups;
  if (h.version == 0) {
    groups = {embed, per_layer("input_layernorm", {C}), per_layer("self_attn.q_proj", {C, C}, h.n_heads),
              per_layer("self_attn.k_proj", {Ckv, C}, h.n_kv_heads), per_layer("self_attn.v_proj", {Ckv, C}),
              per_layer("self_attn.o_proj", {C, C}), per_layer("post_attention_layernorm", {C}),
              per_layer("mlp.gate_proj", {F, C}), per_layer("mlp.down_proj", {C, F}),
              per_layer("mlp.up_proj", {F, C}), final_norm,
              {{"", {h.seq_len, D / 2}}, {"", {h.seq_len, D / 2}}}};  // freq_cis_real, freq_cis_imag
  } else {
    groups = {per_layer("input_layernorm", {C}), per_layer("post_attention_layernorm", {C}), final_norm,
              embed, per_layer("self_attn.q_proj", {C, C}, h.n_heads),
              per_layer("self_attn.k_proj", {Ckv, C}, h.n_kv_heads), per_layer("self_attn.v_proj", {Ckv, C}),
              per_layer("self_attn.o_proj", {C, C}), per_layer("mlp.gate_proj", {F, C}),
              per_layer("mlp.down_proj", {C, F}), per_layer("mlp.up_proj", {F, C})};
  }
  if (!h.shared_classifier) groups.push_back({{"lm_head.weight", {V, C}}});
  std::vector<Slot> out;
  for (auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

// Bytes the header's tensors take after the header (-1 beyond 9e18: a hostile header), computed
// first in double so that no int64 product can overflow.
int64_t expected_bytes(const Llama2cHeader& h, int64_t header_bytes) {
  const auto bytes = [&](auto zero) {
    using T = decltype(zero);
    const T C = h.dim, F = h.hidden_dim, L = h.n_layers, V = h.vocab_size, S = h.seq_len;
    const T D = C / h.n_heads, Ckv = h.n_kv_heads * D;
    const T per_layer = 2 * C + 2 * C * C + 2 * Ckv * C + 3 * F * C;  // norms, q o, k v, mlp
    T n = V * C + L * per_layer + C;
    if (h.version == 0) n += S * D;      // freq_cis_real and _imag, [S, D/2] each
    if (!h.shared_classifier) n += V * C;
    return header_bytes + 4 * n;
  };
  if (bytes(0.0) > 9e18) return -1;
  return bytes(int64_t{0});
}

int32_t read_i32(std::ifstream& in) {
  int32_t v = 0;
  in.read(reinterpret_cast<char*>(&v), sizeof v);
  return v;
}

// Reads the header; leaves `in` at the first tensor. Returns the header size in bytes.
int64_t read_header(std::ifstream& in, int64_t file_bytes, const std::string& path, Llama2cHeader& h) {
  LLM0_CHECK(file_bytes >= 28, "{}: {} bytes is too short for a llama2.c checkpoint (the header alone "
             "is 28 bytes)", path, file_bytes);
  const int32_t first = read_i32(in);
  int64_t header_bytes = 28;
  int32_t fields[7];
  if (static_cast<uint32_t>(first) == kMagic) {
    const int32_t version = read_i32(in);
    LLM0_CHECK(version != 2, "{}: llama2.c version 2 (Q8_0 export) is not supported: export the model "
               "with --version 1 (float32) or 0", path);
    LLM0_CHECK(version == 1, "{}: llama2.c header version {} is unknown (llm0 reads the legacy header "
               "and version 1)", path, version);
    LLM0_CHECK(file_bytes >= kV1HeaderBytes, "{}: {} bytes is too short for a llama2.c version 1 "
               "checkpoint (the header alone is {} bytes)", path, file_bytes, kV1HeaderBytes);
    for (int32_t& f : fields) f = read_i32(in);
    char shared = 0;
    in.read(&shared, 1);
    LLM0_CHECK(shared == 0 || shared == 1, "{}: llama2.c version 1 header: shared_classifier byte is {}, "
               "expected 0 or 1", path, int(shared));
    h.version = 1;
    h.shared_classifier = shared == 1;
    in.seekg(kV1HeaderBytes);
    header_bytes = kV1HeaderBytes;
  } else {
    fields[0] = first;
    for (int i = 1; i < 7; ++i) fields[i] = read_i32(in);
    h.version = 0;
    h.shared_classifier = fields[5] > 0;
    if (fields[5] < 0 && fields[5] != INT32_MIN) fields[5] = -fields[5];
  }
  h.dim = fields[0], h.hidden_dim = fields[1], h.n_layers = fields[2], h.n_heads = fields[3];
  h.n_kv_heads = fields[4], h.vocab_size = fields[5], h.seq_len = fields[6];
  check_header(h, path);
  return header_bytes;
}

}  // namespace

std::vector<float> interleaved_to_rotate_half(const std::vector<float>& w, int heads, int D, int cols) {
  LLM0_CHECK(D % 2 == 0 && w.size() == static_cast<size_t>(heads) * D * cols,
             "interleaved_to_rotate_half: {} values are not [{} x {}, {}] with an even head size",
             w.size(), heads, D, cols);
  std::vector<float> out(w.size());
  const size_t row = static_cast<size_t>(cols);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < D / 2; ++i)
      for (int j = 0; j < 2; ++j) {  // llama2.c row h*D + 2i + j -> HF row h*D + j*D/2 + i
        const size_t from = static_cast<size_t>(h) * D + 2 * i + j;
        const size_t to = static_cast<size_t>(h) * D + j * (D / 2) + i;
        std::memcpy(&out[to * row], &w[from * row], row * sizeof(float));
      }
  return out;
}

Llama2cModel read_llama2c_model(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  LLM0_CHECK(!ec && std::filesystem::is_regular_file(path), "{}: cannot read the llama2.c checkpoint ({})",
             path, ec ? ec.message() : "not a regular file");
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "{}: cannot open the llama2.c checkpoint", path);
  const int64_t file_bytes = static_cast<int64_t>(size);
  Llama2cModel m;
  const int64_t header_bytes = read_header(in, file_bytes, path, m.header);
  const int64_t expected = expected_bytes(m.header, header_bytes);
  const Llama2cHeader& h = m.header;
  LLM0_CHECK(expected == file_bytes,
             "{}: the llama2.c header (version {}, dim={}, hidden_dim={}, n_layers={}, n_heads={}, "
             "n_kv_heads={}, vocab_size={}, seq_len={}, {} classifier) implies {} bytes, the file has {} "
             "bytes ({})", path, h.version, h.dim, h.hidden_dim, h.n_layers, h.n_heads, h.n_kv_heads,
             h.vocab_size, h.seq_len, h.shared_classifier ? "shared" : "separate",
             expected >= 0 ? std::to_string(expected) : "more than 9e18", file_bytes,
             expected < 0 || expected > file_bytes ? "truncated?" : "extra data after the last tensor");
  const int D = h.dim / h.n_heads;
  for (const Slot& s : layout(h)) {  // built only now that the sizes match the file
    std::vector<float> v(static_cast<size_t>(numel(s.shape)));
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
    LLM0_CHECK(in.good(), "{}: read error in tensor {}", path, s.name.empty() ? "freq_cis" : s.name);
    if (s.name.empty()) continue;  // legacy RoPE tables: recomputed from rope_theta
    if (s.rope_heads > 0) v = interleaved_to_rotate_half(v, s.rope_heads, D, h.dim);
    m.names.push_back(s.name);
    m.shapes.push_back(s.shape);
    m.values.push_back(std::move(v));
  }
  return m;
}

}  // namespace llm0
