// Axis ticks of the training page's charts: the JavaScript twin of nice_ticks / tick_label in
// src/train/chart_ticks.cpp (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990), which
// draws loss_curve.svg. Both follow the same steps, in the same order, so a chart here and the
// terminal's SVG label the same run alike (the browser test compares them):
//  1. a degenerate range (lo == hi) widens to lo -/+ 0.05 |lo| (-/+ 0.5 around 0);
//  2. candidate steps 1, 2, 5 × 10^k ascending from k = floor(log10((hi - lo) / maxTicks)), a step
//     below minStep skipped (1 on a step axis);
//  3. the first step whose covering ticks floor(lo / step) .. ceil(hi / step) number at most
//     maxTicks is taken (1e-9 of a step forgiven at both ends);
//  4. values are integer multiples, n·m / 10^-k for k < 0 (not accumulated), labels with
//     max(0, -k) decimals, "-0" printed as "0".
(function (x) {
  "use strict";
  var MANTISSA = [1, 2, 5], SLACK = 1e-9;

  // {step, decimals, values} covering [lo, hi]; throws on a non-finite end or maxTicks < 3.
  x.niceTicks = function (lo, hi, maxTicks, minStep) {
    maxTicks = maxTicks === undefined ? 8 : maxTicks;
    minStep = minStep || 0;
    if (!isFinite(lo) || !isFinite(hi)) throw new Error("chart axis range [" + lo + ", " + hi + "] is not finite");
    if (maxTicks < 3) throw new Error("chart axis needs room for at least 3 ticks, got " + maxTicks);
    if (lo > hi) { var swap = lo; lo = hi; hi = swap; }
    if (lo === hi) {
      var half = lo === 0 ? 0.5 : 0.05 * Math.abs(lo);
      lo -= half; hi += half;
    }
    for (var k = Math.floor(Math.log10((hi - lo) / maxTicks)); ; ++k) {
      for (var i = 0; i < MANTISSA.length; i++) {
        var m = MANTISSA[i], step = m * Math.pow(10, k);
        if (step < minStep) continue;
        var first = Math.floor(lo / step + SLACK), last = Math.ceil(hi / step - SLACK);
        if (last - first + 1 > maxTicks) continue;
        var values = [];
        for (var n = first; n <= last; ++n) values.push(k < 0 ? n * m / Math.pow(10, -k) : n * m * Math.pow(10, k));
        return {step: step, decimals: Math.max(0, -k), values: values};
      }
    }
  };

  // A tick's label with the axis's decimals ("%.*f"); "-0.0" printed as "0.0".
  x.tickLabel = function (value, ticks) {
    var s = value.toFixed(ticks.decimals);
    return /^-[0.]*$/.test(s) ? s.slice(1) : s;
  };
})(window.llm0x = window.llm0x || {});
