// The pages' one door to the engine: api(path, params) resolves to the JSON of
// GET /explore/api/PATH?params (docs/explore-api.md), or, in a static export, to the same JSON
// baked into window.LLM0_BAKED under the request's canonical key. Errors (an error object from the
// server, a key that was not baked, no server) reject with llm0x.ApiError, whose message the
// panel shows.
(function (x) {
  "use strict";

  function ApiError(message, code) { this.name = "ApiError"; this.message = message; this.code = code || ""; }
  ApiError.prototype = Object.create(Error.prototype);
  x.ApiError = ApiError;

  // Canonical key: "/explore/api/" + path, then "?" and key=value pairs sorted by key (byte
  // order), values percent-encoded as encodeURIComponent does.
  function query(params) {
    var keys = Object.keys(params || {}).filter(function (k) { return params[k] !== undefined; }).sort();
    return keys.map(function (k) { return k + "=" + encodeURIComponent(String(params[k])); }).join("&");
  }
  x.canonicalKey = function (path, params) {
    var q = query(params);
    return "/explore/api/" + path + (q ? "?" + q : "");
  };

  // An error object in the page's language: the sentence of its code (i18n "err.code.CODE", filled
  // from the object's data: param, field, tokens, limit) with the engine's English detail after it;
  // a language without a sentence for the code (English: the detail is already English) shows
  // the detail alone.
  x.errorText = function (e, status) {
    var detail = e.message || "HTTP " + status, key = "err.code." + e.code;
    var has = e.code && Object.prototype.hasOwnProperty.call(x.strings[x.lang] || {}, key);
    return has ? x.t(key, e) + "（" + detail + "）" : detail;
  };

  // A sentence box's text checked on the page before it is sent (as the server would refuse it):
  // empty, or longer than the request URI can carry (info.limits.uri_bytes). "" when it is fine.
  x.sentenceError = function (text, info) {
    if (!String(text).trim()) return x.t("err.emptyText");
    var limits = info.limits || {};
    var bytes = encodeURIComponent(text).length;
    if (limits.uri_bytes && bytes + 200 > limits.uri_bytes)  // 200: the path and other parameters
      return x.t("err.textTooLong", {chars: Array.from(text).length, limit: limits.attention_map_tokens});
    return "";
  };

  x.isStatic = function () { return typeof window.LLM0_BAKED === "object" && window.LLM0_BAKED !== null; };

  var cache = new Map();  // canonical key -> Promise of JSON; a language switch re-renders from it

  async function answer(response) {
    var body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok || (body && body.error)) {
      var e = body && body.error ? body.error : {};
      throw new ApiError(x.errorText(e, response.status), e.code);
    }
    return body;
  }

  // GET: the page URL is /explore/NAME.html, so "api/..." relative to it is /explore/api/...
  x.api = function (path, params) {
    var key = x.canonicalKey(path, params);
    if (cache.has(key)) return cache.get(key);
    var p;
    if (x.isStatic()) {
      p = Object.prototype.hasOwnProperty.call(window.LLM0_BAKED, key)
        ? Promise.resolve(window.LLM0_BAKED[key])
        : Promise.reject(new ApiError(x.t("err.notBaked")));
    } else {
      p = fetch(key.replace(/^\/explore\//, "")).then(answer, function () {
        throw new ApiError(x.t("err.noServer"));
      });
    }
    p.catch(function () { cache.delete(key); });
    cache.set(key, p);
    return p;
  };

  // GET without the cache: a run's state now (the training page polls and refreshes with it).
  x.apiNow = function (path, params) {
    cache.delete(x.canonicalKey(path, params));
    return x.api(path, params);
  };

  // POST body (a config.json as text): never baked; a static page says it needs the engine.
  x.apiPost = function (path, params, body) {
    if (x.isStatic()) return Promise.reject(new ApiError(x.t("err.notBaked")));
    var key = x.canonicalKey(path, params);
    return fetch(key.replace(/^\/explore\//, ""), {method: "POST", body: body,
                                                  headers: {"Content-Type": "application/json"}})
      .then(answer, function () { throw new ApiError(x.t("err.noServer")); });
  };
})(window.llm0x = window.llm0x || {});
