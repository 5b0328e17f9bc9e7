// "Is retrieving K always wrong?" (lesson 5's aside) with the engine's numbers: the GQA preset and
// its shared-KV twin (one row per KV head is both K and V, DeepSeek-V4's compressed attention),
// each run through its cache; bytes read from the caches beside the ledger. From GET
// lesson/attention (shared_kv).
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  x.widgets.sharedKv = function (parent, info) {
    var panel = x.panel(parent, {id: "shared-kv", title: "rv.skv.title", intro: "rv.skv.intro",
      provenance: "rv.skv.prov", command: "llm0 lesson attention"});
    panel.load(x.api("lesson/attention", {asker: info.default_asker}), function (d) {
      var a = d.shared_kv;
      panel.body.appendChild(x.el("p", {text: x.t("rv.skv.setup", {layers: a.layers, heads: a.kv_heads,
        dim: a.head_dim, tokens: a.tokens})}));
      var rows = [a.gqa, a.shared].map(function (s) {
        return x.el("tr", {class: s === a.shared ? "skv-shared" : "skv-gqa"}, x.el("td", {text: s.config}),
          x.el("td", {text: s.layer_type}), x.el("td", {text: String(s.bytes_per_token_per_layer)}),
          x.el("td", {text: String(s.bytes[0].engine_bytes) + " / " + String(s.bytes[0].ledger_bytes)}),
          x.el("td", {text: String(s.parameters)}));
      });
      panel.body.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", {id: "skv-table"},
        x.el("thead", null, x.el("tr", null, x.t("rv.skv.cols").map(function (c) { return x.el("th", {text: c}); }))),
        x.el("tbody", null, rows))));
      panel.body.appendChild(x.el("p", {class: "big", id: "skv-ratio", text: x.t("rv.skv.ratio", {ratio: a.ratio.toFixed(3)})}));
    });
  };
})(window.llm0x = window.llm0x || {});
