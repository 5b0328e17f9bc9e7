// Continuation token by token on the loaded model (GET lesson/generate-steps, the twin of
// `llm0 lesson generate-steps --model RUN --text S --tokens N --temperature T --json`): greedy or
// sampled, each step revealed in turn with the cache's bytes in use (the engine's
// ModelCache::bytes_in_use()) and its work counters growing.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  x.widgets.continuation = function (parent, info) {
    var model = info.model;
    var st = x.state.cont = x.state.cont || {text: model ? model.default_text : "", tokens: 32, temperature: 0};
    var panel = x.panel(parent, {id: "continuation", title: "model.gen.title", intro: "model.gen.intro"});
    if (!model) { panel.body.appendChild(x.el("p", {class: "note", text: x.t("model.none", {hint: info.model_hint})})); return; }
    var input = x.el("input", {type: "text", id: "gen-text", value: st.text, style: "flex:1;min-width:12em",
                               "aria-label": x.t("model.map.sentence")});
    var mode = x.el("select", {id: "gen-mode"},
      x.el("option", {value: "0", selected: st.temperature === 0, text: x.t("model.gen.greedy")}),
      x.el("option", {value: "0.8", selected: st.temperature !== 0, text: x.t("model.gen.sampled")}));
    var go = x.el("button", {type: "button", id: "gen-go", text: x.t("model.gen.go"), onclick: function () {
      st.text = input.value; st.temperature = Number(mode.value); load();
    }});
    panel.body.appendChild(x.el("div", {class: "controls"}, input, mode, go));
    var text = x.el("p", {class: "big gen-text", id: "gen-output"});
    var bar = x.el("div", {style: "height:10px;background:#e5f3ec;border-radius:5px;overflow:hidden"},
                   x.el("div", {id: "gen-bar", style: "height:100%;width:0;background:#2f7d5b"}));
    var table = x.el("tbody");
    panel.body.appendChild(text);
    panel.body.appendChild(bar);
    panel.body.appendChild(x.el("div", {class: "table-wrap", style: "max-height:320px;overflow-y:auto"}, x.el("table", {id: "gen-steps"},
      x.el("thead", null, x.el("tr", null, ["model.gen.step", "model.gen.token", "model.gen.bytes", "model.gen.kv", "model.gen.qk"]
        .map(function (k) { return x.el("th", {text: x.t(k)}); }))), table)));
    var timer = null, requests = 0;

    function row(i, tok, s) {
      return x.el("tr", null, x.el("td", {text: i}), x.el("td", {class: "mono", text: tok}),
        x.el("td", {text: x.fmtInt(s.cache_bytes)}), x.el("td", {text: x.fmtInt(s.kv_projected)}),
        x.el("td", {text: x.fmtInt(s.qk_scores)}));
    }
    function play(d) {
      clearInterval(timer);
      var prompt = d.prompt.map(function (p) { return p.text; }).join("");
      var max = d.steps.length ? d.steps[d.steps.length - 1].cache_bytes : d.prefill.cache_bytes;
      var shown = 0;
      text.textContent = prompt;
      table.textContent = "";
      table.appendChild(row(x.t("model.gen.prefill"), prompt, d.prefill));
      var barEl = document.getElementById("gen-bar");
      var tick = function () {
        if (shown >= d.steps.length) { clearInterval(timer); return; }
        var s = d.steps[shown++];
        text.appendChild(x.el("span", {class: "gen-tok", text: s.token.text}));
        table.appendChild(row(shown, s.token.text, s));
        if (barEl) barEl.style.width = (100 * s.cache_bytes / max).toFixed(1) + "%";
      };
      timer = setInterval(tick, 90);
    }
    function load() {
      panel.provenance("model.gen.prov", "llm0 lesson generate-steps --model " + model.name + " --text " + x.shellQuote(st.text) +
                       " --tokens " + st.tokens + " --temperature " + st.temperature);
      clearInterval(timer);  // a new request stops the previous one's animation at once
      table.textContent = ""; text.textContent = "";
      var seq = ++requests;  // and an older answer arriving later is not played
      panel.load(x.api("lesson/generate-steps", {text: st.text, tokens: st.tokens, temperature: st.temperature}),
                 function (d) { if (seq === requests) play(d); }, text);
    }
    load();
  };
})(window.llm0x = window.llm0x || {});
