// When an HTMX request fails (the server answered 5xx, or could not be reached), say so
// instead of silently doing nothing. Form errors (4xx) are swapped in place by htmx itself.
(function () {
  function banner(text) {
    var box = document.getElementById("htmx-error");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
  }
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    banner(status === 503
      ? "The shop is taking a short break. Please try again in a few seconds."
      : "Something went wrong. Please try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    banner("We couldn’t reach the shop. Check your connection and try again.");
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("htmx-error");
    if (box) box.hidden = true;
  });
})();

// Header menus (<details class="menu">): one open at a time, Escape closes the open one and
// gives focus back to its button, a click or focus outside closes it, arrow keys move through it.
(function () {
  function menus() { return document.querySelectorAll("details.menu"); }
  function closeAll(except) {
    menus().forEach(function (menu) { if (menu !== except) menu.open = false; });
  }
  document.addEventListener("toggle", function (event) {
    var menu = event.target;
    if (menu.matches && menu.matches("details.menu") && menu.open) closeAll(menu);
  }, true);
  document.addEventListener("keydown", function (event) {
    var menu = (event.target.closest && event.target.closest("details.menu[open]")) ||
      document.querySelector("details.menu[open]");
    if (!menu) return;
    if (event.key === "Escape") {
      menu.open = false;
      menu.querySelector("summary").focus();
      event.preventDefault();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    var links = Array.prototype.slice.call(menu.querySelectorAll("ul a"));
    var at = links.indexOf(document.activeElement);
    var next = event.key === "ArrowDown" ? at + 1 : (at < 0 ? links.length : at) - 1;
    if (links.length) links[(next + links.length) % links.length].focus();
    event.preventDefault();
  });
  function outside(event) {
    var inside = event.target.closest && event.target.closest("details.menu");
    closeAll(inside);
  }
  document.addEventListener("click", outside);
  document.addEventListener("focusin", outside);
})();

// Forms with data-pending ("Add to cart", "Place order", staff "Save adjustment") submit once: the
// button says it is working until the answer comes, and the second click of a double click is
// ignored (the server is idempotent for orders and stock; adding to a cart is not).
(function () {
  function button(form) { return form.querySelector("button[type=submit]"); }
  function pending(form, on) {
    var b = button(form);
    if (!b) return;
    if (on) {
      form.setAttribute("aria-busy", "true");
      b.dataset.label = b.dataset.label || b.textContent;
      b.textContent = form.dataset.pending;
      b.classList.add("is-pending");
      b.setAttribute("aria-disabled", "true");
    } else {
      form.removeAttribute("aria-busy");
      if (b.dataset.label) b.textContent = b.dataset.label;
      b.classList.remove("is-pending");
      b.removeAttribute("aria-disabled");
    }
  }
  function busy(form) { return form.getAttribute("aria-busy") === "true"; }
  document.addEventListener("click", function (event) {
    var b = event.target.closest && event.target.closest("form[data-pending] button[type=submit]");
    if (b && (event.detail > 1 || busy(b.form))) {
      event.preventDefault();  // the second click of a double click, or a click while it works
      event.stopImmediatePropagation();
    }
  }, true);
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-pending]")) return;
    if (busy(form)) { event.preventDefault(); event.stopImmediatePropagation(); return; }
    // htmx forms: pending from htmx:beforeRequest to htmx:afterRequest; others until the next page
    if (!form.hasAttribute("hx-post")) pending(form, true);
  }, true);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (form.matches && form.matches("form[data-pending]")) pending(form, true);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (form.matches && form.matches("form[data-pending]") && form.isConnected) pending(form, false);
  });
  // Back to a page kept in the browser's memory: its form is not working any more.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-pending][aria-busy]").forEach(function (form) { pending(form, false); });
  });
})();

// Checkout with a timed hold (issue 36): a live countdown to the end of the hold beside the time
// it ends. Sighted shoppers see it every second; screen readers hear it politely at 5, 2 and 1
// minutes left and when it ends, not every second.
// The hold's part of the page is swapped in by htmx when the shopper asks to hold: counted from then on.
(function () {
  function start() {
    var box = document.querySelector("[data-hold-until]");
    if (!box || box.hasAttribute("data-counting")) return;
    box.setAttribute("data-counting", "");
    var until = Date.parse(box.getAttribute("data-hold-until"));
    var clock = box.querySelector(".hold-countdown");
    var say = box.querySelector("#hold-announce");
    var told = null;
    function tick() {
      if (!box.isConnected) return;
      var left = Math.max(0, Math.round((until - Date.now()) / 1000));
      var minutes = Math.floor(left / 60), seconds = left % 60;
      clock.hidden = false;
      clock.textContent = left
        ? "(" + minutes + ":" + (seconds < 10 ? "0" : "") + seconds + " left)"
        : "(the hold has ended)";
      var mark = left === 0 ? 0 : [5, 2, 1].filter(function (m) { return left <= m * 60; }).pop();
      if (mark !== undefined && mark !== told) {
        told = mark;
        say.textContent = mark === 0
          ? "The hold on your units has ended. You can still place the order while they are in stock."
          : mark + (mark === 1 ? " minute" : " minutes") + " left of the hold on your units.";
      }
      if (left > 0) window.setTimeout(tick, 1000);
    }
    tick();
  }
  start();
  document.addEventListener("htmx:afterSettle", start);
})();
