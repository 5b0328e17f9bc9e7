// Axis ticks (src/train/chart_ticks.h) against hand-derived cases and their invariants, and the
// loss-curve SVG (src/train/loss_curve.h): its tick labels, baseline lines and legend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/check.h"
#include "train/chart_ticks.h"
#include "train/loss_curve.h"

using llm0::AxisTicks;
using llm0::nice_ticks;
using llm0::tick_label;

namespace {
std::vector<std::string> labels(const AxisTicks& t) {
  std::vector<std::string> r;
  for (double v : t.values) r.push_back(tick_label(v, t));
  return r;
}
using Strings = std::vector<std::string>;
}  // namespace

TEST(ChartTicks, LossRangeGetsWholeNumbers) {
  // [3.12, 7.92]: range / 8 = 0.6, so the steps tried start at 10^-1. Covering ticks
  // floor(lo/s)..ceil(hi/s): 0.1 -> 31..80 (50), 0.2 -> 15..40 (26), 0.5 -> 6..16 (11),
  // 1 -> 3..8 (6 <= 8): step 1.
  const AxisTicks t = nice_ticks(3.12, 7.92);
  EXPECT_EQ(t.step, 1);
  EXPECT_EQ(t.decimals, 0);
  EXPECT_EQ(t.values, (std::vector<double>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(labels(t), (Strings{"3", "4", "5", "6", "7", "8"}));
  EXPECT_EQ(nice_ticks(7.92, 3.12).values, t.values);  // the order of the ends does not matter
}

TEST(ChartTicks, StepAxisGetsFiveHundreds) {
  // [0, 3094]: 3094 / 8 = 386.75 -> from 10^2: 100 -> 0..31 (32), 200 -> 0..16 (17),
  // 500 -> 0..7 (8 <= 8): 0, 500, ..., 3500.
  const AxisTicks t = nice_ticks(0, 3094, 8, 1);
  EXPECT_EQ(t.step, 500);
  EXPECT_EQ(labels(t), (Strings{"0", "500", "1000", "1500", "2000", "2500", "3000", "3500"}));
}

TEST(ChartTicks, SmallDecimalsAreExact) {
  // [0.0123, 0.0456]: 0.0333 / 8 = 0.00416 -> from 10^-3: 0.001 -> 12..46 (35), 0.002 -> 6..23
  // (18), 0.005 -> 2..10 (9 > 8), 0.01 -> 1..5 (5): 0.01 .. 0.05, two decimals. Each value is
  // n / 100, the double nearest n/100, so it equals the literal.
  const AxisTicks t = nice_ticks(0.0123, 0.0456);
  EXPECT_DOUBLE_EQ(t.step, 0.01);
  EXPECT_EQ(t.decimals, 2);
  EXPECT_EQ(t.values, (std::vector<double>{0.01, 0.02, 0.03, 0.04, 0.05}));
  EXPECT_EQ(labels(t), (Strings{"0.01", "0.02", "0.03", "0.04", "0.05"}));
  // [0.25, 0.65]: 0.05 -> from 10^-2: 0.01 -> 25..65 (41), 0.02 -> 12..33 (22), 0.05 -> 5..13 (9),
  // 0.1 -> 2..7 (6). As n / 10 they are the literals; accumulated or as n * 0.1, 0.3 would be
  // 0.30000000000000004 and 0.7 0.7000000000000001.
  EXPECT_EQ(nice_ticks(0.25, 0.65).values, (std::vector<double>{0.2, 0.3, 0.4, 0.5, 0.6, 0.7}));
}

TEST(ChartTicks, DegenerateRangeIsWidened) {
  // 5 == 5: widened by 0.05 * 5 = 0.25 to [4.75, 5.25]; 0.5 / 8 -> from 10^-2: 0.01 -> 51,
  // 0.02 -> 237..263 (27), 0.05 -> 95..105 (11), 0.1 -> 47..53 (7): 4.7 .. 5.3.
  const AxisTicks t = nice_ticks(5, 5);
  EXPECT_EQ(labels(t), (Strings{"4.7", "4.8", "4.9", "5.0", "5.1", "5.2", "5.3"}));
  // 0 == 0: widened to [-0.5, 0.5]; 1 / 8 -> 0.1 -> -5..5 (11), 0.2 -> -3..3 (7); the middle
  // label is "0", never "-0.0" ((-3 + 3) * 2 / 10 is +0, but the label must not depend on it).
  const AxisTicks z = nice_ticks(0, 0);
  EXPECT_EQ(labels(z), (Strings{"-0.6", "-0.4", "-0.2", "0.0", "0.2", "0.4", "0.6"}));
  EXPECT_EQ(tick_label(-0.0, z), "0.0");
}

TEST(ChartTicks, OnePointOnTheStepAxis) {
  // One logged step, 1: widened to [0.95, 1.05]; steps under min_step 1 are skipped, and 1 covers
  // it with 0..2 (3 ticks).
  EXPECT_EQ(labels(nice_ticks(1, 1, 8, 1)), (Strings{"0", "1", "2"}));
  // Step 100 alone: [95, 105]; 1 -> 11 ticks, 2 -> 47..53 (7): 94, 96, ..., 106.
  EXPECT_EQ(labels(nice_ticks(100, 100, 8, 1)), (Strings{"94", "96", "98", "100", "102", "104", "106"}));
}

TEST(ChartTicks, AnyRangeGetsFourToEightCoveringTicksOfOneTwoFive) {
  // The next smaller step (at most 2.5x smaller) needed >= 9 ticks, so range >= 7 * s / 2.5 and
  // this one needs >= 2.8 + 1, i.e. 4.
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> exponent(-6, 6), unit(-1, 1);
  for (int i = 0; i < 2000; ++i) {
    const double scale = std::pow(10.0, exponent(rng));
    const double a = unit(rng) * scale, b = a + std::fabs(unit(rng)) * scale + 1e-12 * scale;
    const AxisTicks t = nice_ticks(a, b);
    ASSERT_GE(t.values.size(), 4u) << a << " " << b;
    ASSERT_LE(t.values.size(), 8u) << a << " " << b;
    ASSERT_LE(t.values.front(), a) << a << " " << b;
    ASSERT_GE(t.values.back(), b) << a << " " << b;
    const double mantissa = t.step / std::pow(10.0, std::floor(std::log10(t.step) + 1e-9));
    ASSERT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
                std::fabs(mantissa - 5) < 1e-9) << t.step;
    for (size_t j = 1; j < t.values.size(); ++j)
      ASSERT_NEAR(t.values[j] - t.values[j - 1], t.step, 1e-9 * t.step);
  }
}

TEST(ChartTicks, RefusesWhatHasNoAxis) {
  EXPECT_THROW(nice_ticks(NAN, 1), llm0::Error);
  EXPECT_THROW(nice_ticks(0, INFINITY), llm0::Error);
  EXPECT_THROW(nice_ticks(0, 1, 2), llm0::Error);  // [-0.5, 0.5] could never fit in 2
}

namespace {
// (Plain string scans, not <regex>: it trips -Wmaybe-uninitialized in the sanitizer build.)
// The start tags of every `tag` element, in order ("<line x1=... />", up to its '>').
Strings start_tags(const std::string& svg, const std::string& tag) {
  Strings r;
  for (size_t at = svg.find("<" + tag + " "); at != std::string::npos; at = svg.find("<" + tag + " ", at + 1))
    r.push_back(svg.substr(at, svg.find('>', at) + 1 - at));
  return r;
}
// The value of attribute `name` in a start tag ("" when absent).
std::string attr(const std::string& start_tag, const std::string& name) {
  const size_t at = start_tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const size_t begin = at + name.size() + 3;
  return start_tag.substr(begin, start_tag.find('"', begin) - begin);
}
// The text of every <text> element, in order.
Strings svg_texts(const std::string& svg) {
  Strings r;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const size_t begin = svg.find('>', at) + 1;
    r.push_back(svg.substr(begin, svg.find("</text>", begin) - begin));
  }
  return r;
}
bool has(const Strings& s, const std::string& x) { return std::find(s.begin(), s.end(), x) != s.end(); }

// Train loss from 7.92 at step 0 down to 3.12 at step 3094; validation every 500 steps.
std::vector<std::pair<int, double>> kTrain{{0, 7.92}, {1000, 5.0}, {2000, 4.0}, {3094, 3.12}};
std::vector<std::pair<int, double>> kVal{{500, 6.1}, {1000, 5.2}, {3000, 4.08}};
}  // namespace

TEST(LossCurve, TickLabelsOnBothAxes) {
  const Strings t =
      svg_texts(llm0::loss_curve_svg(kTrain, kVal, {{"unigram baseline", "m", 7.0105}}, "run"));
  for (const char* y : {"3", "4", "5", "6", "7", "8"}) EXPECT_TRUE(has(t, y)) << y;  // as above
  for (const char* x : {"500", "1000", "1500", "2000", "2500", "3000", "3500"}) EXPECT_TRUE(has(t, x)) << x;
  EXPECT_TRUE(has(t, "step"));
  EXPECT_FALSE(has(t, "7.92"));  // the old ticks: max - i (max - min) / 4
}

TEST(LossCurve, BaselinesAreDashedLinesWithLegend) {
  const std::string svg = llm0::loss_curve_svg(
      kTrain, kVal, {{"unigram baseline", "no context", 7.0105}, {"bigram baseline", "previous token", 5.5},
                     {"never", "drawn", NAN}}, "run");
  const Strings t = svg_texts(svg);
  EXPECT_TRUE(has(t, "unigram baseline 7.01: no context"));
  EXPECT_TRUE(has(t, "bigram baseline 5.50: previous token"));
  EXPECT_TRUE(has(t, "validation loss"));
  EXPECT_EQ(svg.find("never"), std::string::npos);  // a non-finite baseline is left out
  // y axis 3..8 over the plot's pixels [top, bottom] = [46 + 18 * 2 rows, 460 - 52] = [82, 408]:
  // 7.0105 -> 82 + (8 - 7.0105) / 5 * 326 = 146.515 -> "146.5"; 5.5 -> 82 + 0.5 * 326 = 245.
  std::set<std::string> ys;  // horizontal dashed lines across the plot, 1.6 wide
  for (const std::string& l : start_tags(svg, "line"))
    if (attr(l, "x1") == "64" && attr(l, "x2") == "736" && attr(l, "y1") == attr(l, "y2") &&
        attr(l, "stroke-width") == "1.6" && !attr(l, "stroke-dasharray").empty())
      ys.insert(attr(l, "y1"));
  EXPECT_EQ(ys, (std::set<std::string>{"146.5", "245.0"}));
}

TEST(LossCurve, ValidationPointsAreMarked) {
  const std::string svg = llm0::loss_curve_svg(kTrain, kVal, {}, "run");
  long n = 0;
  for (const std::string& c : start_tags(svg, "circle")) n += attr(c, "fill") == "#d62728";
  EXPECT_EQ(n, (long)kVal.size() + 1);  // one per point, plus the legend's sample
  EXPECT_EQ(svg.find("<circle cx=\"64.0\""), std::string::npos);  // train: a line, no markers
}

TEST(LossCurve, TextIsEscaped) {
  const std::string svg = llm0::loss_curve_svg({}, {}, {{"a<b", "x & y", 1}}, "loss <&> \"run\"");
  EXPECT_NE(svg.find("loss &lt;&amp;&gt; &quot;run&quot;"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b 1.00: x &amp; y"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
}
