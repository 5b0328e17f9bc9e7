// The plain chat template: how `llm0 serve` turns chat messages into one prompt text. llm0
// checkpoints carry no chat template (and llm0 has no Jinja engine for one a converted checkpoint
// may carry), so every chat request is rendered with this documented text format, and the model
// card of GET /v1/models says so. A model trained on plain text continues "Assistant:" as a
// document would; the stop string "\n\nUser:" ends its turn.
//
//   System: {content}\n\n        (role system or developer)
//   User: {content}\n\n          (role user)
//   Assistant: {content}\n\n     (role assistant)
//   Tool: {content}\n\n          (role tool)
//   Assistant:                   (the generation prompt; no trailing space)
#pragma once
#include <string>
#include <vector>

#include "serve/openai_protocol.h"

namespace llm0::serve {

/// Name of the template in the model card.
inline constexpr const char* kPlainTemplateName = "llm0-plain";
/// The template's description, as shown in the model card and README.
extern const char* const kPlainTemplateText;
/// Stop string added to every chat request (the start of the next user turn).
inline constexpr const char* kPlainTemplateStop = "\n\nUser:";

/// The prompt text for `messages` (>= 1), ending in "Assistant:".
std::string render_plain_chat(const std::vector<ChatMessage>& messages);

}  // namespace llm0::serve
