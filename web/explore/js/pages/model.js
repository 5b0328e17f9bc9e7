// Page "your model": attention heat maps on the learner's sentence and a token-by-token
// continuation with the cache growing, on the model `llm0 explore --model RUN` loaded.
(function (x) {
  "use strict";
  x.renderPage = function (main, info) {
    if (info.model) {
      var m = info.model;
      main.appendChild(x.el("p", {class: "note", id: "model-info", text: x.t("index.model",
        {name: m.name, layers: m.num_hidden_layers, heads: m.num_attention_heads, kv: m.num_key_value_heads})}));
    }
    x.widgets.heatmap(main, info);
    x.widgets.continuation(main, info);
  };
})(window.llm0x = window.llm0x || {});
