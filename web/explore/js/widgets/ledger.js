// The anchor ledger (lesson 8): bytes of KV cache per token of the course's anchor model
// (configs/reference/course-anchor-hybrid.json: 16 full-attention layers × 2 (K, V) × 4 KV heads
// × head_dim 256 × 2 B (bf16) = 65,536 B = 64 KiB) and at its native 262,144-token context
// (16 GiB), as `llm0 kv` computes them (GET kv/reference/NAME?context=N).
(function (x) {
  "use strict";
  var NAME = "course-anchor-hybrid", CONTEXT = 262144;

  x.widgets = x.widgets || {};
  x.widgets.ledger = function (parent) {
    var panel = x.panel(parent, {id: "ledger", title: "kv.ledger.title", intro: "kv.ledger.intro",
      provenance: "kv.ledger.prov", command: "llm0 kv configs/reference/" + NAME + ".json --context " + CONTEXT});
    panel.load(x.api("kv/reference/" + NAME, {context: CONTEXT}), function (d) {
      var full = d.layers.full_attention || d.num_hidden_layers;
      var factors = [[full, x.t("kv.ledger.layers")], [2, "K, V"], [d.num_key_value_heads, x.t("kv.ledger.kvHeads")],
                     [d.head_dim, x.t("kv.ledger.headDim")], [d.bytes_per_element, "B (" + d.dtype + ")"]];
      var product = factors.reduce(function (a, f) { return a * f[0]; }, 1);
      panel.body.appendChild(x.el("p", {class: "ledger-formula big", id: "ledger-formula"},
        factors.map(function (f, i) {
          return [i ? " × " : "", x.el("span", {title: f[1], text: x.fmtInt(f[0])})];
        }), " = ", x.el("span", {id: "ledger-per-token", text: x.fmtInt(d.kv_bytes_per_token) + " B"}),
        " = " + x.fmtBytes(d.kv_bytes_per_token) + x.t("kv.ledger.perToken")));
      panel.body.appendChild(x.el("p", {class: "legend"}, factors.map(function (f) {
        return x.el("span", null, x.fmtInt(f[0]) + " = " + f[1]);
      })));
      panel.body.appendChild(x.el("p", {class: "big", id: "ledger-context"},
        x.t("kv.ledger.atContext", {n: x.fmtInt(d.context), b: x.fmtBytes(d.kv_bytes_at_context)})));
      if (product !== d.kv_bytes_per_token) panel.showError(x.t("kv.ledger.mismatch", {p: product}));
      if (d.hybrid) panel.body.appendChild(x.el("p", {class: "note", text: x.t("kv.ledger.hybrid",
        {linear: d.layers.linear_attention || 0, state: x.fmtBytes(d.linear_state_bytes)})}));
    });
  };
})(window.llm0x = window.llm0x || {});
