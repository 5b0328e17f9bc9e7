// Response and chunk bodies of the OpenAI endpoints (openai_response.h).
#include "serve/openai_response.h"

#include <algorithm>

namespace llm0::serve {

using nlohmann::json;

namespace {
json byte_list(const std::string& s) {
  json b = json::array();
  for (unsigned char c : s) b.push_back((int)c);
  return b;
}

json chat_logprobs(const std::vector<TokenLogprob>& tokens, const Tokenizer& tok) {
  json content = json::array();
  for (const TokenLogprob& t : tokens) {
    json top = json::array();
    for (const auto& [id, lp] : t.top)
      top.push_back({{"token", tok.token_bytes(id)}, {"logprob", lp}, {"bytes", byte_list(tok.token_bytes(id))}});
    const std::string& s = tok.token_bytes(t.token);
    content.push_back({{"token", s}, {"logprob", t.logprob}, {"bytes", byte_list(s)}, {"top_logprobs", top}});
  }
  return {{"content", content}};
}

json completion_logprobs(ResponseContext& ctx, const std::vector<TokenLogprob>& tokens, const Tokenizer& tok) {
  json texts = json::array(), lps = json::array(), tops = json::array(), offsets = json::array();
  for (const TokenLogprob& t : tokens) {
    const std::string& s = tok.token_bytes(t.token);
    texts.push_back(s);
    lps.push_back(t.logprob);
    json top = json::object();
    for (const auto& [id, lp] : t.top) top[tok.token_bytes(id)] = lp;
    tops.push_back(top);
    offsets.push_back(ctx.text_offset);
    ctx.text_offset += json_characters(s);
  }
  return {{"tokens", texts}, {"token_logprobs", lps}, {"top_logprobs", tops}, {"text_offset", offsets}};
}

json finish(const std::string& reason) { return reason.empty() ? json(nullptr) : json(reason); }
}  // namespace

int json_characters(const std::string& s) {
  const std::string shown = json::parse(dump_json(json(s))).get<std::string>();
  return (int)std::count_if(shown.begin(), shown.end(), [](unsigned char c) { return (c & 0xC0) != 0x80; });
}

json usage_json(const StreamUpdate& end) {
  return {{"prompt_tokens", end.prompt_tokens},
          {"completion_tokens", end.completion_tokens},
          {"total_tokens", end.prompt_tokens + end.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", end.cached_tokens}}}};
}

json logprobs_json(ResponseContext& ctx, const std::vector<TokenLogprob>& tokens, const Tokenizer& tok,
                   bool requested) {
  if (!requested) return nullptr;
  return ctx.endpoint == Endpoint::chat_completions ? chat_logprobs(tokens, tok)
                                                    : completion_logprobs(ctx, tokens, tok);
}

json completion_json(ResponseContext& ctx, const std::string& text, const std::vector<TokenLogprob>& tokens,
                     bool logprobs_requested, const StreamUpdate& end, const Tokenizer& tok) {
  const bool chat = ctx.endpoint == Endpoint::chat_completions;
  json choice = {{"index", 0}, {"logprobs", logprobs_json(ctx, tokens, tok, logprobs_requested)},
                 {"finish_reason", finish(end.finish_reason)}};
  if (chat) choice["message"] = {{"role", "assistant"}, {"content", text}};
  else choice["text"] = text;
  return {{"id", ctx.id}, {"object", chat ? "chat.completion" : "text_completion"},
          {"created", ctx.created}, {"model", ctx.model}, {"system_fingerprint", "llm0"},
          {"choices", json::array({choice})}, {"usage", usage_json(end)}};
}

json chunk_json(ResponseContext& ctx, const std::string& text, const std::vector<TokenLogprob>& tokens,
                bool logprobs_requested, const std::string& finish_reason, bool first, const Tokenizer& tok) {
  const bool chat = ctx.endpoint == Endpoint::chat_completions;
  json choice = {{"index", 0}, {"logprobs", logprobs_json(ctx, tokens, tok, logprobs_requested)},
                 {"finish_reason", finish(finish_reason)}};
  if (chat) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || first) delta["content"] = text;
    choice["delta"] = delta;
  } else {
    choice["text"] = text;
  }
  return {{"id", ctx.id}, {"object", chat ? "chat.completion.chunk" : "text_completion"},
          {"created", ctx.created}, {"model", ctx.model}, {"system_fingerprint", "llm0"},
          {"choices", json::array({choice})}};
}

json usage_chunk_json(const ResponseContext& ctx, const StreamUpdate& end) {
  const bool chat = ctx.endpoint == Endpoint::chat_completions;
  return {{"id", ctx.id}, {"object", chat ? "chat.completion.chunk" : "text_completion"},
          {"created", ctx.created}, {"model", ctx.model}, {"system_fingerprint", "llm0"},
          {"choices", json::array()}, {"usage", usage_json(end)}};
}

std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& j) { return "data: " + dump_json(j) + "\n\n"; }

}  // namespace llm0::serve
