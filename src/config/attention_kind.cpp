// Attention kinds and a model's attention label. See attention_kind.h.
#include "config/attention_kind.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

AttentionKind attention_kind_of(int64_t num_attention_heads, int64_t num_key_value_heads,
                                bool latent) {
  if (latent) return AttentionKind::kMLA;
  if (num_key_value_heads >= num_attention_heads) return AttentionKind::kMHA;
  return num_key_value_heads == 1 ? AttentionKind::kMQA : AttentionKind::kGQA;
}

const char* attention_kind_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kMHA: return "MHA";
    case AttentionKind::kGQA: return "GQA";
    case AttentionKind::kMQA: return "MQA";
    case AttentionKind::kMLA: return "MLA";
  }
  return "?";
}

std::string attention_kind_label(AttentionKind kind, int64_t groups) {
  return kind == AttentionKind::kGQA ? format("GQA:{}", groups) : attention_kind_name(kind);
}

std::string attention_label(const std::vector<AttentionPart>& parts, int64_t sliding_window,
                            std::string_view recomputed_as) {
  std::vector<std::string> growing, fixed;
  for (const AttentionPart& p : parts) {
    std::vector<std::string>& list = p.grows ? growing : fixed;
    if (std::find(list.begin(), list.end(), p.name) == list.end()) list.push_back(p.name);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : " + ") + x;
    return s;
  };
  std::string s = growing.size() > 1 ? "mixed: " + join(growing) : join(growing);
  if (!fixed.empty()) s = growing.empty() ? join(fixed) : "hybrid: " + join(growing) + " + " + join(fixed);
  if (sliding_window > 0) s += format(", sliding window {}", sliding_window);
  if (!recomputed_as.empty()) s += " (recomputed as " + std::string(recomputed_as) + ")";
  return s;
}

}  // namespace llm0
