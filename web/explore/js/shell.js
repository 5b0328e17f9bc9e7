// The frame around every page: header (title, page links, the language switch), the page's own
// heading and lead, and a footer with the engine's version. Pages render into the returned <main>.
(function (x) {
  "use strict";
  x.pages = [
    {id: "index", href: "index.html", title: "nav.index"},
    {id: "train", href: "train.html", title: "nav.train"},
    {id: "retrieve-v", href: "retrieve-v.html", title: "nav.retrieveV"},
    {id: "kv-cache", href: "kv-cache.html", title: "nav.kvCache"},
    {id: "lineage", href: "lineage.html", title: "nav.lineage"},
    {id: "model", href: "model.html", title: "nav.model"}
  ];

  x.shell = function (root, pageId, info, onLang) {
    var t = x.t;
    var other = x.lang === "zh" ? "en" : "zh";
    var nav = x.el("nav", {class: "site-nav", "aria-label": t("nav.label")},
      x.pages.map(function (p) {
        return x.el("a", {href: p.href, class: p.id === pageId ? "current" : null,
                          "aria-current": p.id === pageId ? "page" : null, text: t(p.title)});
      }));
    var sw = x.el("button", {class: "lang-switch", id: "lang-switch", type: "button", lang: other,
                             onclick: function () { onLang(other); }, text: t("lang.switchTo")});
    root.appendChild(x.el("header", {class: "site-header"},
      x.el("div", {class: "brand"}, x.el("a", {href: "index.html", text: "llm0"}),
           x.el("span", {class: "brand-sub", text: t("site.sub")})), nav, sw));
    var page = x.pages.filter(function (p) { return p.id === pageId; })[0];
    var main = x.el("main", {id: "main"},
      x.el("h1", {text: t("page." + pageId + ".title")}),
      x.el("p", {class: "lead", text: t("page." + pageId + ".lead")}));
    root.appendChild(main);
    if (x.isStatic()) main.appendChild(x.el("p", {class: "note static-note", text: t("static.note")}));
    root.appendChild(x.el("footer", {class: "site-footer"},
      x.el("span", {title: info ? info.version : "", text: info ? info.version.split("\n")[0] : ""}), " · ",
      x.el("span", {text: t("footer.offline")})));
    document.title = t("page." + pageId + ".title") + " · llm0";
    return page ? main : main;
  };
})(window.llm0x = window.llm0x || {});
