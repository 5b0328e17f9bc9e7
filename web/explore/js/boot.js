// Starts a page: asks the engine for /explore/api/info, picks the language, draws the shell and
// the page (llm0x.renderPage, set by js/pages/*.js), and redraws everything from the cached
// answers when the language switches, keeping each widget's state (llm0x.state).
(function (x) {
  "use strict";
  var root = document.getElementById("app");
  var pageId = document.body.getAttribute("data-page");
  x.state = x.state || {};

  function draw(info, infoError) {
    root.textContent = "";
    var main = x.shell(root, pageId, info, function (lang) { x.setLang(lang); draw(info, infoError); });
    if (infoError) main.appendChild(x.el("p", {class: "panel-error", role: "alert",
                                             text: x.t("err.prefix") + infoError.message}));
    if (x.renderPage) x.renderPage(main, info || {});
  }

  x.api("info").then(function (info) {
    x.chooseLang(info.lang);
    draw(info, null);
  }, function (e) {
    x.chooseLang(null);
    draw(null, e);
  });
})(window.llm0x = window.llm0x || {});
