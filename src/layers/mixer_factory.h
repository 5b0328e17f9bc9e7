// The one place that maps a layer's kinds (config/config.h LayerConfig) to the classes that
// implement the layer contracts: its token mixer (layers/mixer.h) and its feed-forward
// (layers/ffn.h). A new kind = its class + one line in mixer_factory.cpp.
#pragma once
#include <memory>

#include "config/config.h"
#include "layers/ffn.h"
#include "layers/mixer.h"

namespace llm0 {

class RopeTable;

/// The mixer of layer il of `cfg` (parameters unbound: Mixer::bind). `cfg` and `rope` (the
/// model's cos/sin table; null where nothing is computed, e.g. the ledger) must outlive it.
std::unique_ptr<Mixer> make_mixer(const ModelConfig& cfg, int il, const RopeTable* rope = nullptr);

/// Builds every layer's mixer once, without parameters, so that a config a mixer class refuses
/// (its static check_config, called by make_mixer) fails where it is loaded, before other work.
/// Throws that class's llm0::Error (naming cfg.source, the layer and the config.json field).
void check_mixers(const ModelConfig& cfg);

/// The feed-forward of layer il of `cfg` (unbound). `cfg` must outlive it.
std::unique_ptr<Ffn> make_ffn(const ModelConfig& cfg, int il);

}  // namespace llm0
