// Loss-curve SVG. See loss_curve.h.
#include "train/loss_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/atomic_file.h"
#include "train/chart_ticks.h"

namespace llm0 {

namespace {
constexpr double kW = 760, kH = 460;                       // canvas
constexpr double kL = 64, kR = 24, kB = 52;  // plot margins: loss labels, right, step labels
constexpr double kRow = 18, kLegend0 = 46;     // legend rows, the first one's baseline
constexpr const char* kTrain = "#1f77b4", *kVal = "#d62728", *kAxis = "#444", *kGrid = "#e4e4e4";
struct Dash { const char* colour; const char* pattern; };
constexpr Dash kBaselineStyle[] = {{"#7f7f7f", "7 4"}, {"#2ca02c", "3 3"}, {"#9467bd", "10 3 2 3"}};

std::string num(double v) {  // an SVG coordinate
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string escaped(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '&') r += "&amp;";
    else if (c == '<') r += "&lt;";
    else if (c == '>') r += "&gt;";
    else if (c == '"') r += "&quot;";
    else r += c;
  }
  return r;
}

// Data (step, loss) -> pixels over the axes' tick ranges.
struct Frame {
  AxisTicks xt, yt;
  double top;  // the plot's top edge: below the title and the legend
  double x(double step) const {
    return kL + (step - xt.values.front()) / (xt.values.back() - xt.values.front()) * (kW - kL - kR);
  }
  double y(double loss) const {
    return top + (yt.values.back() - loss) / (yt.values.back() - yt.values.front()) * (kH - top - kB);
  }
};

void axes(std::ostringstream& os, const Frame& f) {
  for (double v : f.yt.values)  // horizontal grid and loss labels
    os << "<line x1=\"" << kL << "\" x2=\"" << kW - kR << "\" y1=\"" << num(f.y(v)) << "\" y2=\""
       << num(f.y(v)) << "\" stroke=\"" << kGrid << "\"/><text x=\"" << kL - 8 << "\" y=\""
       << num(f.y(v) + 4) << "\" text-anchor=\"end\">" << tick_label(v, f.yt) << "</text>\n";
  for (double v : f.xt.values)  // vertical grid, tick marks and step labels
    os << "<line x1=\"" << num(f.x(v)) << "\" x2=\"" << num(f.x(v)) << "\" y1=\"" << f.top << "\" y2=\""
       << kH - kB << "\" stroke=\"" << kGrid << "\"/><line x1=\"" << num(f.x(v)) << "\" x2=\""
       << num(f.x(v)) << "\" y1=\"" << kH - kB << "\" y2=\"" << kH - kB + 5 << "\" stroke=\"" << kAxis
       << "\"/><text x=\"" << num(f.x(v)) << "\" y=\"" << kH - kB + 19 << "\" text-anchor=\"middle\">"
       << tick_label(v, f.xt) << "</text>\n";
  os << "<rect x=\"" << kL << "\" y=\"" << f.top << "\" width=\"" << kW - kL - kR << "\" height=\""
     << kH - f.top - kB << "\" fill=\"none\" stroke=\"" << kAxis << "\"/>\n"
     << "<text x=\"" << num((kL + kW - kR) / 2) << "\" y=\"" << kH - 10
     << "\" text-anchor=\"middle\">step</text>\n"
     << "<text transform=\"translate(16 " << num((f.top + kH - kB) / 2)
     << ") rotate(-90)\" text-anchor=\"middle\">loss (nats/token)</text>\n";
}

void series(std::ostringstream& os, const Frame& f, const std::vector<std::pair<int, double>>& pts,
            const char* colour, bool markers) {
  std::ostringstream line;
  int n = 0;
  for (const auto& [step, loss] : pts)
    if (std::isfinite(loss)) line << num(f.x(step)) << "," << num(f.y(loss)) << " ", ++n;
  if (n > 1)
    os << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.6\" "
       << "stroke-linejoin=\"round\" points=\"" << line.str() << "\"/>\n";
  if (!markers && n != 1) return;  // a single point still shows
  for (const auto& [step, loss] : pts)
    if (std::isfinite(loss))
      os << "<circle cx=\"" << num(f.x(step)) << "\" cy=\"" << num(f.y(loss)) << "\" r=\"3.2\" fill=\""
         << colour << "\" stroke=\"white\" stroke-width=\"1\"/>\n";
}

// One legend entry at (x, y): a 28-pixel sample of the line, then the text.
void legend(std::ostringstream& os, double x, double y, const char* colour, const char* dash,
            bool marker, const std::string& text) {
  os << "<line x1=\"" << x << "\" x2=\"" << x + 28 << "\" y1=\"" << y - 4 << "\" y2=\"" << y - 4
     << "\" stroke=\"" << colour << "\" stroke-width=\"1.6\"" << (dash ? " stroke-dasharray=\"" : "")
     << (dash ? dash : "") << (dash ? "\"" : "") << "/>";
  if (marker)
    os << "<circle cx=\"" << x + 14 << "\" cy=\"" << y - 4 << "\" r=\"3.2\" fill=\"" << colour << "\"/>";
  os << "<text x=\"" << x + 34 << "\" y=\"" << y << "\">" << escaped(text) << "</text>\n";
}
}  // namespace

std::string loss_curve_svg(const std::vector<std::pair<int, double>>& train,
                           const std::vector<std::pair<int, double>>& val,
                           const std::vector<CurveBaseline>& baselines, const std::string& title) {
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto* s : {&train, &val})
    for (const auto& [step, loss] : *s)
      if (std::isfinite(loss))
        x0 = std::min(x0, (double)step), x1 = std::max(x1, (double)step),
        y0 = std::min(y0, loss), y1 = std::max(y1, loss);
  for (const CurveBaseline& b : baselines)
    if (std::isfinite(b.loss)) y0 = std::min(y0, b.loss), y1 = std::max(y1, b.loss);
  if (x0 > x1) x0 = 0, x1 = 1;  // nothing logged yet: an empty frame
  if (y0 > y1) y0 = 0, y1 = 1;
  size_t drawn = 0;  // baselines drawn
  for (const CurveBaseline& b : baselines) drawn += std::isfinite(b.loss) ? 1 : 0;
  // Legend: the two losses in the left column, the baselines in the right one, a row each.
  const double rows = (double)std::max<size_t>(2, drawn);
  const Frame f{nice_ticks(x0, x1, 8, 1), nice_ticks(y0, y1, 8), kLegend0 + kRow * rows};

  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
     << "\" viewBox=\"0 0 " << kW << " " << kH << "\" font-family=\"sans-serif\" font-size=\"12\" "
     << "fill=\"#222\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << kL << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">" << escaped(title)
     << "</text>\n";
  axes(os, f);
  constexpr double kColumn2 = kL + 250;
  legend(os, kL, kLegend0, kTrain, nullptr, false, "train loss (one batch per step)");
  legend(os, kL, kLegend0 + kRow, kVal, nullptr, true, "validation loss");
  size_t shown = 0;
  for (const CurveBaseline& b : baselines) {
    if (!std::isfinite(b.loss)) continue;
    const Dash& d = kBaselineStyle[std::min(shown, std::size(kBaselineStyle) - 1)];
    const double y = f.y(b.loss);
    os << "<line x1=\"" << kL << "\" x2=\"" << kW - kR << "\" y1=\"" << num(y) << "\" y2=\"" << num(y)
       << "\" stroke=\"" << d.colour << "\" stroke-width=\"1.6\" stroke-dasharray=\"" << d.pattern
       << "\"><title>" << escaped(b.name) << "</title></line>\n";
    char value[32];
    std::snprintf(value, sizeof value, "%.2f", b.loss);
    legend(os, kColumn2, kLegend0 + kRow * (double)shown, d.colour, d.pattern, false,
           b.name + " " + value + ": " + b.meaning);
    ++shown;
  }
  series(os, f, train, kTrain, false);
  series(os, f, val, kVal, true);
  os << "</svg>\n";
  return os.str();
}

void write_loss_curve_svg(const std::string& path, const std::vector<std::pair<int, double>>& train,
                          const std::vector<std::pair<int, double>>& val,
                          const std::vector<CurveBaseline>& baselines, const std::string& title) {
  const std::string s = loss_curve_svg(train, val, baselines, title);
  AtomicFile file(path);
  file.write(s.data(), s.size());
  file.commit();
}

}  // namespace llm0
