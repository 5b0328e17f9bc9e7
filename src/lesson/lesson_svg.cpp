// SVG writer and log-log chart (see lesson_svg.h).
#include "lesson/lesson_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "core/check.h"

namespace llm0::lesson {

namespace {
// Fixed-point number for attributes ("12.5").
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}
}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

Svg::Svg(double width, double height) : width_(width), height_(height) {
  rect(0, 0, width, height, "#ffffff", "none");
}

void Svg::rect(double x, double y, double w, double h, const std::string& fill,
               const std::string& stroke, double opacity) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
           num(h) + "\" fill=\"" + fill + "\" stroke=\"" + stroke + "\" fill-opacity=\"" +
           num(opacity) + "\"/>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke,
               double width, bool dashed) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
           num(y2) + "\" stroke=\"" + stroke + "\" stroke-width=\"" + num(width) + "\"" +
           (dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>\n";
}

void Svg::polyline(const std::vector<std::pair<double, double>>& pts, const std::string& stroke,
                   double width, bool dashed) {
  std::string p;
  for (const auto& [x, y] : pts) p += num(x) + "," + num(y) + " ";
  body_ += "<polyline fill=\"none\" stroke=\"" + stroke + "\" stroke-width=\"" + num(width) + "\"" +
           (dashed ? " stroke-dasharray=\"6 4\"" : "") + " points=\"" + p + "\"/>\n";
}

void Svg::circle(double cx, double cy, double r, const std::string& fill) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" +
           fill + "\"/>\n";
}

void Svg::text(double x, double y, const std::string& s, double size, const std::string& anchor,
               const std::string& fill, bool rotate_ccw) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) +
           "\" text-anchor=\"" + anchor + "\" fill=\"" + fill + "\"" +
           (rotate_ccw ? " transform=\"rotate(-90 " + num(x) + " " + num(y) + ")\"" : "") + ">" +
           xml_escape(s) + "</text>\n";
}

std::string Svg::str() const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\"" + num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " +
         num(width_) + " " + num(height_) + "\" font-family=\"sans-serif\">\n" + body_ +
         "</svg>\n";
}

std::string loglog_chart(const std::string& title, const std::string& x_label,
                         const std::string& y_label, const std::vector<ChartSeries>& series) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = 0, y0 = x0, y1 = 0;
  for (const ChartSeries& s : series)
    for (const auto& [x, y] : s.points) {
      LLM0_CHECK(x > 0 && y > 0, "log-log chart \"{}\": point ({}, {}) is not positive", title,
                 x, y);
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  LLM0_CHECK(x1 > 0, "log-log chart \"{}\" has no points", title);
  // whole decades around the data
  const double lx0 = std::floor(std::log10(x0)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(x1)));
  const double ly0 = std::floor(std::log10(y0)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(y1)));
  const double W = 860, Hh = 480, L = 80, R = 340, Tp = 40, B = 60;  // R: room for the legend
  const double pw = W - L - R, ph = Hh - Tp - B;
  auto px = [&](double x) { return L + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
  auto py = [&](double y) { return Tp + ph - (std::log10(y) - ly0) / (ly1 - ly0) * ph; };
  Svg svg(W, Hh);
  svg.text(W / 2, 24, title, 16, "middle");
  for (double d = lx0; d <= lx1; ++d) {
    svg.line(px(std::pow(10, d)), Tp, px(std::pow(10, d)), Tp + ph, "#ddd");
    svg.text(px(std::pow(10, d)), Tp + ph + 18, "1e" + num(d), 11, "middle");
  }
  for (double d = ly0; d <= ly1; ++d) {
    svg.line(L, py(std::pow(10, d)), L + pw, py(std::pow(10, d)), "#ddd");
    svg.text(L - 6, py(std::pow(10, d)) + 4, "1e" + num(d), 11, "end");
  }
  svg.rect(L, Tp, pw, ph, "none", "#333");
  svg.text(L + pw / 2, Hh - 18, x_label, 13, "middle");
  svg.text(20, Tp + ph / 2, y_label, 13, "middle", "#111", true);
  for (size_t i = 0; i < series.size(); ++i) {
    const ChartSeries& s = series[i];
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : s.points) pts.emplace_back(px(x), py(y));
    svg.polyline(pts, s.color, 2, s.dashed);
    for (const auto& [x, y] : pts) svg.circle(x, y, 3, s.color);
    const double ly = Tp + 10 + 22.0 * (double)i;
    svg.line(L + pw + 12, ly, L + pw + 36, ly, s.color, 2, s.dashed);
    svg.text(L + pw + 42, ly + 4, s.label, 12);
  }
  return svg.str();
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  LLM0_CHECK(out.good(), "cannot write file \"{}\"", path);
  out << text;
  out.close();
  LLM0_CHECK(!out.fail(), "error while writing file \"{}\"", path);
}

}  // namespace llm0::lesson
