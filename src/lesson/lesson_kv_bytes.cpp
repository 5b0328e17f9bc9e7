// Engine vs ledger cache bytes per dtype. See lesson_kv_bytes.h.
#include "lesson/lesson_kv_bytes.h"

#include "core/check.h"
#include "ledger/kv_ledger.h"
#include "model/infer_context.h"

namespace llm0::lesson {

std::vector<KvBytesRow> measure_kv_bytes(Model& model, const std::vector<int>& tokens) {
  const ElementType saved = model.kv_dtype();
  std::vector<KvBytesRow> rows;
  std::vector<float> logits((size_t)model.config().vocab_size);
  for (ElementType dtype : {ElementType::F32, ElementType::BF16}) {
    model.set_kv_dtype(dtype);
    ModelCache cache = model.new_cache((int)tokens.size());
    InferContext ctx(model);
    model.forward_cached(tokens.data(), (int)tokens.size(), cache, ctx, logits.data(), true);
    KvOptions opt;
    opt.dtype = dtype, opt.context = (int64_t)tokens.size();
    rows.push_back({element_type_name(dtype), (int)tokens.size(), cache.bytes_in_use(),
                    kv_ledger(model.config().to_json(), opt).kv_bytes_at_context});
  }
  model.set_kv_dtype(saved);
  return rows;
}

std::string kv_bytes_text(const std::vector<KvBytesRow>& rows) {
  std::string s;
  for (const KvBytesRow& r : rows)
    s += format("  cache bytes after {} tokens, {} (--kv-dtype {}): engine {}, ledger (llm0 kv "
                "--dtype {}) {}{}\n", r.length, r.dtype, r.dtype, r.engine_bytes,
                element_type_ledger_name(parse_element_type(r.dtype)), r.ledger_bytes,
                r.engine_bytes == r.ledger_bytes ? " (equal)" : " (DIFFERENT)");
  return s;
}

nlohmann::json kv_bytes_json(const std::vector<KvBytesRow>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const KvBytesRow& r : rows)
    j.push_back({{"dtype", r.dtype}, {"length", r.length}, {"engine_bytes", r.engine_bytes},
                 {"ledger_bytes", r.ledger_bytes}});
  return j;
}

}  // namespace llm0::lesson
