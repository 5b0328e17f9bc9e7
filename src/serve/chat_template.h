// The plain chat template: how `llm0 serve` turns chat messages into one prompt text for a model
// that ships no chat template of its own (every llm0-trained checkpoint; a model that ships one
// is rendered with it, src/chat/). The model card of GET /v1/models says which is used. A model
// trained on plain text continues "Assistant:" as a document would; the stop string "\n\nUser:"
// ends its turn.
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
