// From a validated OpenAI request to the scheduler's token-level request: the served model's name
// is checked, the prompt tokenized (chat: rendered with the model's own chat template, src/chat/,
// or else llm0's plain template, chat_template.h), and the lengths checked against the context
// and the page pool, as OpenAI checks the context.
#pragma once
#include <string>

#include "chat/chat_template.h"
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
  const chat::ChatTemplate* chat_template = nullptr;  // the model's own; null = the plain template
  std::vector<int> chat_stop_ids{};  // ids that end an assistant turn (chat_stop_token_ids)
};

/// The ids that end a turn of `t`'s chats: its eos_token's id (when the tokenizer has that token)
/// and the config's eos_token_id (when >= 0), each once.
std::vector<int> chat_stop_token_ids(const chat::ChatTemplate& t, const Tokenizer& tok, const ModelConfig& config);

/// Tokens of `r` and its sampling, ready to submit. Defaults: max_tokens 16 for completions (as
/// OpenAI), the rest of the context for chat (or of the tokens the whole pool holds, if fewer); a seed from std::random_device when none is given;
/// a chat request is rendered with m.chat_template (add_generation_prompt true, the request's
/// chat_template_kwargs) and stops at m.chat_stop_ids, or, with no template, is rendered with the
/// plain template and stops at "\n\nUser:". An empty text prompt starts a new text from
/// <|endoftext|>. Throws ApiError: 404 model_not_found when r.model is neither "" nor m.id; 400 for
/// a prompt token id >= vocab_size (param prompt), an empty prompt with no <|endoftext|> token, a
/// prompt that fills the context, prompt + max_tokens over the context (code
/// context_length_exceeded, param max_tokens), or a sequence that needs more pages than the pool
/// holds (code kv_pool_too_small), a conversation the chat template refuses or cannot render
/// (param messages, the template's message) or chat_template_kwargs it may not take.
ServeRequest prepare_request(const CompletionRequest& r, const ServedModel& m);

}  // namespace llm0::serve
