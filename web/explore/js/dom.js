// DOM and number helpers shared by every widget: el() builds elements, fmt* format numbers the
// way the CLI prints them (grouping, fixed decimals, percentages, bytes in binary units).
(function (x) {
  "use strict";

  // el("div", {class: "a", onclick: f, "data-x": 1}, child, "text", [children]...)
  x.el = function (tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  };
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  x.svg = function (tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    return node;
  };

  // `s` as one POSIX shell word: single quotes, each ' written '\'' (so $(...), quotes and
  // backslashes in a learner's sentence reach llm0 as typed when the command is pasted).
  x.shellQuote = function (s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; };
  // A count as "1,234,567": a number, or an exact decimal string (the API's "exact" totals, past
  // 2^53 where a number is rounded).
  x.fmtInt = function (n) {
    return typeof n === "string" ? BigInt(n).toLocaleString("en-US") : Math.round(n).toLocaleString("en-US");
  };
  x.fmtFixed = function (v, digits) { return Number(v).toFixed(digits); };
  x.fmtPct = function (v, digits) { return (v * 100).toFixed(digits === undefined ? 1 : digits) + "%"; };
  // Binary units as the course writes them, by the CLI's rule (src/ledger/kv_format.cpp
  // format_bytes): the largest unit the value reaches, at most two decimals, trailing zeros
  // dropped — 65,536 B = 64 KiB, 2,949,120 B = 2.81 MiB, 16 GiB; under 1 KiB "1,000 B".
  // A ledger's byte total KEY, exact: its decimal string from the API's "exact" object (a number
  // past 2^53 has lost digits), else the number.
  x.ledgerBytes = function (d, key) { return d.exact && d.exact[key] !== undefined ? d.exact[key] : d[key]; };
  // Exact integer arithmetic (BigInt; b a number or a decimal string) with printf's rounding of
  // the exact quotient: to nearest, a tie to even (70,272 B = 68.625 KiB prints 68.62 KiB).
  x.fmtBytes = function (b) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], i = 0;
    var n = BigInt(typeof b === "string" ? b : Math.round(b)), scale = 1n;
    while (i < units.length - 1 && n / scale >= 1024n) { scale *= 1024n; i++; }
    if (i === 0) return x.fmtInt(b) + " B";
    var q = n * 100n / scale, r2 = 2n * (n * 100n % scale);
    if (r2 > scale || (r2 === scale && q % 2n === 1n)) q += 1n;
    var s = (q / 100n).toString() + "." + (q % 100n).toString().padStart(2, "0");
    return s.replace(/0+$/, "").replace(/\.$/, "") + " " + units[i];
  };
})(window.llm0x = window.llm0x || {});
