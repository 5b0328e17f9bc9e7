// Loss-curve chart: a self-contained SVG of training loss per step and validation loss at its
// evaluation steps (hand-written SVG 1.1, no dependencies).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace llm0 {

/// Writes an SVG line chart to `path` (atomically). train/val: (step, loss in nats/token).
/// Throws llm0::Error if the file cannot be written.
void write_loss_curve_svg(const std::string& path, const std::vector<std::pair<int, double>>& train,
                          const std::vector<std::pair<int, double>>& val, const std::string& title);

}  // namespace llm0
