// llm0 public API: the byte-level BPE tokenizer (train, encode, decode, tokenizer.json).
#pragma once
#include "tokenizer/tokenizer.h"  // IWYU pragma: export
