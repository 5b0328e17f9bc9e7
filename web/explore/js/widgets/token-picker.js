// A row of buttons, one per token of the sentence, for choosing the "asker" (the query row);
// the chosen one is aria-pressed. onPick(token) is called with the token text.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  x.widgets.tokenPicker = function (tokens, chosen, onPick, labelKey) {
    return x.el("div", {class: "token-picker", role: "group", "aria-label": x.t(labelKey)},
      x.el("span", {text: x.t(labelKey)}),
      tokens.map(function (tok) {
        return x.el("button", {type: "button", "data-token": tok, "aria-pressed": tok === chosen ? "true" : "false",
                               onclick: function () { onPick(tok); }, text: tok});
      }));
  };
})(window.llm0x = window.llm0x || {});
