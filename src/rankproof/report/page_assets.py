"""The HTML report's fixed parts: its Content-Security-Policy, style sheet and script.

Static text only (no number is computed here): :mod:`rankproof.report.html`
writes them into every page.
"""

__all__ = ["CSP", "CSS", "SCRIPT"]

# Every network request is forbidden: the page is self-contained.
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "connect-src 'none'; form-action 'none'; base-uri 'none'")

CSS = """
:root{--ink:#1d2330;--muted:#5d6675;--line:#d9dde3;--soft:#f4f6f8;--accent:#4269d0}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#fff}
main{max-width:1200px;margin:0 auto;padding:20px 28px 60px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:34px 0 8px;padding-top:10px;border-top:1px solid var(--line)}
h3{font-size:14px;margin:14px 0 4px}
p,li{max-width:900px}.muted,.note{color:var(--muted)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{padding:3px 9px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;vertical-align:top}
th{background:var(--soft);font-weight:600;white-space:normal;overflow-wrap:normal;word-break:normal;hyphens:none}
.scroll{overflow-x:auto;max-width:100%}table.summary th{max-width:120px}table.summary td,table.summary th{padding:3px 7px}
td.text,th.text{text-align:left;white-space:normal}
table.meta td{text-align:left;white-space:normal}table.meta td:first-child{color:var(--muted);white-space:nowrap}
tr.baseline td{background:#fbfbfd}
.sig{color:#0a7a3d;font-weight:700}.worse{color:#b3261e}
.warn{background:#fff7e0;border-left:4px solid #efb118;padding:6px 10px;margin:6px 0}
.missing{background:var(--soft);border-left:4px solid #9498a0;padding:6px 10px;margin:6px 0}
.grid{display:flex;flex-wrap:wrap;gap:10px 22px;align-items:flex-start}
figure{margin:4px 0}figcaption{font-size:12.5px;color:var(--muted);max-width:560px}
svg.figure{display:block;max-width:100%;height:auto;font-size:11px;overflow:visible}
svg .grid{stroke:#eceef1}svg .axis,svg .tick{stroke:#8a919c}svg text{fill:#3b4350}
svg text.label{fill:var(--muted);font-size:11.5px}svg text.note{fill:var(--muted)}
svg polyline{fill:none;stroke-width:2}svg .cutoff{stroke:#9498a0;stroke-dasharray:3 3}svg .cutoff-label{fill:#5d6675}
svg rect.bar[data-query]{cursor:pointer}svg rect.bar:hover,svg circle.point:hover{opacity:.7}
svg line.interval{stroke-width:2.5}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:2px 0 6px;font-size:12.5px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.controls{display:flex;gap:12px;align-items:center;margin:8px 0;flex-wrap:wrap}
select{font:inherit;padding:2px 4px}
.rankings{display:flex;gap:18px;flex-wrap:wrap;align-items:flex-start}
.rankings table td,.rankings table th{padding:2px 6px;font-size:12.5px}
.rankings h3 i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px}
tr.unjudged td{color:#8a5a00;background:#fffaf0}tr.below td{color:#9aa1ab}
nav{font-size:12.5px;margin:6px 0 0}nav a{margin-right:10px;color:var(--accent);text-decoration:none}
"""

# Shows the chosen query: its rankings side by side, the ideal list, and its
# cumulative DCG against the ideal. Reads only the embedded data.
SCRIPT = r"""
(function () {
  "use strict";
  var node = document.getElementById("drill-data");
  if (!node) return;
  var D = JSON.parse(node.textContent);
  var COLORS = JSON.parse(document.getElementById("run-colors").textContent);
  var index = {};
  D.queries.forEach(function (q, i) { index[q] = i; });
  var selects = Array.prototype.slice.call(document.querySelectorAll("select.query"));
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function fmt(x) { return x === null || x === undefined ? "n/a" : Number(x).toFixed(4); }
  function table(head, rows) {
    var t = el("table"), tr = el("tr");
    head.forEach(function (h, i) { tr.appendChild(el("th", i === 1 ? {"class": "text"} : {}, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el("tr", r.cls ? {"class": r.cls} : {});
      r.cells.forEach(function (c, i) { row.appendChild(el("td", i === 1 ? {"class": "text"} : {}, c)); });
      t.appendChild(row);
    });
    return t;
  }
  function idealOf(run, i) { return D.ideal_per_run ? D.ideal[run][i] : D.ideal[i]; }
  // The measure the drill-down explains (its selector): the DCG one shows gains and discounts, the others
  // which ranked docs are relevant at their level, each with its own value and cutoff.
  var MEASURES = D.measures || [{measure: D.measure, k: D.k, gain_based: true, values: D.values, rel: 1}];
  var M = MEASURES[0], current = null;
  function plainRows(run, i) {
    var seen = 0;
    return D.rankings[run][i].map(function (r, j) {
      var below = M.k !== null && j >= M.k;
      var relevant = r[1] !== null && r[1] >= M.rel;
      if (relevant && !below) seen += 1;
      return {cls: below ? "below" : (r[1] === null ? "unjudged" : ""),
              cells: [String(j + 1), r[0], r[1] === null ? "unjudged" : String(r[1]), relevant ? "yes" : "",
                      String(seen)]};
    });
  }
  function showRankings(q, i) {
    var box = document.getElementById("drill-rankings");
    box.textContent = "";
    D.runs.forEach(function (run) {
      var div = el("div", {"class": "ranking", "data-run": run, "data-query": q, "data-measure": M.measure});
      var h = el("h3");
      var sw = el("i"); sw.style.background = COLORS[run]; h.appendChild(sw);
      h.appendChild(document.createTextNode(run + ": " + M.measure + " = " + fmt(M.values[run][i])));
      div.appendChild(h);
      if (!M.gain_based) {
        var plain = plainRows(run, i);
        if (!plain.length) div.appendChild(el("p", {"class": "muted"}, "no ranking for this query"));
        else div.appendChild(table(["rank", "doc", "grade", "relevant", "relevant so far"], plain));
        box.appendChild(div);
        return;
      }
      var rows = D.rankings[run][i].map(function (r, j) {
        var discount = r.length > 5 ? r[5] : (D.k === null || j < D.k ? D.discount[j] : 0);
        var below = D.k !== null && j >= D.k;
        return {cls: below ? "below" : (r[1] === null ? "unjudged" : ""),
                cells: [String(j + 1), r[0], r[1] === null ? "unjudged" : String(r[1]), String(r[2]),
                        Number(discount).toFixed(4), Number(r[3]).toFixed(4), Number(r[4]).toFixed(4)]};
      });
      if (!rows.length) div.appendChild(el("p", {"class": "muted"}, "no ranking for this query"));
      else div.appendChild(table(["rank", "doc", "grade", "gain", "discount", "contribution", "cumulative"], rows));
      box.appendChild(div);
    });
    var ideal = idealOf(D.runs[0], i);
    var div = el("div", {"class": "ranking ideal"});
    div.appendChild(el("h3", {}, "ideal ranking" + (D.ideal_per_run ? " (" + D.runs[0] + ")" : "")));
    if (!ideal.length) div.appendChild(el("p", {"class": "muted"}, "nothing relevant is judged for this query"));
    else div.appendChild(table(["rank", "doc", "grade", "gain", "cumulative"], ideal.map(function (r, j) {
      return {cls: D.k !== null && j >= D.k ? "below" : "",
              cells: [String(j + 1), r[0], String(r[1]), String(r[2]), Number(r[3]).toFixed(4)]};
    })));
    box.appendChild(div);
  }
  function showCumulative(q, i) {
    var svgNode = document.getElementById("cumulative");
    while (svgNode.lastChild) svgNode.removeChild(svgNode.lastChild);
    var W = 560, H = 300, L = 52, R = 16, T = 14, B = 42;
    // Every curve stops at the cutoff k, where the measure stops (the ideal list does too).
    function cut(ys) { return D.k !== null ? ys.slice(0, D.k) : ys; }
    var series = D.runs.map(function (run) {
      return {name: run, color: COLORS[run], ys: cut(D.rankings[run][i].map(function (r) { return r[4]; }))};
    });
    // A run whose curve is another's is dashed and named, so that neither hides the other.
    series.forEach(function (s, j) {
      for (var o = 0; o < j; o++) {
        if (!series[o].twin && series[o].ys.join() === s.ys.join()) { s.twin = series[o].name; s.dashed = true; break; }
      }
    });
    var idealRuns = D.ideal_per_run ? D.runs : [D.runs[0]];
    idealRuns.forEach(function (run) {
      series.push({name: "ideal" + (D.ideal_per_run ? " (" + run + ")" : ""), color: "#1d2330", dashed: true,
                   ys: cut(idealOf(run, i).map(function (r) { return r[3]; }))});
    });
    var most = 0;
    series.forEach(function (s) { s.ys.forEach(function (y) { if (y > most) most = y; }); });
    if (most <= 0) most = 1;
    var step = Math.pow(10, Math.floor(Math.log10(most / 4)));
    [1, 2, 2.5, 5, 10].some(function (m) { if (m * step >= most / 4) { step = m * step; return true; } return false; });
    var top = Math.ceil(most / step - 1e-9) * step;
    // The left margin fits the longest tick label clear of the rotated title (as the page's own charts do).
    for (var t = 0; t <= top + step / 2; t += step) L = Math.max(L, Math.ceil(29 + 7 * String(+t.toFixed(6)).length));
    var n = D.depth;
    function x(r) { return L + (r - 1) / Math.max(n - 1, 1) * (W - L - R); }
    function y(v) { return H - B - v / top * (H - T - B); }
    var g = svgEl("g", {"class": "axes"});
    for (var v = 0; v <= top + step / 2; v += step) {
      var yy = y(v);
      g.appendChild(svgEl("line", {"class": "grid", x1: L, x2: W - R, y1: yy, y2: yy}));
      var lab = svgEl("text", {x: L - 6, y: yy, dy: "0.32em", "text-anchor": "end"}); lab.textContent = String(+v.toFixed(6));
      g.appendChild(lab);
    }
    [1, 5, 10, 15, 20].filter(function (r) { return r <= n; }).forEach(function (r) {
      var lab = svgEl("text", {x: x(r), y: H - B + 16, "text-anchor": "middle"}); lab.textContent = r;
      g.appendChild(lab);
    });
    var xl = svgEl("text", {"class": "label", x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle"});
    xl.textContent = "rank"; g.appendChild(xl);
    var yl = svgEl("text", {"class": "label", transform: "translate(13," + (H / 2) + ") rotate(-90)",
                            "text-anchor": "middle"});
    yl.textContent = "cumulative DCG"; g.appendChild(yl);
    svgNode.appendChild(g);
    if (D.k !== null && D.k <= n) {
      svgNode.appendChild(svgEl("line", {"class": "cutoff", x1: x(D.k), x2: x(D.k), y1: T, y2: H - B}));
      var kl = svgEl("text", {"class": "cutoff-label", x: x(D.k) + 4, y: H - B - 6}); kl.textContent = "k = " + D.k;
      svgNode.appendChild(kl);
    }
    series.forEach(function (s) {
      if (!s.ys.length) return;
      var pts = s.ys.map(function (v, j) { return x(j + 1).toFixed(1) + "," + y(v).toFixed(1); }).join(" ");
      var line = svgEl("polyline", {"class": "mark line", points: pts, stroke: s.color});
      if (s.dashed) line.setAttribute("stroke-dasharray", "5 4");
      if (s.twin) line.setAttribute("data-identical-to", s.twin);
      var title = svgEl("title", {}); title.textContent = s.name + (s.twin ? " (identical to " + s.twin + ")" : "");
      line.appendChild(title);
      svgNode.appendChild(line);
      s.ys.forEach(function (v, j) {
        var c = svgEl("circle", {"class": "mark point", cx: x(j + 1), cy: y(v), r: 2.4, fill: s.color});
        var tt = svgEl("title", {}); tt.textContent = s.name + ": rank " + (j + 1) + ", cumulative DCG " + v.toFixed(4);
        c.appendChild(tt); svgNode.appendChild(c);
      });
    });
    svgNode.setAttribute("data-query", q);
  }
  function show(q) {
    if (!(q in index)) return false;
    var i = index[q];
    selects.forEach(function (s) { s.value = q; });
    current = q;
    showRankings(q, i);
    showCumulative(q, i);
    document.getElementById("drill").setAttribute("data-query", q);
    document.getElementById("drill").setAttribute("data-measure", M.measure);
    return true;
  }
  Array.prototype.forEach.call(document.querySelectorAll("select.measure"), function (s) {
    MEASURES.forEach(function (m, j) { s.appendChild(el("option", {value: String(j)}, m.measure)); });
    s.addEventListener("change", function () { M = MEASURES[Number(s.value)]; if (current !== null) show(current); });
  });
  selects.forEach(function (s) {
    D.queries.forEach(function (q) { s.appendChild(el("option", {value: q}, q)); });
    s.addEventListener("change", function () { show(s.value); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("rect.bar[data-query]"), function (bar) {
    bar.addEventListener("click", function () {
      if (show(bar.getAttribute("data-query"))) document.getElementById("drill").scrollIntoView();
    });
  });
  function fromHash() {
    var m = /(?:^#|&)query=([^&]*)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }
  window.addEventListener("hashchange", function () { var q = fromHash(); if (q !== null) show(q); });
  var wanted = fromHash();
  if (wanted === null || !show(wanted)) show(D.first);
})();
"""
