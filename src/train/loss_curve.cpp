// Loss-curve SVG. See loss_curve.h.
#include "train/loss_curve.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/atomic_file.h"

namespace llm0 {

namespace {
constexpr double kW = 720, kH = 420, kL = 70, kR = 20, kT = 40, kB = 50;  // canvas and margins

std::string polyline(const std::vector<std::pair<int, double>>& pts, double x0, double x1,
                     double y0, double y1, const char* colour) {
  std::ostringstream os;
  os << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
  for (const auto& [step, loss] : pts) {
    const double x = kL + (step - x0) / std::max(1.0, x1 - x0) * (kW - kL - kR);
    const double y = kT + (y1 - loss) / std::max(1e-9, y1 - y0) * (kH - kT - kB);
    os << x << "," << y << " ";
  }
  os << "\"/>\n";
  for (const auto& [step, loss] : pts) {  // markers, so a single point still shows
    const double x = kL + (step - x0) / std::max(1.0, x1 - x0) * (kW - kL - kR);
    const double y = kT + (y1 - loss) / std::max(1e-9, y1 - y0) * (kH - kT - kB);
    if (pts.size() < 60) os << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"2.5\" fill=\"" << colour << "\"/>\n";
  }
  return os.str();
}
}  // namespace

void write_loss_curve_svg(const std::string& path, const std::vector<std::pair<int, double>>& train,
                          const std::vector<std::pair<int, double>>& val, const std::string& title) {
  double x0 = 1e30, x1 = -1e30, y0 = 1e30, y1 = -1e30;
  for (const auto* s : {&train, &val})
    for (const auto& [step, loss] : *s) {
      if (!std::isfinite(loss)) continue;
      x0 = std::min(x0, (double)step), x1 = std::max(x1, (double)step);
      y0 = std::min(y0, loss), y1 = std::max(y1, loss);
    }
  if (x0 > x1) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << kL << "\" y=\"24\" font-size=\"14\">" << title << "</text>\n";
  for (int i = 0; i <= 4; ++i) {  // horizontal grid with loss labels
    const double y = kT + i * (kH - kT - kB) / 4, v = y1 - i * (y1 - y0) / 4;
    os << "<line x1=\"" << kL << "\" x2=\"" << kW - kR << "\" y1=\"" << y << "\" y2=\"" << y
       << "\" stroke=\"#ddd\"/><text x=\"8\" y=\"" << y + 4 << "\">" << std::round(v * 100) / 100 << "</text>\n";
  }
  os << "<text x=\"" << kL << "\" y=\"" << kH - 15 << "\">step " << (long)x0 << "</text><text x=\""
     << kW - kR - 80 << "\" y=\"" << kH - 15 << "\">step " << (long)x1 << "</text>\n"
     << polyline(train, x0, x1, y0, y1, "#1f77b4") << polyline(val, x0, x1, y0, y1, "#d62728")
     << "<text x=\"" << kW - 260 << "\" y=\"24\" fill=\"#1f77b4\">train loss</text><text x=\""
     << kW - 160 << "\" y=\"24\" fill=\"#d62728\">validation loss</text>\n</svg>\n";
  AtomicFile f(path);
  const std::string s = os.str();
  f.write(s.data(), s.size());
  f.commit();
}

}  // namespace llm0
