// OpenAI request bodies -> typed requests, validated field by field (the OpenAI API reference for
// POST /v1/completions and /v1/chat/completions; the extra sampling fields top_k, min_p and
// repetition_penalty follow vLLM's and llama.cpp server's names). Every refusal is an ApiError
// (400, naming the field) carrying OpenAI's error object; nothing here touches the model.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer/sampler.h"
#include "serve/api_error.h"

namespace llm0::serve {

enum class Endpoint { completions, chat_completions };

/// One chat message; content is plain text (an array of {"type": "text", "text"} parts is joined).
struct ChatMessage {
  std::string role;     // system, developer, user, assistant or tool
  std::string content;
};

/// A validated request. Absent (or null) fields keep these defaults.
struct CompletionRequest {
  Endpoint endpoint = Endpoint::completions;
  std::string model;                 // "" = not given (the served model)
  std::string prompt;                // completions: the prompt text ("" = start a new text)
  std::vector<int> prompt_ids;       // completions: the prompt as token ids (prompt_is_ids)
  bool prompt_is_ids = false;
  std::vector<ChatMessage> messages; // chat: >= 1 message
  int max_tokens = 0;                // tokens to generate at most, >= 1; 0 = not given
  SamplerConfig sampler;             // temperature (default 1), top_p, top_k, min_p,
                                     // repetition_penalty, seed
  bool seed_given = false;           // false: the server draws a seed
  std::vector<std::string> stop;     // up to 16 non-empty stop strings
  bool stream = false;               // server-sent events
  bool include_usage = false;        // stream_options.include_usage: a last chunk with usage
  int logprobs = -1;                 // -1 = none; n >= 0: log-prob of each chosen token and the
                                     // n most likely alternatives (completions: logprobs = n;
                                     // chat: logprobs = true, top_logprobs = n)
  bool ignore_eos = false;           // vLLM / llama.cpp extension: <|endoftext|> does not end the
                                     // text (benchmarks generate exactly max_tokens)
  nlohmann::json chat_template_kwargs{};  // chat, vLLM's extension: more variables for the model's
                                        // own chat template (e.g. enable_thinking); null = none
};

/// Most alternatives per token that logprobs / top_logprobs may ask for.
constexpr int kMaxTopLogprobs = 20;
/// Most stop strings per request.
constexpr int kMaxStopStrings = 16;

/// Parses and validates a request body for `endpoint`. Throws ApiError 400 for: a body that is not
/// JSON or not an object; a field of the wrong type (param = the field); a value out of range
/// (max_tokens < 1, temperature outside [0, 2], top_p outside (0, 1], top_k < -1 (-1 = off),
/// min_p outside [0, 1], repetition_penalty <= 0 or > 10, a negative seed, logprobs outside
/// [0, 20]); an empty stop string or more than 16; a missing prompt / messages, an empty prompt
/// array or message list, a message without a known role or text content; n, best_of other than
/// 1, echo true, a non-zero presence/frequency penalty or a logit_bias (not supported); a
/// non-boolean ignore_eos, a chat_template_kwargs that is not an object; and any
/// field the endpoint does not know ("Unrecognized request argument supplied: NAME", as OpenAI).
CompletionRequest parse_request(std::string_view body, Endpoint endpoint);

}  // namespace llm0::serve
