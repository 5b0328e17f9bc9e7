// Tokenize, name check, context and pool checks of one request (prepare_request.h).
#include "serve/prepare_request.h"

#include <algorithm>
#include <random>

#include "core/check.h"
#include "core/json_parse.h"
#include "infer/sequence.h"  // new_text_ids
#include "chat/jinja_error.h"
#include "serve/chat_template.h"

namespace llm0::serve {

std::vector<int> chat_stop_token_ids(const chat::ChatTemplate& t, const Tokenizer& tok, const ModelConfig& config) {
  std::vector<int> ids;
  for (const auto& [text, id] : tok.special_tokens())
    if (!t.eos_token.empty() && text == t.eos_token) ids.push_back(id);
  if (config.eos_token_id >= 0 && std::find(ids.begin(), ids.end(), config.eos_token_id) == ids.end())
    ids.push_back(config.eos_token_id);
  return ids;
}

namespace {
// The chat's prompt text by the model's own template (transformers' apply_chat_template with
// add_generation_prompt=True).
std::string render_own_template(const CompletionRequest& r, const chat::ChatTemplate& t) {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const ChatMessage& m : r.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  const nlohmann::ordered_json kwargs = r.chat_template_kwargs.is_null()
                                            ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json::parse(r.chat_template_kwargs.dump());
  try {
    return t.render(messages, true, kwargs);
  } catch (const Error& e) {
    throw ApiError(400, e.what(), "messages", "invalid_request_error", "invalid_value");
  }
}

std::vector<int> prompt_tokens(const CompletionRequest& r, const ServedModel& m) {
  const Tokenizer& tok = *m.tokenizer;
  if (r.endpoint == Endpoint::chat_completions)
    return tok.encode(m.chat_template ? render_own_template(r, *m.chat_template) : render_plain_chat(r.messages));
  if (r.prompt_is_ids) return r.prompt_ids;
  if (!r.prompt.empty()) return tok.encode_with_special_tokens(r.prompt);
  std::vector<int> ids = new_text_ids(tok);  // a new text: BOS, or <|endoftext|> as in training
  if (ids.empty())
    throw ApiError(400, "the prompt is empty and the tokenizer has no <|endoftext|> to start from", "prompt",
                   "invalid_request_error", "invalid_value");
  return ids;
}
}  // namespace

ServeRequest prepare_request(const CompletionRequest& r, const ServedModel& m) {
  if (!r.model.empty() && r.model != m.id)
    throw ApiError(404, format("The model '{}' does not exist; this server serves '{}'", text_excerpt(r.model), m.id),
                   "model", "invalid_request_error", "model_not_found");
  ServeRequest s;
  s.prompt = prompt_tokens(r, m);
  const int P = (int)s.prompt.size(), N = m.config->max_position_embeddings;
  for (int i = 0; i < P; ++i)  // ids given, or a tokenizer larger than the model's vocabulary
    if (s.prompt[(size_t)i] >= m.config->vocab_size)
      throw ApiError(400, format("prompt token id {} at position {} is outside the model's vocab_size={}",
                                 s.prompt[(size_t)i], i, m.config->vocab_size),
                     r.endpoint == Endpoint::chat_completions ? "messages" : "prompt", "invalid_request_error",
                     "invalid_value");
  if (P >= N)
    throw ApiError(400, format("This model's maximum context length is {} tokens; the prompt has {} "
                               "(no room for a generated token)", N, P),
                   r.endpoint == Endpoint::chat_completions ? "messages" : "prompt",
                   "invalid_request_error", "context_length_exceeded");
  if (r.max_tokens > 0 && (long long)P + r.max_tokens > N)
    throw ApiError(400, format("This model's maximum context length is {} tokens. However, you requested "
                               "{} tokens ({} in the prompt, {} for the completion)",
                               N, (long long)P + r.max_tokens, P, r.max_tokens),
                   "max_tokens", "invalid_request_error", "context_length_exceeded");
  // Chat's default: the rest of the context, or of what the whole pool holds if that is less.
  const long long pool_tokens = (long long)m.pages_total * m.page_size;
  const int fallback = r.endpoint == Endpoint::completions ? 16 : (int)std::max(1LL, std::min<long long>(N, pool_tokens) - P);
  s.max_tokens = r.max_tokens > 0 ? r.max_tokens : std::min(fallback, N - P);
  const long long pages = ((long long)P + s.max_tokens + m.page_size - 1) / m.page_size;
  if (pages > m.pages_total)
    throw ApiError(400, format("the request needs {} KV pages ({} tokens of {} per page) but the pool "
                               "holds {} (llm0 serve --kv-pages / --kv-memory)",
                               pages, P + s.max_tokens, m.page_size, m.pages_total),
                   "max_tokens", "invalid_request_error", "kv_pool_too_small");
  s.sampler = r.sampler;
  if (!r.seed_given) s.sampler.seed = ((uint64_t)std::random_device{}() << 32) ^ std::random_device{}();
  s.stop = r.stop;
  if (r.endpoint == Endpoint::chat_completions && m.chat_template) s.stop_token_ids = m.chat_stop_ids;
  else if (r.endpoint == Endpoint::chat_completions) s.stop.push_back(kPlainTemplateStop);
  s.logprobs = r.logprobs;
  s.ignore_eos = r.ignore_eos;
  return s;
}

}  // namespace llm0::serve
