// OpenAI response bodies: the completion / chat.completion objects, their streamed chunks (server-
// sent events), usage with prompt_tokens_details.cached_tokens (the prefix-cache hits, as OpenAI
// reports its prompt caching) and logprobs in each endpoint's layout (completions: tokens,
// token_logprobs, top_logprobs, text_offset; chat: content[{token, logprob, bytes, top_logprobs}]).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/openai_protocol.h"
#include "serve/request_stream.h"
#include "tokenizer/tokenizer.h"

namespace llm0::serve {

/// Identity of one response and what its chunks share.
struct ResponseContext {
  Endpoint endpoint = Endpoint::completions;
  std::string id;        // "cmpl-N" / "chatcmpl-N"
  long long created = 0; // Unix seconds
  std::string model;     // the served model's id
  int text_offset = 0;   // completions logprobs: characters (code points) of text before the next token
};

/// {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details": {"cached_tokens"}}.
nlohmann::json usage_json(const StreamUpdate& end);

/// The logprobs object of `tokens` for ctx.endpoint (advances ctx.text_offset), or null if empty
/// and not requested.
nlohmann::json logprobs_json(ResponseContext& ctx, const std::vector<TokenLogprob>& tokens,
                             const Tokenizer& tok, bool requested);

/// The whole non-streamed response: one choice with `text`, finish_reason and usage.
nlohmann::json completion_json(ResponseContext& ctx, const std::string& text,
                               const std::vector<TokenLogprob>& tokens, bool logprobs_requested,
                               const StreamUpdate& end, const Tokenizer& tok);

/// One streamed chunk: text delta (chat: delta.content, with delta.role on the first chunk),
/// logprobs of its tokens, finish_reason (null until the last chunk).
nlohmann::json chunk_json(ResponseContext& ctx, const std::string& text,
                          const std::vector<TokenLogprob>& tokens, bool logprobs_requested,
                          const std::string& finish_reason, bool first, const Tokenizer& tok);

/// The chunk that carries usage (stream_options.include_usage): choices [] and usage.
nlohmann::json usage_chunk_json(const ResponseContext& ctx, const StreamUpdate& end);

/// JSON text with invalid UTF-8 (a token ending mid-character) replaced by U+FFFD.
std::string dump_json(const nlohmann::json& j);

/// Characters (Unicode code points) of `s` as a JSON response shows it (bytes of an incomplete
/// UTF-8 character become U+FFFD, as dump_json writes them): the unit of the legacy completions'
/// `text_offset`, which OpenAI's and vLLM's Python servers count as len(text) in characters.
int json_characters(const std::string& s);

/// "data: <json>\n\n" (one server-sent event).
std::string sse_event(const nlohmann::json& j);

}  // namespace llm0::serve
