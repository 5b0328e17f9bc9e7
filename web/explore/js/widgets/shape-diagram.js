// The shape diagram of O_h = A_h·V_h (one head's weighted sum), for the anchor's real dimensions
// and for the teaching world's small ones, from GET lesson/shapes?config=NAME (the CLI's twin).
// Block edges are log-scaled (edge = 16 + 14·log2(size) px, so one symbol has one length in the
// whole figure); the causal mask's zero triangle of A_h is drawn blank. Numbers on the edges are
// the real sizes.
(function (x) {
  "use strict";
  var NAME = "course-anchor-hybrid";
  var edge = function (n) { return 16 + 14 * Math.log2(Math.max(1, n)); };

  // One figure: left [T, T] (causal) · right [T, d] = result [T, d].
  function figure(world, step) {
    var T = step.left[0], d = step.result[1];
    var eT = edge(T), ed = edge(d), gap = 34, pad = 64;
    var w = pad + eT + gap + ed + gap + ed + 12, h = eT + 40;
    var root = x.svg("svg", {viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img",
                             "aria-label": step.formula, class: "shape-svg"});
    var X = pad, Y = 26;
    var block = function (bx, bw, label, cls) {
      root.appendChild(x.svg("rect", {x: bx, y: Y, width: bw, height: eT, fill: cls === "out" ? "#e5f3ec" : "#e8eefb",
                                      stroke: cls === "out" ? "#2f7d5b" : "#2457c5", "stroke-width": 1.5}));
      root.appendChild(x.svg("text", {x: bx + bw / 2, y: Y + eT / 2 + 5, "text-anchor": "middle", "font-size": 15,
                                      "font-weight": 700, text: label}));
    };
    // A_h: lower triangle (with the diagonal) filled, the zero triangle above left blank.
    root.appendChild(x.svg("rect", {x: X, y: Y, width: eT, height: eT, fill: "#fff", stroke: "#2457c5",
                                    "stroke-width": 1.5, "stroke-dasharray": "4 3"}));
    root.appendChild(x.svg("path", {d: "M" + X + " " + Y + " L" + X + " " + (Y + eT) + " L" + (X + eT) + " " + (Y + eT) + " Z",
                                    fill: "#e8eefb", stroke: "#2457c5", "stroke-width": 1.5, class: "causal-lower"}));
    root.appendChild(x.svg("text", {x: X + eT * 0.3, y: Y + eT * 0.72, "text-anchor": "middle", "font-size": 15,
                                    "font-weight": 700, text: "A"}));
    var label = function (tx, ty, text, anchor, rot) {
      var a = {x: tx, y: ty, "text-anchor": anchor || "middle", "font-size": 12, fill: "#5b6673", text: text};
      if (rot) a.transform = "rotate(-90 " + tx + " " + ty + ")";
      root.appendChild(x.svg("text", a));
    };
    label(X + eT / 2, Y - 8, "T = " + x.fmtInt(T));
    label(X - 8, Y + eT / 2, "T = " + x.fmtInt(T), "middle", true);
    var X2 = X + eT + gap;
    root.appendChild(x.svg("text", {x: X2 - gap / 2, y: Y + eT / 2 + 6, "text-anchor": "middle", "font-size": 18, text: "·"}));
    block(X2, ed, "V", "in");
    label(X2 + ed / 2, Y - 8, "d_h = " + x.fmtInt(d));
    var X3 = X2 + ed + gap;
    root.appendChild(x.svg("text", {x: X3 - gap / 2, y: Y + eT / 2 + 6, "text-anchor": "middle", "font-size": 18, text: "="}));
    block(X3, ed, "O", "out");
    label(X3 + ed / 2, Y - 8, "d_h = " + x.fmtInt(d));
    return x.el("figure", {class: "shape-figure", "data-world": world.kind},
      root, x.el("figcaption", {text: world.source + " · " + step.formula + " · " +
        x.t("rv.shape.madds", {n: x.fmtInt(step.multiply_adds)})}));
  }

  x.widgets = x.widgets || {};
  x.widgets.shapeDiagram = function (parent) {
    var panel = x.panel(parent, {id: "shape-diagram", title: "rv.shape.title", intro: "rv.shape.intro",
      provenance: "rv.shape.prov", command: "llm0 lesson shapes --config configs/reference/" + NAME + ".json"});
    panel.load(x.api("lesson/shapes", {config: NAME}), function (d) {
      [d.config, d.teaching_world].forEach(function (world) {
        var step = world.steps.filter(function (s) { return s.name === "O_h"; })[0];
        if (step) panel.body.appendChild(figure(world, step));
      });
      var c = d.config, tw = d.teaching_world;
      panel.body.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", {id: "shape-dims"},
        x.el("thead", null, x.el("tr", null, x.el("th", {text: x.t("rv.shape.symbol")}), x.el("th", {class: "text", text: x.t("rv.shape.meaning")}),
          x.el("th", {text: x.t("rv.shape.real")}), x.el("th", {text: x.t("rv.shape.small")}))),
        x.el("tbody", null,
          x.el("tr", null, x.el("td", {text: "T"}), x.el("td", {class: "text", text: x.t("rv.shape.T")}),
               x.el("td", {text: x.fmtInt(c.T)}), x.el("td", {text: x.fmtInt(tw.T)})),
          x.el("tr", null, x.el("td", {text: "d_h"}), x.el("td", {class: "text", text: x.t("rv.shape.d")}),
               x.el("td", {text: x.fmtInt(c.d_v)}), x.el("td", {text: x.fmtInt(tw.d_v)}))))));
      panel.body.appendChild(x.el("p", {class: "legend", text: x.t("rv.shape.legend")}));
    });
  };
})(window.llm0x = window.llm0x || {});
