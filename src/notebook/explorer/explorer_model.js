  /* The second half of the explorer's script: mod.rs appends it to explorer.js, whose function
     (and its helpers, constants and Explorer) it continues and closes. */

  // the model view: a canvas per (layer, head), a pixel per weight, scaled up without smoothing
  Explorer.prototype.buildModel = function () {
    var self = this, k = this.kinds[this.kind], R = k.rows.length, C = k.cols.length;
    var zoom = Math.max(1, Math.round(72 / Math.max(R, C)));
    var g = this.grid;
    g.textContent = "";
    g.style.gridTemplateColumns = "auto repeat(" + k.heads + ", auto)";
    el("span", "", g, "");
    for (var h = 0; h < k.heads; h++) {
      var hs = el("span", "zoo-explorer-mh", g, "head " + h);
      hs.style.color = headColour(h);
      hs.style.fontWeight = "bold";
    }
    this.thumbs = [];
    this.layerLabels = [];
    for (var l = 0; l < k.layers; l++) {
      this.layerLabels.push(el("span", "zoo-explorer-ml", g, "layer " + l));
      for (h = 0; h < k.heads; h++) {
        var cv = el("canvas", "zoo-explorer-thumb", g);
        cv.width = C;
        cv.height = R;
        cv.style.width = C * zoom + "px";
        cv.style.height = R * zoom + "px";
        cv.setAttribute("data-layer", l);
        cv.setAttribute("data-head", h);
        cv.title = k.name + ", layer " + l + ", head " + h + ": click to open";
        this.paint(cv, l, h);
        (function (l, h) {
          cv.addEventListener("click", function () { self.pick(l, h); });
        })(l, h);
        this.thumbs.push(cv);
      }
    }
    this.markThumbs();
  };

  Explorer.prototype.paint = function (cv, l, h) {
    var k = this.kinds[this.kind], R = k.rows.length, C = k.cols.length, ctx = cv.getContext("2d");
    var img = ctx.createImageData(C, R), px = img.data, base = (l * k.heads + h) * R * C;
    for (var i = 0; i < R * C; i++) {
      var q = k.q[base + i], rgb = q === 0 ? [255, 255, 255] : ramp(q / this.scale);
      px[4 * i] = rgb[0];
      px[4 * i + 1] = rgb[1];
      px[4 * i + 2] = rgb[2];
      px[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  };

  Explorer.prototype.markThumbs = function () {
    var self = this, k = this.kinds[this.kind];
    if (!this.thumbs) return;
    this.thumbs.forEach(function (cv, i) {
      var l = Math.floor(i / k.heads), h = i % k.heads;
      cv.classList.toggle("zoo-explorer-selected", l === self.openLayer && h === self.openHead);
    });
    this.layerLabels.forEach(function (s, l) { s.classList.toggle("zoo-explorer-current", l === self.layer); });
  };

  // a click on a thumbnail: open it large and show that layer and head alone in the head view
  Explorer.prototype.pick = function (l, h) {
    this.openDetail(l, h);
    for (var i = 0; i < this.visible.length; i++) this.visible[i] = i === h;
    this.headChips.forEach(function (b, j) { b.setAttribute("aria-pressed", String(j === h)); });
    if (this.layer !== l) {
      this.layer = l;
      this.layerSelect.value = String(l);
      this.drawLines();
    }
    this.applyHeads();
  };

  Explorer.prototype.openDetail = function (l, h) {
    var self = this, k = this.kinds[this.kind], R = k.rows.length, C = k.cols.length, d = this.detail;
    this.openLayer = l;
    this.openHead = h;
    var cell = Math.max(12, Math.min(44, Math.floor(520 / Math.max(R, C))));
    var values = cell >= 34;
    d.textContent = "";
    var cap = el("div", "zoo-explorer-caption", d, k.name + ", layer " + l + ", ");
    var hn = el("b", "", cap, "head " + h);
    hn.style.color = headColour(h);
    cap.appendChild(document.createTextNode(": queries down, keys across"));
    var m = el("div", "zoo-explorer-matrix", d);
    m.style.gridTemplateColumns = "auto repeat(" + C + ", " + cell + "px)";
    m.style.gridAutoRows = cell + "px";
    var frag = document.createDocumentFragment();
    var corner = el("div", "", frag);
    corner.style.height = "auto";
    for (var c = 0; c < C; c++) {
      var cl = el("div", "zoo-explorer-label", frag, k.cols[c]);
      cl.setAttribute("data-side", "col");
      cl.setAttribute("data-index", c);
      cl.title = k.cols[c];
    }
    var base = (l * k.heads + h) * R * C;
    for (var r = 0; r < R; r++) {
      var rl = el("div", "zoo-explorer-label", frag, k.rows[r]);
      rl.setAttribute("data-side", "row");
      rl.setAttribute("data-index", r);
      rl.title = k.rows[r];
      for (c = 0; c < C; c++) {
        var q = k.q[base + r * C + c], w = this.fmt(q), x = el("div", "zoo-explorer-cell", frag);
        var rgb = q === 0 ? [255, 255, 255] : ramp(q / this.scale);
        x.style.background = "rgb(" + rgb.join(",") + ")";
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
    var tallest = 0;
    for (c = 0; c < C; c++) tallest = Math.max(tallest, textWidth(k.cols[c]));
    m.style.gridTemplateRows = Math.min(110, tallest + 10) + "px";
    var value = el("div", "zoo-explorer-value", d, "\u00a0");
    m.addEventListener("mouseover", function (e) {
      var t = e.target;
      if (t.classList && t.classList.contains("zoo-explorer-cell")) value.textContent = t.title;
    });
    this.markThumbs();
  };

  function mountOne(root) {
    if (root.getAttribute("data-mount-ms") || root.getAttribute("data-mounting")) return;
    root.setAttribute("data-mounting", "1");
    var t0 = performance.now();
    try {
      var src = root.querySelector(".zoo-explorer-data");
      if (!src) throw new Error("no .zoo-explorer-data in the output");
      var data = JSON.parse(src.textContent);
      addStyle(root);
      new Explorer(root, data);
      var st = root.querySelector(".zoo-explorer-static");
      if (st) st.style.display = "none";
      root.setAttribute("data-mount-ms", (performance.now() - t0).toFixed(1));
    } catch (e) {
      // keep the static heatmap and say why
      var msg = document.createElement("div");
      msg.className = "zoo-explorer-error";
      msg.textContent = "attention explorer: " + (e && e.message ? e.message : e);
      root.appendChild(msg);
      root.setAttribute("data-mount-error", msg.textContent);
    }
    root.removeAttribute("data-mounting");
  }

  // mounts every element with that id (an output shown twice has it twice); where the output is
  // not in the document yet (a notebook front end inserting it later), tries again for a while
  function mount(id, tries) {
    var found = document.querySelectorAll('[id="' + String(id).replace(/["\\]/g, "\\$&") + '"]');
    if (!found.length) {
      if ((tries || 0) < 100) setTimeout(function () { mount(id, (tries || 0) + 1); }, 50);
      return;
    }
    for (var i = 0; i < found.length; i++) mountOne(found[i]);
  }
  mount.version = VERSION;
  window.zooExplorerMount = mount;
})();
