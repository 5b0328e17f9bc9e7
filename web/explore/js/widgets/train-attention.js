// Where the model looks, as it learns: the run's attention records (at every validation, one
// sentence's attention weights from every layer and head of the training model, the JSON of
// `llm0 lesson attention-map`) drawn as heat maps with x.heatmapTable (widgets/heatmap.js).
// Selectors: the validation step (following the newest unless one is picked), the layer, and one
// head or all of them side by side; step through them and see heads specialise.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};

  x.widgets.trainAttention = function (parent) {
    var panel = x.panel(parent, {id: "train-attention", title: "train.attn.title", intro: "train.attn.intro"});
    var st = x.state.trainAttn = x.state.trainAttn || {step: null, layer: 0, head: "all"};
    var controls = x.el("div", {class: "controls"}), out = x.el("div", {id: "attn-out"});
    panel.body.appendChild(controls);
    panel.body.appendChild(out);
    var seen = "", records = [];

    function pick() {  // the record shown: the chosen step, else the newest
      var r = records.filter(function (a) { return a.step === st.step; })[0];
      return r || records[records.length - 1];
    }
    function select(id, label, options, value, onchange) {
      var s = x.el("select", {id: id, "aria-label": label, onchange: function () { onchange(s.value); draw(); }},
        options.map(function (o) { return x.el("option", {value: o[0], selected: String(o[0]) === String(value), text: o[1]}); }));
      return x.el("label", null, x.el("span", {text: label}), s);
    }
    function draw() {
      controls.textContent = ""; out.textContent = "";
      var r = pick();
      if (!r) { out.appendChild(x.el("p", {class: "field-hint", text: x.t("train.attn.none")})); return; }
      var a = r.attention, layers = a.layers || [];
      if (st.layer >= layers.length) st.layer = 0;
      var L = layers[st.layer] || {heads: []};
      var newest = records[records.length - 1];
      controls.appendChild(select("attn-step", x.t("train.attn.step"), records.map(function (e) {
        return [e.step, x.t("train.samples.step", {step: e.step}) + (e === newest ? " · " + x.t("train.attn.newest") : "")];
      }), r.step, function (v) { st.step = Number(v) === newest.step ? null : Number(v); }));
      controls.appendChild(select("attn-layer", x.t("train.attn.layer"), layers.map(function (l, i) {
        return [i, x.t("model.map.layer", {l: i})];
      }), st.layer, function (v) { st.layer = Number(v); }));
      controls.appendChild(select("attn-head", x.t("train.attn.head"), [["all", x.t("train.attn.allHeads")]].concat(
        L.heads.map(function (h, i) { return [i, x.t("model.map.head", {h: i})]; })), st.head, function (v) { st.head = v; }));
      out.appendChild(x.el("p", {class: "legend", text: x.t("train.attn.cap", {text: a.text, n: a.tokens.length, step: r.step})}));
      if (!L.heads.length) { out.appendChild(x.el("p", {class: "note", text: x.t("model.map.linear")})); return; }
      var heads = st.head === "all" ? L.heads.map(function (rows, h) { return [rows, h]; })
                                    : [[L.heads[Number(st.head)] || L.heads[0], Number(st.head) < L.heads.length ? Number(st.head) : 0]];
      var T = a.tokens.length, width = 8.1 + T * x.heatCell(T);
      out.appendChild(x.el("div", {class: "heatmaps", style: "grid-template-columns:repeat(auto-fill,minmax(min(100%," +
                                   width.toFixed(1) + "rem),1fr))"}, heads.map(function (e) {
        return x.heatmapTable(a.tokens, e[0], e[1], T <= 8);
      })));
    }
    return {update: function (run) {
      records = run.store.attention;
      var key = records.length + "/" + (records.length ? records[records.length - 1].step : "");
      if (key === seen) return;
      seen = key;
      draw();
    }};
  };
})(window.llm0x = window.llm0x || {});
