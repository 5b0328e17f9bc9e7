// The sink row (lesson 5): softmax makes every row hand out 100%, even a row whose scores barely
// differ ("苹果": 0.04, 0.36, 0.00 -> 30% / 41% / 29%); with a sink logit in the denominator the
// row may keep part of its attention for "nothing". From GET lesson/attention (figures.sink_row).
(function (x) {
  "use strict";
  function bars(labels, weights, extra) {
    return x.el("div", {class: "table-wrap"}, x.el("table", {class: "sink-table"}, x.el("tbody", null,
      labels.map(function (l, j) {
        return x.el("tr", null, x.el("td", {text: l}), x.el("td", {text: x.fmtPct(weights[j], 0)}),
          x.el("td", null, x.el("span", {class: "bar", style: "display:inline-block;height:0.8em;background:#2457c5;width:" +
                                         Math.round(weights[j] * 200) + "px"})));
      }), extra)));
  }
  x.widgets = x.widgets || {};
  x.widgets.sinkRow = function (parent, info) {
    var panel = x.panel(parent, {id: "sink", title: "rv.sink.title", intro: "rv.sink.intro",
      provenance: "rv.sink.prov", command: "llm0 lesson attention"});
    panel.load(x.api("lesson/attention", {asker: info.default_asker}), function (d) {
      var s = d.figures.sink_row, n = s.scores.length, labels = d.tokens.slice(0, n);
      panel.body.appendChild(x.el("p", {text: x.t("rv.sink.scores", {row: s.row,
        scores: s.scores.map(function (v) { return v.toFixed(2); }).join(", ")})}));
      var grid = x.el("div", {class: "two-col"});
      grid.appendChild(x.el("div", {id: "sink-plain"}, x.el("h3", {text: x.t("rv.sink.plain")}), bars(labels, s.weights)));
      var sink = d.heads[0].sink;
      grid.appendChild(x.el("div", {id: "sink-with"}, x.el("h3", {text: x.t("rv.sink.with", {z: sink.logit})}),
        bars(labels, s.with_sink.weights, x.el("tr", {class: "sum"}, x.el("td", {text: x.t("rv.sink.nothing")}),
          x.el("td", {text: x.fmtPct(s.with_sink.nothing, 0)}), x.el("td")))));
      panel.body.appendChild(grid);
    });
  };
})(window.llm0x = window.llm0x || {});
