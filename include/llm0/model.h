// llm0 public API: the model (training forward/backward, cached inference), its caches and
// inference contexts,
// initialisation and checkpoint directories.
#pragma once
#include "cache/model_cache.h"  // IWYU pragma: export
#include "io/checkpoint.h"      // IWYU pragma: export
#include "model/infer_context.h"  // IWYU pragma: export
#include "model/init.h"         // IWYU pragma: export
#include "model/model.h"        // IWYU pragma: export
