// From a validated OpenAI request to the scheduler's token-level request: the served model's name
// is checked, the prompt tokenized (chat: rendered with the plain template, chat_template.h), and
// the lengths checked against the context and the page pool, as OpenAI checks the context.
#pragma once
#include <string>

#include "config/config.h"
#include "serve/openai_protocol.h"
#include "serve/scheduler.h"
#include "tokenizer/tokenizer.h"

namespace llm0::serve {

/// What prepare_request needs to know of the served model.
struct ServedModel {
  std::string id;          // the model name requests may give
  const ModelConfig* config = nullptr;
  const Tokenizer* tokenizer = nullptr;
  int page_size = 16;      // of the engine's page pool
  int pages_total = 0;     // pages in the pool
};

/// Tokens of `r` and its sampling, ready to submit. Defaults: max_tokens 16 for completions (as
/// OpenAI), the rest of the context for chat (or of the tokens the whole pool holds, if fewer); a seed from std::random_device when none is given;
/// a chat request also stops at "\n\nUser:". An empty text prompt starts a new text from
/// <|endoftext|>. Throws ApiError: 404 model_not_found when r.model is neither "" nor m.id; 400 for
/// a prompt token id >= vocab_size (param prompt), an empty prompt with no <|endoftext|> token, a
/// prompt that fills the context, prompt + max_tokens over the context (code
/// context_length_exceeded, param max_tokens), or a sequence that needs more pages than the pool
/// holds (code kv_pool_too_small).
ServeRequest prepare_request(const CompletionRequest& r, const ServedModel& m);

}  // namespace llm0::serve
