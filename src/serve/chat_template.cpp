// The plain chat template (chat_template.h).
#include "serve/chat_template.h"

namespace llm0::serve {

const char* const kPlainTemplateText =
    "{Label}: {content}\\n\\n per message (System for system/developer, User, Assistant, Tool), "
    "then \"Assistant:\"; generation stops at \"\\n\\nUser:\"";

namespace {
const char* label(const std::string& role) {
  if (role == "system" || role == "developer") return "System";
  if (role == "assistant") return "Assistant";
  if (role == "tool") return "Tool";
  return "User";
}
}  // namespace

std::string render_plain_chat(const std::vector<ChatMessage>& messages) {
  std::string text;
  for (const ChatMessage& m : messages) text += std::string(label(m.role)) + ": " + m.content + "\n\n";
  return text + "Assistant:";
}

}  // namespace llm0::serve
