// A hand-written SVG 1.1 writer for the lessons' pictures (no dependency): rectangles, lines,
// polylines, circles and text in user units (1 unit = 1 px, origin top-left, y down), plus a
// log-log line chart used by `llm0 lesson kv-cache --svg`.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace llm0::lesson {

/// Builds one SVG document in memory.
class Svg {
 public:
  /// A canvas of width × height px with a white background.
  Svg(double width, double height);
  /// Rectangle with top-left (x, y), size w × h; `fill` may be "none".
  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& stroke = "#333", double opacity = 1.0);
  /// Straight line; dashed draws a 4-3 dash pattern.
  void line(double x1, double y1, double x2, double y2, const std::string& stroke,
            double width = 1.0, bool dashed = false);
  /// Open polyline through `points` (no fill).
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                double width = 2.0, bool dashed = false);
  /// Filled circle (a chart marker).
  void circle(double cx, double cy, double r, const std::string& fill);
  /// Text at (x, y) baseline, rotated 90° counter-clockwise when rotate_ccw; anchor "start" | "middle" | "end"; the text is XML-escaped.
  void text(double x, double y, const std::string& s, double size = 12,
            const std::string& anchor = "start", const std::string& fill = "#111",
            bool rotate_ccw = false);
  /// The complete document.
  std::string str() const;

 private:
  double width_, height_;
  std::string body_;
};

/// "&amp;", "&lt;", "&gt;", "&quot;" for the five XML special characters.
std::string xml_escape(const std::string& s);

/// One series of a chart: (x, y) points, all > 0 for a log-log chart.
struct ChartSeries {
  std::string label;
  std::string color;   ///< any SVG colour, e.g. "#d62728"
  bool dashed = false;
  std::vector<std::pair<double, double>> points;
};

/// A log-log line chart (decade grid lines, point markers, a legend). Throws llm0::Error if a
/// point is not positive or there are no points.
std::string loglog_chart(const std::string& title, const std::string& x_label,
                         const std::string& y_label, const std::vector<ChartSeries>& series);

/// Writes `text` to `path`. Throws llm0::Error naming the path if it cannot be written.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace llm0::lesson
