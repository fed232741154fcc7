/* The explorer, part 5 (see SCRIPT in mod.rs): the neuron view, after bertviz's. For the chosen layer, head
   and query (the head view's focused or pinned query, the first at the start), a row per key: the
   key-side vector (k, W k or tanh(W [q; k])) and its element-wise product with the query-side
   vector (q, or the additive score's v, drawn once above), as strips of coloured cells, then the
   dot, the scaling, the score and the softmax weight (number and bar). Every number comes from
   the payload except the product, which is computed here for display. An SVG, so that it exports
   as it is. */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.neuron_view >= VERSION) return;
  Z.parts.neuron_view = VERSION;

  const P = Z.Explorer.prototype;
  const ROW = 18, CELL_H = 14, NUM = 64, BAR = 80, PAD = 14, MONO = "11px monospace";

  P.buildNeurons = function () {
    const self = this, k = this.k(), box = this.neuronBox;
    box.textContent = "";
    const cap = Z.el("div", "zoo-explorer-caption", box, "neuron view: ");
    if (!k.neurons) {
      cap.appendChild(document.createTextNode(k.name + " carries no score terms (queries, keys), only its weights."));
      this.neuronSvg = null;
      return;
    }
    cap.appendChild(document.createTextNode(
      "how the score of the chosen query against each key is made (" + k.neurons.score + "); hover a key's row to see its line in the head view; hover a cell for its value"));
    const controls = Z.el("div", "zoo-explorer-ncontrols", box);
    const hl = Z.el("label", "zoo-explorer-group", controls, "head ");
    this.neuronSelect = Z.el("select", "zoo-explorer-nhead", hl);
    for (let h = 0; h < k.heads; h++) Z.el("option", "", this.neuronSelect, String(h)).value = String(h);
    this.neuronSelect.disabled = k.heads < 2;
    this.neuronSelect.addEventListener("change", function () {
      self.neuronHead = +self.neuronSelect.value;
      self.drawNeurons();
    });
    this.neuronWhere = Z.el("span", "zoo-explorer-nwhere", controls);
    this.neuronSvg = Z.svg("svg", { class: "zoo-explorer-neuron" }, box);
    this.neuronSvg.addEventListener("mouseleave", () => self.highlight(null));
    this.drawNeurons();
  };

  // a strip of coloured cells: one per dimension, its value on hover and in its data attributes
  function strip(parent, x, y, cw, values, from, dim, m, term, key) {
    for (let d = 0; d < dim; d++) {
      const v = values[from + d], rgb = Z.diverging(v, m);
      const a = { class: "zoo-explorer-ncell", x: x + d * cw, y: y, width: cw, height: CELL_H, fill: "rgb(" + rgb.join(",") + ")", "data-term": term, "data-dim": d, "data-value": Z.fmt(v, 3) };
      if (key != null) a["data-key"] = key;
      Z.svg("title", {}, Z.svg("rect", a, parent)).textContent = term + (key != null ? " key " + key : "") + " [" + d + "] = " + Z.fmt(v, 4);
    }
  }

  function number(parent, x, y, v, term, key, extra) {
    const t = Z.svg("text", Object.assign({ x: x, y: y, "text-anchor": "end", "data-term": term, "data-key": key, "data-value": Z.fmt(v, 3) }, extra || {}), parent);
    t.textContent = Z.fmt(v, 3);
    return t;
  }

  P.drawNeurons = function () {
    const s = this.neuronSvg, k = this.k(), n = k.neurons;
    if (!s || !n) return;
    const self = this, R = k.rows.length, C = k.cols.length, l = this.layer, r = Math.min(this.query, R - 1), dim = n.dim;
    const h = Math.min(k.heads - 1, this.neuronHead != null ? this.neuronHead : this.openHead || 0);
    this.neuronShown = { layer: l, head: h, query: r };
    if (this.neuronSelect.value !== String(h)) this.neuronSelect.value = String(h);
    this.neuronWhere.textContent = " layer " + l + ", query " + r + ": \u201c" + k.rows[r] + "\u201d";
    const cw = Z.cellWidth(dim, 224), sw = dim * cw;
    const tw = (t) => Z.textWidth(t, MONO), leftLabel = n.left.label + (n.left.per_query ? " of \u201c" + k.rows[r] + "\u201d" : "");
    let wk = 0;
    k.cols.forEach((t) => (wk = Math.max(wk, tw(t))));
    wk = Math.max(Math.min(wk, 160), tw("key"), Math.min(tw(leftLabel), 220)) + 10;
    const prodLabel = n.left.label + " \u2299 " + n.right.label;
    const xR = wk, xP = xR + Math.max(sw, tw(n.right.label)) + PAD;
    const xDot = xP + Math.max(sw, tw(prodLabel)) + PAD + NUM;
    const wScale = n.scaling ? tw(n.scaling) + PAD : 0;
    const xScale = xDot + PAD, xScore = xDot + wScale + NUM, xW = xScore + NUM, xBar = xW + 8;
    const width = xBar + BAR + 6, top = 2 * ROW + 8, height = top + C * ROW + 4;
    s.textContent = "";
    for (const [a, v] of [["width", width], ["height", height], ["viewBox", "0 0 " + width + " " + height]]) s.setAttribute(a, v);
    s.style.width = width + "px";
    s.style.height = height + "px";
    const lh = l * k.heads + h, pair = (lh * R + r) * C;
    const left = Z.at.left(k, n, l, h, r), rightAt = (c) => Z.at.right(k, n, l, h, r, c);
    // one colour scale for both vectors, one for their products
    let mv = Z.absMax(n.left.values, left, dim), mp = 0;
    const prod = new Float64Array(C * dim);
    for (let c = 0; c < C; c++) {
      const at = rightAt(c);
      mv = Math.max(mv, Z.absMax(n.right.values, at, dim));
      for (let d = 0; d < dim; d++) prod[c * dim + d] = n.left.values[left + d] * n.right.values[at + d];
    }
    mp = Z.absMax(prod, 0, prod.length);
    const txt = (x, y, t, a) => (Z.svg("text", Object.assign({ x: x, y: y, fill: "currentColor" }, a || {}), s).textContent = t);
    // the query-side vector, once
    txt(wk - 6, 13, leftLabel, { "text-anchor": "end", "font-style": "italic" });
    strip(s, xR, 2, cw, n.left.values, left, dim, mv, "left", null);
    // the headings
    const hy = ROW + 18, head = { "font-style": "italic", "font-size": "11" };
    txt(wk - 6, hy, "key", Object.assign({ "text-anchor": "end" }, head));
    txt(xR, hy, n.right.label, head);
    txt(xP, hy, prodLabel, head);
    txt(xDot, hy, "dot", Object.assign({ "text-anchor": "end" }, head));
    txt(xScore, hy, "score", Object.assign({ "text-anchor": "end" }, head));
    txt(xW, hy, "weight", Object.assign({ "text-anchor": "end" }, head));
    const rows = Z.svg("g", { fill: "currentColor" }, s);
    for (let c = 0; c < C; c++) {
      const y = top + c * ROW, ty = y + 13, cy = y + (ROW - CELL_H) / 2;
      const g = Z.svg("g", { class: "zoo-explorer-nrow", "data-key": c }, rows);
      Z.svg("rect", { class: "zoo-explorer-nbg", x: 0, y: y, width: width, height: ROW, fill: "transparent" }, g);
      Z.svg("text", { x: wk - 6, y: ty, "text-anchor": "end" }, g).textContent = k.cols[c];
      strip(g, xR, cy, cw, n.right.values, rightAt(c), dim, mv, "right", c);
      strip(g, xP, cy, cw, prod, c * dim, dim, mp, "product", c);
      number(g, xDot, ty, n.dots[pair + c], "dot", c);
      if (n.scaling) Z.svg("text", { x: xScale, y: ty, "font-style": "italic" }, g).textContent = n.scaling;
      const score = n.scores[pair + c];
      number(g, xScore, ty, score, "score", c, score === -Infinity ? { "font-style": "italic" } : null);
      const w = n.weights[pair + c];
      number(g, xW, ty, w, "weight", c);
      Z.svg("rect", { x: xBar, y: cy, width: BAR, height: CELL_H, fill: "none", stroke: "currentColor", "stroke-opacity": 0.3 }, g);
      Z.svg("rect", { class: "zoo-explorer-nbar", x: xBar, y: cy, width: (Math.max(0, Math.min(1, w)) * BAR).toFixed(1), height: CELL_H, fill: Z.headColour(h) }, g);
      g.addEventListener("mouseenter", () => self.highlight(h, r, c));
    }
  };
})();
