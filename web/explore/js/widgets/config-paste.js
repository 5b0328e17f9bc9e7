// The ledger panel of the lineage page: paste any Hugging Face config.json and the engine
// computes KV-cache bytes per token and at a chosen context (MLA, sliding windows and hybrids
// included), beside the bytes it measures on a small random model of the same kind
// (POST kv?measure=true, the twin of `llm0 kv config.json --measure --json`).
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  x.widgets.configPaste = function (parent) {
    var st = x.state.paste = x.state.paste || {text: "", context: "", dtype: "bf16"};
    var panel = x.panel(parent, {id: "config-paste", title: "paste.title", intro: "paste.intro"});
    var area = x.el("textarea", {id: "paste-config", spellcheck: "false", "aria-label": x.t("paste.label"),
                                 placeholder: x.t("paste.placeholder")});
    area.value = st.text;
    var ctx = x.el("input", {type: "number", id: "paste-context", min: 0, placeholder: x.t("paste.ctxDefault"), value: st.context});
    var dtype = x.el("select", {id: "paste-dtype"}, ["bf16", "fp16", "fp8", "fp32"].map(function (d) {
      return x.el("option", {value: d, selected: d === st.dtype, text: d});
    }));
    var out = x.el("div", {id: "paste-out", "aria-live": "polite"});
    var go = x.el("button", {type: "button", id: "paste-go", text: x.t("paste.go"), onclick: run});
    panel.body.appendChild(area);
    panel.body.appendChild(x.el("div", {class: "controls"}, x.el("label", null, x.t("paste.context"), ctx),
                                x.el("label", null, x.t("paste.dtype"), dtype), go));
    panel.body.appendChild(out);
    var cmd = function () {
      return "llm0 kv config.json" + (st.context ? " --context " + st.context : "") + " --dtype " + st.dtype + " --measure";
    };
    panel.provenance("paste.prov", cmd());

    function render(d) {
      out.textContent = "";
      var m = d.measured;
      var rows = [
        [x.t("paste.kind"), d.attention + (d.model_type ? " · " + d.model_type : "")],
        [x.t("paste.perToken"), x.fmtInt(d.kv_bytes_per_token) + " B", "paste-per-token"],
        [x.t("paste.atContext", {n: x.fmtInt(d.context)}), x.fmtInt(d.total_bytes_at_context) + " B = " + x.fmtBytes(d.total_bytes_at_context), "paste-at-context"]];
      if (d.fixed_state_bytes) rows.push([x.t("paste.fixed"), x.fmtBytes(d.fixed_state_bytes)]);
      // The engine's measurement: one row per element type (bytes held after m.tokens tokens).
      // The small model could not be built (e.g. the paste lacks a field it needs): say why, no verdict.
      if (m && m.error) { panel.showError({message: m.error}); m = null; }
      var measured = m ? (m.rows || [{dtype: m.dtype, engine_bytes: m.engine_bytes_per_token * m.tokens,
                                      ledger_bytes: m.ledger_bytes_per_token * m.tokens}]) : [];
      var agree = measured.every(function (r) { return r.engine_bytes === r.ledger_bytes; });
      measured.forEach(function (r, i) {
        rows.push([x.t("paste.measured", {n: m.tokens, dtype: r.dtype}), x.t("paste.measuredVal",
          {e: x.fmtInt(r.engine_bytes), l: x.fmtInt(r.ledger_bytes)}), i ? null : "paste-measured"]);
      });
      out.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", null, x.el("tbody", null, rows.map(function (r) {
        return x.el("tr", null, x.el("td", {text: r[0]}), x.el("td", {id: r[2] || null, class: r[2] === "paste-per-token" ? "big" : null, text: r[1]}));
      })))));
      out.appendChild(x.el("ul", null, (d.groups || []).map(function (g) {
        return x.el("li", null, x.el("span", {class: "mono", text: g.layers + " × " + (g.layer_type || "") + ": "}), g.formula);
      })));
      if (m) out.appendChild(x.el("p", {class: agree ? "ok" : "bad", id: "paste-verdict",
        text: x.t(agree ? "paste.agree" : "paste.disagree")}));
      (d.notes || []).forEach(function (n) { out.appendChild(x.el("p", {class: "legend", text: n})); });
    }
    function run() {
      st.text = area.value; st.context = ctx.value; st.dtype = dtype.value;
      panel.provenance("paste.prov", cmd());
      panel.clearError();
      out.textContent = "";
      if (!st.text.trim()) { panel.showError({message: x.t("paste.empty")}); return; }
      var params = {dtype: st.dtype, measure: "true"};
      if (st.context !== "") params.context = st.context;
      panel.load(x.apiPost("kv", params, st.text), render, out);
    }
    if (st.text) run();
  };
})(window.llm0x = window.llm0x || {});
