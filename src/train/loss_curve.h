// Loss-curve chart: a self-contained SVG of training loss per step, validation loss at its
// evaluation steps (line and markers) and the count baselines as dashed horizontal lines, with
// 1-2-5 ticks on both axes (train/chart_ticks.h) and a legend (hand-written SVG 1.1, no
// dependencies).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace llm0 {

/// A horizontal reference line: drawn dashed at `loss` (nats/token), its legend entry reading
/// "<name> <loss, 2 decimals>: <meaning>". A non-finite loss is left out.
struct CurveBaseline {
  std::string name;     // "unigram baseline"
  std::string meaning;  // "token frequencies, no context"
  double loss = 0;
};

/// The chart's SVG text. train/val: (step, loss in nats/token), ascending steps; non-finite losses
/// are skipped. Axes: x from the first to the last tick of nice_ticks(first step, last step, 8,
/// min_step 1), labelled with step numbers; y likewise over every loss and baseline. Text is
/// XML-escaped.
std::string loss_curve_svg(const std::vector<std::pair<int, double>>& train,
                           const std::vector<std::pair<int, double>>& val,
                           const std::vector<CurveBaseline>& baselines, const std::string& title);

/// Writes loss_curve_svg(...) to `path` (atomically). Throws llm0::Error if the file cannot be
/// written.
void write_loss_curve_svg(const std::string& path, const std::vector<std::pair<int, double>>& train,
                          const std::vector<std::pair<int, double>>& val,
                          const std::vector<CurveBaseline>& baselines, const std::string& title);

}  // namespace llm0
