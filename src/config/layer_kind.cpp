// Lookups in the kind table. See layer_kind.h.
#include "config/layer_kind.h"

namespace llm0 {

const LayerKindInfo& layer_kind_info(LayerKind kind) {
  return kLayerKinds[static_cast<size_t>(kind)];  // in enum order (static_assert in the header)
}

std::optional<LayerKind> layer_kind_named(std::string_view layer_type) {
  for (const LayerKindInfo& k : kLayerKinds)
    if (!k.by_model_type && layer_type == k.layer_type) return k.kind;
  return std::nullopt;
}

std::string layer_type_names() {
  std::string s;
  for (const LayerKindInfo& k : kLayerKinds) {
    if (k.by_model_type) continue;
    s += s.empty() ? "" : ", ";
    s += k.layer_type;
    if (k.extension) s += " (llm0 extension)";
  }
  return s;
}

}  // namespace llm0
