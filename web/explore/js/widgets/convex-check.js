// The convex-combination check (lesson 5): the weights of a row are positive and sum to 1, so each
// column of the output lies between the smallest and largest value of that column of V over the
// visible tokens. Per column of the asker's row: min, output, max, and the engine's verdict
// (outputs_inside_v_range, max_outside) from GET lesson/attention.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  x.widgets.convexCheck = function (parent, info) {
    var st = x.state.swap = x.state.swap || {step: 3, asker: info.default_asker};
    var panel = x.panel(parent, {id: "convex", title: "rv.convex.title", intro: "rv.convex.intro",
      provenance: "rv.convex.prov", command: "llm0 lesson attention --asker " + st.asker});
    panel.load(x.api("lesson/attention", {asker: st.asker}), function (d) {
      var h = d.heads[0], i = d.tokens.indexOf(st.asker), out = h.outputs[i];
      var visible = h.values.slice(0, i + 1);
      var rows = out.map(function (o, c) {
        var col = visible.map(function (v) { return v[c]; });
        var lo = Math.min.apply(null, col), hi = Math.max.apply(null, col);
        return x.el("tr", null, x.el("td", {text: "[" + (c + 1) + "]"}), x.el("td", {text: x.fmtFixed(lo, 3)}),
          x.el("td", {class: "big", text: x.fmtFixed(o, 3)}), x.el("td", {text: x.fmtFixed(hi, 3)}),
          x.el("td", {class: o >= lo && o <= hi ? "ok" : "bad", text: o >= lo && o <= hi ? "✓" : "✗"}));
      });
      panel.body.appendChild(x.el("p", {text: x.t("rv.convex.row", {q: st.asker, n: i + 1})}));
      panel.body.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", null,
        x.el("thead", null, x.el("tr", null, x.el("th", {text: x.t("rv.convex.col")}), x.el("th", {text: "min v"}),
          x.el("th", {text: x.t("rv.convex.out")}), x.el("th", {text: "max v"}), x.el("th"))),
        x.el("tbody", null, rows))));
      panel.body.appendChild(x.el("p", {class: h.outputs_inside_v_range ? "ok" : "bad", id: "convex-verdict",
        text: x.t(h.outputs_inside_v_range ? "rv.convex.yes" : "rv.convex.no", {m: h.max_outside})}));
    });
  };
})(window.llm0x = window.llm0x || {});
