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
