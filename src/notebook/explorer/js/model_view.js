/* The explorer, part 4 (see SCRIPT in mod.rs): the model view. A canvas per (layer, head), a pixel per
   weight scaled up without smoothing; a click opens one large with every token on its axes and
   shows that layer and head alone in the head view. */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.model_view >= VERSION) return;
  Z.parts.model_view = VERSION;

  const P = Z.Explorer.prototype;

  P.buildModel = function () {
    const self = this, k = this.k(), R = k.rows.length, C = k.cols.length, zoom = Z.thumbZoom(R, C), g = this.grid;
    g.textContent = "";
    g.style.gridTemplateColumns = "auto repeat(" + k.heads + ", auto)";
    Z.el("span", "", g, "");
    for (let h = 0; h < k.heads; h++) {
      const hs = Z.el("span", "zoo-explorer-mh", g, "head " + h);
      hs.style.color = Z.headColour(h);
      hs.style.fontWeight = "bold";
    }
    this.thumbs = [];
    this.layerLabels = [];
    for (let l = 0; l < k.layers; l++) {
      this.layerLabels.push(Z.el("span", "zoo-explorer-ml", g, "layer " + l));
      for (let h = 0; h < k.heads; h++) {
        const cv = Z.el("canvas", "zoo-explorer-thumb", g);
        cv.width = C;
        cv.height = R;
        cv.style.width = C * zoom + "px";
        cv.style.height = R * zoom + "px";
        cv.setAttribute("data-layer", l);
        cv.setAttribute("data-head", h);
        cv.title = k.name + ", layer " + l + ", head " + h + ": click to open";
        this.paint(cv, l, h);
        cv.addEventListener("click", () => self.pick(l, h));
        this.thumbs.push(cv);
      }
    }
    this.markThumbs();
  };

  // the colour of a weight in the heatmaps (integer over scale): white for an exact zero
  P.heat = function (q) {
    return q === 0 ? [255, 255, 255] : Z.ramp(q / this.scale);
  };

  P.paint = function (cv, l, h) {
    const k = this.k(), R = k.rows.length, C = k.cols.length, ctx = cv.getContext("2d");
    const img = ctx.createImageData(C, R), px = img.data, base = Z.at.weight(k, l, h, 0, 0);
    for (let i = 0; i < R * C; i++) {
      const rgb = this.heat(k.q[base + i]);
      px[4 * i] = rgb[0];
      px[4 * i + 1] = rgb[1];
      px[4 * i + 2] = rgb[2];
      px[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  };

  P.markThumbs = function () {
    const self = this, k = this.k();
    if (!this.thumbs) return;
    this.thumbs.forEach(function (cv, i) {
      const l = Math.floor(i / k.heads), h = i % k.heads;
      cv.classList.toggle("zoo-explorer-selected", l === self.openLayer && h === self.openHead);
    });
    this.layerLabels.forEach((s, l) => s.classList.toggle("zoo-explorer-current", l === self.layer));
  };

  // a click on a thumbnail: open it large, show that layer and head alone in the head view, and
  // that head in the neuron view
  P.pick = function (l, h) {
    this.openDetail(l, h);
    for (let i = 0; i < this.visible.length; i++) this.visible[i] = i === h;
    this.headChips.forEach((b, j) => b.setAttribute("aria-pressed", String(j === h)));
    this.neuronHead = h;
    if (this.layer !== l) {
      this.layer = l;
      this.layerSelect.value = String(l);
      this.drawLines();
    }
    this.applyHeads();
    this.drawNeurons();
  };

  P.openDetail = function (l, h) {
    const k = this.k(), R = k.rows.length, C = k.cols.length, d = this.detail;
    this.openLayer = l;
    this.openHead = h;
    const cell = Z.detailCell(R, C), values = cell >= 34;
    d.textContent = "";
    const cap = Z.el("div", "zoo-explorer-caption", d, k.name + ", layer " + l + ", ");
    Z.el("b", "", cap, "head " + h).style.color = Z.headColour(h);
    cap.appendChild(document.createTextNode(": queries down, keys across"));
    const m = Z.el("div", "zoo-explorer-matrix", d);
    m.style.gridTemplateColumns = "auto repeat(" + C + ", " + cell + "px)";
    m.style.gridAutoRows = cell + "px";
    const frag = document.createDocumentFragment();
    Z.el("div", "", frag).style.height = "auto";
    for (let c = 0; c < C; c++) {
      const cl = Z.el("div", "zoo-explorer-label", frag, k.cols[c]);
      cl.setAttribute("data-side", "col");
      cl.setAttribute("data-index", c);
      cl.title = k.cols[c];
    }
    const base = Z.at.weight(k, l, h, 0, 0);
    for (let r = 0; r < R; r++) {
      const rl = Z.el("div", "zoo-explorer-label", frag, k.rows[r]);
      rl.setAttribute("data-side", "row");
      rl.setAttribute("data-index", r);
      rl.title = k.rows[r];
      for (let c = 0; c < C; c++) {
        const q = k.q[base + r * C + c], w = this.fmt(q), x = Z.el("div", "zoo-explorer-cell", frag);
        x.style.background = "rgb(" + this.heat(q).join(",") + ")";
        x.setAttribute("data-row", r);
        x.setAttribute("data-col", c);
        x.setAttribute("data-weight", w);
        x.title = k.rows[r] + " \u2192 " + k.cols[c] + ": " + w;
        if (values) {
          x.textContent = w;
          x.style.color = q / this.scale > 0.45 ? "#fff" : "#222";
        }
      }
    }
    m.appendChild(frag);
    // the first row holds the rotated key labels: as tall as the longest
    let tallest = 0;
    k.cols.forEach((t) => (tallest = Math.max(tallest, Z.textWidth(t))));
    m.style.gridTemplateRows = Math.min(110, tallest + 10) + "px";
    const value = Z.el("div", "zoo-explorer-value", d, "\u00a0");
    m.addEventListener("mouseover", function (e) {
      const t = e.target;
      if (t.classList && t.classList.contains("zoo-explorer-cell")) value.textContent = t.title;
    });
    this.markThumbs();
  };
})();
