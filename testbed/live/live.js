// The live view's page: asks the server for the picture every 300 ms (the token of this
// page's own URL goes with each request) and shows it; Freeze stops asking, Save SVG saves
// the picture shown. No framework, nothing from another server.
"use strict";
(function () {
  const token = new URLSearchParams(window.location.search).get("token") || "";
  const view = document.getElementById("view");
  const status = document.getElementById("status");
  const save = document.getElementById("save");
  const freeze = document.getElementById("freeze");
  const PERIOD = 300;
  let frozen = false, shown = "", url = null;

  function show(svg) {
    if (svg === shown) return;
    shown = svg;
    // the server drew it and escaped every name in it (testbed/live/svg.py)
    view.innerHTML = svg;
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    save.href = url;
  }

  async function tick() {
    if (!frozen) {
      try {
        const r = await fetch("view.svg?token=" + encodeURIComponent(token),
                              { cache: "no-store" });
        if (r.ok) {
          show(await r.text());
          status.textContent = "live, updated " + new Date().toLocaleTimeString();
          status.className = "";
        } else {
          status.textContent = "the server answered " + r.status;
          status.className = "stale";
        }
      } catch (e) {
        status.textContent = "the server is gone (the network was torn down?)";
        status.className = "stale";
      }
    }
    setTimeout(tick, PERIOD);
  }

  freeze.addEventListener("click", function () {
    frozen = !frozen;
    freeze.textContent = frozen ? "Go live" : "Freeze";
    if (frozen) status.textContent = "frozen";
  });
  tick();
})();
