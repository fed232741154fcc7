/* The explorer, part 3 (see SCRIPT in mod.rs): the head view. The query tokens in one column, the key tokens
   in another, a line per (head, query, key) of the chosen layer as strong as its weight; a query
   token hovered, focused (Tab, arrow keys) or pinned (click, Enter, Space) keeps only its lines and
   prints its weights. */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.head_view >= VERSION) return;
  Z.parts.head_view = VERSION;

  const ROW_H = (Z.ROW_H = 18), TOP = (Z.TOP = 24), GAP = 190, MIN_LINE = 0.005;
  const P = Z.Explorer.prototype;

  P.buildHeadView = function () {
    const k = this.k(), s = this.svgEl;
    let wl = 0, wr = 0;
    k.rows.forEach((t) => (wl = Math.max(wl, Z.textWidth(t))));
    k.cols.forEach((t) => (wr = Math.max(wr, Z.textWidth(t))));
    // at least the width of the column's heading, "queries"
    wl = Math.max(Math.min(wl, 220), Z.textWidth("queries")) + 10;
    wr = Math.min(wr, 220) + 10;
    this.xl = wl + 4;
    this.xr = wl + GAP - 4;
    const height = TOP + Math.max(k.rows.length, k.cols.length) * ROW_H + 4, width = wl + GAP + wr;
    s.textContent = "";
    s.setAttribute("width", width);
    s.setAttribute("height", height);
    s.setAttribute("viewBox", "0 0 " + width + " " + height);
    s.style.width = width + "px";
    s.style.height = height + "px";
    Z.svg("text", { x: wl - 6, y: 14, "text-anchor": "end", "font-size": "11", "font-style": "italic", fill: "currentColor" }, s).textContent = "queries";
    Z.svg("text", { x: wl + GAP + 6, y: 14, "font-size": "11", "font-style": "italic", fill: "currentColor" }, s).textContent = "keys";
    this.linesAll = Z.svg("g", { class: "zoo-explorer-all" }, s);
    this.linesFocus = Z.svg("g", { class: "zoo-explorer-focus" }, s);
    this.linesHl = Z.svg("g", { class: "zoo-explorer-hls" }, s);
    this.rowTokens = this.tokenColumn(s, k.rows, "row", 0, wl);
    this.colTokens = this.tokenColumn(s, k.cols, "col", wl + GAP, wr);
    this.drawLines();
  };

  // a query token's handlers: hover and keyboard focus show it, a click, Enter or Space pins it,
  // Escape unpins, the arrow keys move to the next or previous token (a pin moves along)
  P.queryEvents = function (g, i) {
    const self = this, n = () => self.rowTokens.length;
    const togglePin = function () {
      if (self.pinned && self.focus === i) {
        self.pinned = false;
        self.setFocus(document.activeElement === g ? i : -1);
      } else {
        self.pinned = true;
        self.setFocus(i);
      }
    };
    g.addEventListener("mouseenter", () => self.pinned || self.setFocus(i));
    g.addEventListener("mouseleave", () => self.pinned || document.activeElement === g || self.setFocus(-1));
    g.addEventListener("focus", () => self.pinned || self.setFocus(i));
    g.addEventListener("blur", () => self.pinned || self.setFocus(-1));
    g.addEventListener("click", togglePin);
    g.addEventListener("keydown", function (e) {
      let to = null;
      if (e.key === "ArrowDown" || e.key === "ArrowRight") to = Math.min(n() - 1, i + 1);
      else if (e.key === "ArrowUp" || e.key === "ArrowLeft") to = Math.max(0, i - 1);
      else if (e.key === "Home") to = 0;
      else if (e.key === "End") to = n() - 1;
      else if (e.key === "Enter" || e.key === " ") togglePin();
      else if (e.key === "Escape") {
        self.pinned = false;
        self.setFocus(i);
      } else return;
      e.preventDefault();
      if (to != null && to !== i) {
        const pinned = self.pinned;
        self.pinned = false;
        self.rowTokens[to].focus();
        if (pinned) {
          self.pinned = true;
          self.setFocus(to);
        }
      }
    });
  };

  P.tokenColumn = function (s, tokens, side, x, w) {
    const self = this, col = Z.svg("g", { class: "zoo-explorer-tokens", "data-side": side }, s), out = [];
    tokens.forEach(function (t, i) {
      const g = Z.svg("g", { class: "zoo-explorer-token", "data-side": side, "data-index": i }, col);
      Z.svg("rect", { x: x, y: TOP + i * ROW_H, width: w, height: ROW_H, rx: 3 }, g);
      const at = side === "row" ? { x: x + w - 6, y: TOP + i * ROW_H + 13, "text-anchor": "end" } : { x: x + 6, y: TOP + i * ROW_H + 13 };
      Z.svg("text", at, g).textContent = t;
      Z.svg("title", {}, g).textContent = side === "row" ? "query " + i + ": " + t + " (hover to read its weights, click to pin)" : "key " + i + ": " + t;
      if (side === "row") {
        g.setAttribute("tabindex", i === 0 ? "0" : "-1");
        g.setAttribute("role", "button");
        g.setAttribute("aria-pressed", "false");
        g.setAttribute("aria-label", "query " + i + ": " + t);
        self.queryEvents(g, i);
      }
      out.push(g);
    });
    return out;
  };

  P.line = function (parent, h, r, c, q) {
    Z.svg("line", {
      x1: this.xl, y1: TOP + r * ROW_H + ROW_H / 2, x2: this.xr, y2: TOP + c * ROW_H + ROW_H / 2,
      "stroke-opacity": (q / this.scale).toFixed(3), "data-head": h, "data-row": r, "data-col": c, "data-weight": this.fmt(q),
    }, parent);
  };

  // every line of the layer at or above MIN_LINE, one group per head (hidden heads: display none)
  P.drawLines = function () {
    const k = this.k(), R = k.rows.length, C = k.cols.length, min = MIN_LINE * this.scale;
    const frag = document.createDocumentFragment();
    this.headGroups = [];
    for (let h = 0; h < k.heads; h++) {
      const g = Z.svg("g", { stroke: Z.headColour(h), "stroke-width": 2, "data-head": h }, frag);
      if (!this.visible[h]) g.style.display = "none";
      const base = Z.at.weight(k, this.layer, h, 0, 0);
      for (let r = 0; r < R; r++) {
        for (let c = 0; c < C; c++) {
          const q = k.q[base + r * C + c];
          if (q >= min && q > 0) this.line(g, h, r, c, q);
        }
      }
      this.headGroups.push(g);
    }
    this.linesAll.textContent = "";
    this.linesAll.appendChild(frag);
    this.refocus();
  };

  P.setFocus = function (r) {
    const moved = r >= 0 && r !== this.query;
    this.focus = r;
    if (r >= 0) this.query = r;
    this.refocus();
    if (moved) this.drawNeurons();
  };

  // the line of (head, query, key) drawn over the others (the neuron view's hovered key), or none
  P.highlight = function (h, r, c) {
    this.linesHl.textContent = "";
    if (h == null) return;
    const q = this.q(this.layer, h, r, c);
    Z.svg("line", {
      class: "zoo-explorer-hl", x1: this.xl, y1: TOP + r * ROW_H + ROW_H / 2, x2: this.xr, y2: TOP + c * ROW_H + ROW_H / 2,
      stroke: Z.headColour(h), "stroke-width": 5, "stroke-opacity": Math.max(0.35, q / this.scale).toFixed(3),
      "data-hl-head": h, "data-hl-row": r, "data-hl-col": c,
    }, this.linesHl);
  };

  // the focused row's lines (every nonzero weight, however small) and its readout
  P.refocus = function () {
    const self = this, k = this.k(), r = this.focus, C = k.cols.length;
    this.linesFocus.textContent = "";
    this.rowTokens.forEach(function (g, i) {
      g.classList.toggle("zoo-explorer-on", i === r);
      g.classList.toggle("zoo-explorer-pinned", i === r && self.pinned);
      g.setAttribute("aria-pressed", String(i === r && self.pinned));
      g.setAttribute("tabindex", i === (r >= 0 ? r : self.query) ? "0" : "-1");
    });
    this.linesAll.style.display = r < 0 ? "" : "none";
    const ro = this.readout;
    ro.textContent = "";
    const heads = [];
    for (let h = 0; h < k.heads; h++) if (this.visible[h]) heads.push(h);
    if (r < 0) {
      ro.style.gridTemplateColumns = "";
      Z.el("div", "zoo-explorer-hint", ro, "hover a query token to read its weights (one column per head, one line per key); click it to pin");
      return;
    }
    ro.style.gridTemplateColumns = "repeat(" + Math.max(1, heads.length) + ", auto)";
    heads.forEach(function (h) {
      const g = Z.svg("g", { stroke: Z.headColour(h), "stroke-width": 2.5, "data-head": h }, self.linesFocus);
      for (let c = 0; c < C; c++) {
        const q = self.q(self.layer, h, r, c);
        if (q > 0) self.line(g, h, r, c, q);
      }
      Z.el("div", "zoo-explorer-rh", ro, "head " + h).style.color = Z.headColour(h);
    });
    const frag = document.createDocumentFragment();
    for (let c = 0; c < C; c++) {
      heads.forEach(function (h) {
        const q = self.q(self.layer, h, r, c), w = self.fmt(q);
        const d = Z.el("div", "zoo-explorer-w", frag);
        d.setAttribute("data-head", h);
        d.setAttribute("data-row", r);
        d.setAttribute("data-col", c);
        d.setAttribute("data-weight", w);
        Z.el("span", "zoo-explorer-sr", d, "head " + h + ": " + k.cols[c] + " ");
        d.appendChild(document.createTextNode(w));
        d.title = "head " + h + ": " + k.rows[r] + " \u2192 " + k.cols[c] + " " + w;
        d.style.boxShadow = "inset 4px 0 0 " + Z.headColour(h);
        d.style.opacity = q > 0 ? String(0.55 + 0.45 * Math.min(1, (4 * q) / self.scale)) : "0.4";
        if (q / self.scale >= 0.1) d.style.fontWeight = "bold";
      });
    }
    ro.appendChild(frag);
  };
})();
