// llm0 public API: text generation (Generator, sampling, UTF-8 streaming).
#pragma once
#include "infer/generator.h"    // IWYU pragma: export
#include "infer/generator_io.h" // IWYU pragma: export
#include "infer/sampler.h"      // IWYU pragma: export
