// llm0 public API: training from zero (Trainer, options, corpus preparation).
#pragma once
#include "train/corpus.h"   // IWYU pragma: export
#include "train/trainer.h"  // IWYU pragma: export
