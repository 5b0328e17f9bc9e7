// The explorer's home page: one card per lesson page, the engine's version and the loaded model
// (or how to load one).
(function (x) {
  "use strict";
  var CARDS = [["train.html", "nav.train", "card.train"], ["retrieve-v.html", "nav.retrieveV", "card.retrieveV"], ["kv-cache.html", "nav.kvCache", "card.kvCache"],
               ["lineage.html", "nav.lineage", "card.lineage"], ["model.html", "nav.model", "card.model"]];
  x.renderPage = function (main, info) {
    main.appendChild(x.el("div", {class: "cards"}, CARDS.map(function (c) {
      return x.el("a", {class: "card", href: c[0]}, x.el("h2", {text: x.t(c[1])}), x.el("p", {text: x.t(c[2])}));
    })));
    var m = info.model;
    main.appendChild(x.el("p", {class: "note", id: "index-model", text: m
      ? x.t("index.model", {name: m.name, layers: m.num_hidden_layers, heads: m.num_attention_heads, kv: m.num_key_value_heads})
      : x.t("model.none", {hint: info.model_hint || "llm0 explore --model runs/small"})}));
    if (info.version) main.appendChild(x.el("p", {class: "legend version", text: x.t("index.version", {v: info.version})}));
  };
})(window.llm0x = window.llm0x || {});
