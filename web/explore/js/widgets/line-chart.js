// A line chart as SVG for the training page: lines (a long series thinned to the lowest and the
// highest point of each pixel column, so 20,000 steps draw as fast as 500 and no spike is lost),
// point markers, dashed horizontal lines (baselines, ceilings) and dashed vertical lines (re-plan
// events), on axes ticked by x.niceTicks (js/widgets/ticks.js, the twin of loss_curve.svg's rule).
// Drawn at the pixel width it is given, so its 12 px labels stay 12 px on a phone.
(function (x) {
  "use strict";
  var M0 = {r: 22, t: 10, b: 40};  // margins: right, top, step labels + axis name (left: from the labels)

  function num(v) { return v.toFixed(1); }

  // points [[x, y]...] (x ascending) -> at most two per pixel column: that column's min and max y.
  function thin(points, px) {
    if (points.length <= 2 * 600) return points;
    var out = [], col = null, lo = null, hi = null;
    function flush() { if (lo) { if (lo[0] <= hi[0]) out.push(lo, hi); else out.push(hi, lo); } }
    points.forEach(function (p) {
      var c = Math.round(px(p[0]));
      if (c !== col) { flush(); col = c; lo = hi = p; return; }
      if (p[1] < lo[1]) lo = p;
      if (p[1] > hi[1]) hi = p;
    });
    flush();
    return out;
  }

  // opts: {id, width, height, series: [{id, colour, points, markers, line (default true)}],
  //   hlines: [{id, y, colour, dash, title}], vlines: [{x, colour, title}], xExtra: [values the x
  //   axis must cover], yExtra, xLabel, yLabel, yFormat(v, ticks), xMaxTicks, yMaxTicks, xMinStep}
  // Returns the <svg>; its data-x-ticks / data-y-ticks hold the tick labels (for the tests).
  x.lineChart = function (opts) {
    var W = Math.max(240, Math.round(opts.width)), H = opts.height || 260;
    var xs = (opts.xExtra || []).slice(), ys = (opts.yExtra || []).slice();
    (opts.series || []).forEach(function (s) {
      s.points.forEach(function (p) { if (isFinite(p[1])) { xs.push(p[0]); ys.push(p[1]); } });
    });
    (opts.hlines || []).forEach(function (h) { if (isFinite(h.y)) ys.push(h.y); });
    var x0 = xs.length ? Math.min.apply(null, xs) : 0, x1 = xs.length ? Math.max.apply(null, xs) : 1;
    var y0 = ys.length ? Math.min.apply(null, ys) : 0, y1 = ys.length ? Math.max.apply(null, ys) : 1;
    var xt = x.niceTicks(x0, x1, opts.xMaxTicks || (W < 480 ? 5 : 8), opts.xMinStep || 0);
    var yt = x.niceTicks(y0, y1, opts.yMaxTicks || (H < 200 ? 5 : 8));
    var fmtY = opts.yFormat || x.tickLabel;
    var yLabels = yt.values.map(function (v) { return fmtY(v, yt); });
    // left margin: the rotated axis name (20 px), then the widest value label at ~7 px a character
    var M = {l: 26 + 7 * Math.max.apply(null, yLabels.map(function (l) { return l.length; })), r: M0.r, t: M0.t, b: M0.b};
    var xa = xt.values[0], xb = xt.values[xt.values.length - 1], ya = yt.values[0], yb = yt.values[yt.values.length - 1];
    var px = function (v) { return M.l + (v - xa) / (xb - xa) * (W - M.l - M.r); };
    var py = function (v) { return M.t + (yb - v) / (yb - ya) * (H - M.t - M.b); };

    var svg = x.svg("svg", {class: "chart", id: opts.id, width: W, height: H, viewBox: "0 0 " + W + " " + H,
                            role: "img", "aria-label": opts.yLabel + " / " + opts.xLabel,
                            "data-x-ticks": xt.values.map(function (v) { return x.tickLabel(v, xt); }).join(","),
                            "data-y-ticks": yLabels.join(",")});
    yt.values.forEach(function (v, i) {
      svg.appendChild(x.svg("line", {x1: M.l, x2: W - M.r, y1: num(py(v)), y2: num(py(v)), class: "grid"}));
      svg.appendChild(x.svg("text", {x: M.l - 6, y: num(py(v) + 4), "text-anchor": "end", class: "tick", text: yLabels[i]}));
    });
    xt.values.forEach(function (v) {
      svg.appendChild(x.svg("line", {x1: num(px(v)), x2: num(px(v)), y1: M.t, y2: H - M.b, class: "grid"}));
      svg.appendChild(x.svg("line", {x1: num(px(v)), x2: num(px(v)), y1: H - M.b, y2: H - M.b + 5, class: "axis"}));
      svg.appendChild(x.svg("text", {x: num(px(v)), y: H - M.b + 17, "text-anchor": "middle", class: "tick",
                                     text: x.tickLabel(v, xt)}));
    });
    svg.appendChild(x.svg("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b, class: "frame"}));
    svg.appendChild(x.svg("text", {x: num((M.l + W - M.r) / 2), y: H - 4, "text-anchor": "middle", class: "axis-name",
                                   text: opts.xLabel}));
    svg.appendChild(x.svg("text", {transform: "translate(13 " + num((M.t + H - M.b) / 2) + ") rotate(-90)",
                                   "text-anchor": "middle", class: "axis-name", text: opts.yLabel}));
    (opts.vlines || []).forEach(function (v) {
      var l = x.svg("line", {x1: num(px(v.x)), x2: num(px(v.x)), y1: M.t, y2: H - M.b, stroke: v.colour,
                             "stroke-dasharray": "2 3", "stroke-width": 1.4, class: "vline"});
      l.appendChild(x.svg("title", {text: v.title}));
      svg.appendChild(l);
    });
    (opts.hlines || []).forEach(function (h) {
      if (!isFinite(h.y)) return;
      var l = x.svg("line", {x1: M.l, x2: W - M.r, y1: num(py(h.y)), y2: num(py(h.y)), stroke: h.colour,
                             "stroke-dasharray": h.dash || "7 4", "stroke-width": 1.6, class: "hline", "data-line": h.id});
      l.appendChild(x.svg("title", {text: h.title}));
      svg.appendChild(l);
    });
    (opts.series || []).forEach(function (s) {
      var pts = s.points.filter(function (p) { return isFinite(p[1]); });
      if (s.line !== false && pts.length > 1) {
        svg.appendChild(x.svg("polyline", {fill: "none", stroke: s.colour, "stroke-width": 1.6, "stroke-linejoin": "round",
          "data-series": s.id, "data-n": pts.length,
          points: thin(pts, px).map(function (p) { return num(px(p[0])) + "," + num(py(p[1])); }).join(" ")}));
      }
      if (s.markers || pts.length === 1) pts.forEach(function (p) {
        var c = x.svg("circle", {cx: num(px(p[0])), cy: num(py(p[1])), r: 3.4, fill: s.colour, stroke: "#fff",
                                 "stroke-width": 1, class: "pt", "data-series": s.id});
        if (s.pointTitle) c.appendChild(x.svg("title", {text: s.pointTitle(p)}));
        svg.appendChild(c);
      });
    });
    return svg;
  };

  // The chart's legend as HTML below it (wraps on a phone): [{colour, dash, marker, text}].
  x.chartLegend = function (entries) {
    return x.el("ul", {class: "chart-legend"}, entries.map(function (e) {
      var key = x.svg("svg", {width: 28, height: 10, "aria-hidden": "true"});
      key.appendChild(x.svg("line", {x1: 0, x2: 28, y1: 5, y2: 5, stroke: e.colour, "stroke-width": 2,
                                     "stroke-dasharray": e.dash || "none"}));
      if (e.marker) key.appendChild(x.svg("circle", {cx: 14, cy: 5, r: 3.4, fill: e.colour}));
      return x.el("li", {class: e.class}, key, x.el("span", {text: e.text}));
    }));
  };
})(window.llm0x = window.llm0x || {});
