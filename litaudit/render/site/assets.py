"""The site's one stylesheet and one script, inlined in every page (so that a page works
opened from a file, with a Content-Security-Policy that forbids every load: the script is
allowed by its SHA-256, :data:`SCRIPT_HASH`).

The script sorts a ``table.sortable`` by a column (its header's button; a cell's
``data-v`` is its sort key, numbers compared as numbers) and filters its rows by the
``form.filters`` whose ``data-for`` names the table: search text (a row's ``data-text``),
role, source, years (``data-year``), zero-shot (``data-zs``) and tied with the top
(``data-tied``). Nothing is fetched; without the script every row is shown.
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  margin: 0 auto; padding: 0 1rem 2rem; max-width: 72rem; line-height: 1.45; color: #1b1b1b; }
a { color: #0b57a4; } a:focus, button:focus, input:focus, select:focus {
  outline: 3px solid #f2a900; outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem;
  background: #fff; padding: .25rem .5rem; z-index: 2; }
nav.site { padding: .5rem 0; border-bottom: 1px solid #ddd; font-size: .9rem; }
h1 { font-size: 1.45rem; margin: .75rem 0 .5rem; }
h2 { font-size: 1.2rem; margin-top: 1.75rem; border-bottom: 1px solid #ddd; }
.record { border: 2px solid #0b57a4; border-radius: 6px; padding: .5rem .75rem;
  background: #f4f8fc; }
.record h2 { margin-top: .25rem; } .record p { margin: .3rem 0; } .record .value { font-size: 1.3rem; font-weight: 700; }
.tied { margin: .3rem 0; padding-left: 1.5rem; font-size: .9rem; }
.note { color: #444; font-size: .9rem; }
code { background: #f3f3f3; padding: 0 .2em; border-radius: 3px; word-break: break-all; }
.scroll { overflow-x: auto; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .88rem; }
th, td { border: 1px solid #d0d0d0; padding: .2rem .45rem; text-align: left;
  vertical-align: top; }
th { background: #f5f5f5; } th button { font: inherit; font-weight: 700; border: 0;
  background: none; padding: 0; cursor: pointer; color: inherit; text-align: left; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
td.nowrap { white-space: nowrap; }
td.loc { min-width: 14rem; font-size: .8rem; } td.loc code { word-break: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.top td { background: #fff7d6; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end;
  margin: .5rem 0; font-size: .9rem; }
form.filters label { display: flex; flex-direction: column; }
form.filters label.check { flex-direction: row; gap: .3rem; align-items: center; }
form.filters input[type=number] { width: 5.5rem; }
figure { margin: 1rem 0; max-width: 44rem; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .9rem; color: #444; }
footer { margin-top: 2rem; font-size: .85rem; color: #555; border-top: 1px solid #ddd; }
@media (max-width: 600px) { body { padding: 0 .5rem 1rem; } table { font-size: .8rem; } }
"""

SCRIPT = """
(function () {
  "use strict";
  function key(cell, type) {
    var v = cell ? cell.getAttribute("data-v") : null;
    if (v === null) { v = cell ? cell.textContent.trim() : ""; }
    if (type === "num") { var x = parseFloat(v); return isNaN(x) ? -Infinity : x; }
    return v.toLowerCase();
  }
  function sortBy(table, th, col, type) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.querySelectorAll("thead th");
    for (var i = 0; i < heads.length; i++) { heads[i].setAttribute("aria-sort", "none"); }
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._pos = i; });
    rows.sort(function (a, b) {
      var x = key(a.cells[col], type), y = key(b.cells[col], type);
      if (x < y) { return asc ? -1 : 1; }
      if (x > y) { return asc ? 1 : -1; }
      return a._pos - b._pos;
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    body.appendChild(frag);
  }
  function field(form, name) { return form.elements.namedItem(name); }
  function applyFilters(form, table) {
    var q = field(form, "q"), role = field(form, "role"), src = field(form, "source");
    var from = field(form, "from"), to = field(form, "to"), zs = field(form, "zs");
    var tied = field(form, "tied");
    var words = q ? q.value.toLowerCase().split(/\\s+/).filter(Boolean) : [];
    var lo = from && from.value !== "" ? parseInt(from.value, 10) : null;
    var hi = to && to.value !== "" ? parseInt(to.value, 10) : null;
    var rows = table.tBodies[0].rows, shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], ok = true, text = r.getAttribute("data-text") || "";
      for (var w = 0; w < words.length && ok; w++) { ok = text.indexOf(words[w]) >= 0; }
      if (ok && role && role.value) { ok = r.getAttribute("data-role") === role.value; }
      if (ok && src && src.value) { ok = r.getAttribute("data-source") === src.value; }
      var year = parseInt(r.getAttribute("data-year") || "", 10);
      if (ok && lo !== null && !isNaN(lo)) { ok = !isNaN(year) && year >= lo; }
      if (ok && hi !== null && !isNaN(hi)) { ok = !isNaN(year) && year <= hi; }
      if (ok && zs && zs.checked) { ok = r.getAttribute("data-zs") === "1"; }
      if (ok && tied && tied.checked) { ok = r.getAttribute("data-tied") === "1"; }
      r.hidden = !ok;
      if (ok) { shown++; }
    }
    var out = form.querySelector("output");
    if (out) { out.textContent = "showing " + shown + " of " + rows.length; }
  }
  function init() {
    var tables = document.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.querySelectorAll("thead th");
      Array.prototype.forEach.call(heads, function (th, col) {
        var b = th.querySelector("button");
        if (b) {
          b.addEventListener("click", function () {
            sortBy(table, th, col, b.getAttribute("data-type") || "text");
          });
        }
      });
    });
    var forms = document.querySelectorAll("form.filters");
    Array.prototype.forEach.call(forms, function (form) {
      var table = document.getElementById(form.getAttribute("data-for"));
      if (!table) { return; }
      var run = function () { applyFilters(form, table); };
      form.addEventListener("input", run);
      form.addEventListener("change", run);
      form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
      form.hidden = false;
      run();
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else { init(); }
})();
"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
CSP = f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '{SCRIPT_HASH}'"
