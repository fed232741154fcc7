/* The explorer, part 7, the last (see SCRIPT in mod.rs): mounting. window.zooExplorerMount(id), which every
   output calls after these scripts, mounts each element with that id (an output shown twice has
   it twice), reading the JSON of its .zoo-explorer-data child; where the output is not in the
   document yet (a notebook front end inserting it later) it tries again for a while. Once mounted,
   the static first paint and its note are hidden. The newest version's mount wins. */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.mount >= VERSION) return;
  Z.parts.mount = VERSION;

  Z.mountOne = function (root) {
    if (root.getAttribute("data-mount-ms") || root.getAttribute("data-mounting")) return;
    root.setAttribute("data-mounting", "1");
    const t0 = performance.now();
    try {
      const src = root.querySelector(".zoo-explorer-data");
      if (!src) throw new Error("no .zoo-explorer-data in the output");
      const data = JSON.parse(src.textContent);
      Z.applyTheme(root);
      Z.watchTheme();
      root.zooExplorer = new Z.Explorer(root, data);
      root.querySelectorAll(".zoo-explorer-static, .zoo-explorer-note").forEach((e) => (e.style.display = "none"));
      root.setAttribute("data-mount-ms", (performance.now() - t0).toFixed(1));
    } catch (e) {
      // keep the static heatmap and say why
      const msg = Z.el("div", "zoo-explorer-error", root, "attention explorer: " + (e && e.message ? e.message : e));
      root.setAttribute("data-mount-error", msg.textContent);
    }
    root.removeAttribute("data-mounting");
  };

  function mount(id, tries) {
    const found = document.querySelectorAll('[id="' + String(id).replace(/["\\]/g, "\\$&") + '"]');
    if (!found.length) {
      if ((tries || 0) < 100) setTimeout(() => mount(id, (tries || 0) + 1), 50);
      return;
    }
    found.forEach(Z.mountOne);
  }
  mount.version = VERSION;
  if (!(window.zooExplorerMount && window.zooExplorerMount.version >= VERSION)) window.zooExplorerMount = mount;
})();
