// Attention heat maps of the loaded model on the learner's sentence (GET lesson/attention-map,
// the twin of `llm0 lesson attention-map --model RUN --text S --json`): one map per head of the
// chosen layer, query rows × key columns, colour = weight, causal zeros left blank, and each row's
// sum (100%, or 100% minus a sink's share) in the last column.
(function (x) {
  "use strict";
  var shade = function (w) { return "rgba(36,87,197," + Math.min(1, Math.max(0, w)).toFixed(3) + ")"; };

  // Cells shrink with the sentence so two maps fit side by side: cell = clamp(20 / T, 0.55, 1.4) rem.
  x.heatCell = function (T) { return Math.max(0.55, Math.min(1.4, 20 / T)); };

  function map(tokens, rows, h, small) {
    var T = tokens.length, cell = x.heatCell(T);
    var body = rows.map(function (row, t) {
      var sum = 0;
      var cells = row.map(function (w, j) {
        if (j > t) return x.el("td", {class: "masked"});  // the causal zero triangle: blank
        sum += w;
        return x.el("td", {"data-w": w, title: tokens[t].text + " → " + tokens[j].text + ": " + x.fmtPct(w),
          style: "background:" + shade(w) + (w > 0.55 ? ";color:#fff" : ""), text: small ? Math.round(w * 100) : ""});
      });
      return x.el("tr", null, x.el("th", {scope: "row", title: tokens[t].text, text: (t + 1) + " " + tokens[t].text}), cells,
                  x.el("td", {class: "row-sum", text: x.fmtPct(sum, 0)}));
    });
    var cols = x.el("colgroup", null, x.el("col", {style: "width:5.5rem"}),
      tokens.map(function () { return x.el("col", {style: "width:" + cell + "rem"}); }), x.el("col", {style: "width:2.6rem"}));
    return x.el("div", {class: "heatmap", "data-head": h},
      x.el("h3", {text: x.t("model.map.head", {h: h})}),
      x.el("div", {class: "table-wrap"}, x.el("table", {style: "width:" + (8.1 + T * cell).toFixed(2) + "rem"}, cols,
        x.el("thead", null, x.el("tr", null, x.el("th"), tokens.map(function (tk, j) {
          // a column is one cell wide: a short token labels itself, others show every 5th position
          var label = small && Array.from(tk.text).length <= 2 ? tk.text : ((j + 1) % 5 === 0 || j === 0 ? String(j + 1) : "");
          return x.el("th", {title: (j + 1) + " " + tk.text, text: label});
        }), x.el("th", {text: "Σ"}))),
        x.el("tbody", null, body))));
  }

  // One head's map as a table (also the training page's, from a run's attention records):
  // tokens [{text}], rows[t][j] the weights, h the head's number, small = numbers in the cells.
  x.heatmapTable = map;

  x.widgets = x.widgets || {};
  x.widgets.heatmap = function (parent, info) {
    var model = info.model;
    var st = x.state.heat = x.state.heat || {text: model ? model.default_text : "", layer: 0};
    var panel = x.panel(parent, {id: "heatmap", title: "model.map.title", intro: "model.map.intro"});
    if (!model) { panel.body.appendChild(x.el("p", {class: "note", text: x.t("model.none", {hint: info.model_hint})})); return; }
    var input = x.el("input", {type: "text", id: "heat-text", value: st.text, "aria-label": x.t("model.map.sentence"),
                               style: "flex:1;min-width:12em"});
    var layer = x.el("select", {id: "heat-layer", onchange: function () { st.layer = Number(layer.value); draw(); }});
    for (var i = 0; i < model.num_hidden_layers; i++) {
      layer.appendChild(x.el("option", {value: i, selected: i === st.layer, text: x.t("model.map.layer", {l: i})}));
    }
    var go = x.el("button", {type: "button", id: "heat-go", text: x.t("model.map.go"),
                             onclick: function () {
      var bad = x.sentenceError(input.value, info);
      if (bad) { panel.showError({message: bad}); return; }
      st.text = input.value; load();
    }});
    panel.body.appendChild(x.el("div", {class: "controls"}, input, layer, go));
    var out = x.el("div", {id: "heat-out"});
    panel.body.appendChild(out);
    var data = null;

    function draw() {
      out.textContent = "";
      if (!data) return;
      var L = data.layers[st.layer];
      if (!L || L.kind !== "attention") { out.appendChild(x.el("p", {class: "note", text: x.t("model.map.linear")})); return; }
      out.appendChild(x.el("p", {class: "legend", text: x.t("model.map.tokens", {n: data.tokens.length})}));
      var small = data.tokens.length <= 8;  // numbers fit in the cells
      var width = 8.1 + data.tokens.length * x.heatCell(data.tokens.length);
      out.appendChild(x.el("div", {class: "heatmaps", style: "grid-template-columns:repeat(auto-fill,minmax(min(100%," +
                                   width.toFixed(1) + "rem),1fr))"}, L.heads.map(function (rows, h) { return map(data.tokens, rows, h, small); })));
    }
    function load() {
      panel.provenance("model.map.prov", "llm0 lesson attention-map --model " + model.name + " --text " + x.shellQuote(st.text) + " --json");
      data = null; out.textContent = "";
      panel.load(x.api("lesson/attention-map", {text: st.text}), function (d) { data = d; draw(); }, out);
    }
    load();
  };
})(window.llm0x = window.llm0x || {});
