// A panel: one experiment of a page, with its heading, its body, an error slot and its provenance
// line (the course's 数字口径: where the numbers come from and the `llm0` command that prints them).
// opts: id, title and intro (i18n keys, their {placeholders} filled from opts.vars), wide,
// provenance and command (the provenance line).
// load(promise, render) shows "computing…", then render(data), or the API's error in the panel.
(function (x) {
  "use strict";

  x.panel = function (parent, opts) {
    var body = x.el("div", {class: "panel-body"});
    var error = x.el("div", {class: "panel-error", role: "alert", hidden: true});
    var prov = x.el("p", {class: "provenance"});
    var node = x.el("section", {class: "panel" + (opts.wide ? " wide" : ""), id: opts.id},
      x.el("h2", {text: x.t(opts.title, opts.vars)}),
      opts.intro ? x.el("p", {class: "intro", text: x.t(opts.intro, opts.vars)}) : null,
      body, error, prov);
    parent.appendChild(node);

    var p = {node: node, body: body};
    p.showError = function (e) {
      error.hidden = false;
      error.textContent = x.t("err.prefix") + (e && e.message ? e.message : String(e));
    };
    p.clearError = function () { error.hidden = true; error.textContent = ""; };
    // text: an i18n key (or already translated text); command: the exact `llm0 ...` line.
    p.provenance = function (text, command) {
      prov.textContent = "";
      prov.appendChild(x.el("span", {class: "prov-label", text: x.t("prov.label")}));
      prov.appendChild(document.createTextNode(x.t(text) + " "));
      // Lines break at spaces, each word kept whole (a flag never splits after its "--") unless
      // it is wider than the line (a long path or sentence): then it breaks inside (CSS .word).
      if (command) prov.appendChild(x.el("code", {class: "prov-cmd"}, command.split(" ").map(function (w, i) {
        return [i ? " " : "", x.el("span", {class: "word", text: w})];
      })));
    };
    p.load = function (promise, render, target) {
      var into = target || body;
      var wait = x.el("p", {class: "loading", text: x.t("loading")});
      into.appendChild(wait);
      return promise.then(function (data) {
        wait.remove();
        p.clearError();
        render(data);
      }, function (e) {
        wait.remove();
        p.showError(e);
      });
    };
    if (opts.provenance) p.provenance(opts.provenance, opts.command);
    return p;
  };
})(window.llm0x = window.llm0x || {});
