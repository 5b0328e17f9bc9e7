// llm0 public API: model configuration from a Hugging Face config.json (ModelConfig).
#pragma once
#include "config/config.h"  // IWYU pragma: export
