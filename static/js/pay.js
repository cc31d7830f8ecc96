// The checkout's card payment (SHOP_PAYMENTS=stripe): Stripe.js's card element in #card-element; on
// "Pay", the card becomes a token (createToken: card details go to Stripe only), which the form posts.
// When the bank asks for 3-D Secure, the page comes back with #confirm-payment: Stripe.js runs the step
// (confirmCardPayment), then that form tells the shop to place the order.
(function () {
  "use strict";
  var form = document.getElementById("place-order");
  if (!form || !form.dataset.stripeKey || typeof Stripe === "undefined") return;
  var stripe = Stripe(form.dataset.stripeKey);
  var card = stripe.elements().create("card");
  card.mount("#card-element");
  var errors = document.getElementById("card-errors");
  var button = document.getElementById("pay-button");
  var label = button.textContent;

  function busy(on) {
    button.disabled = on;
    button.textContent = on ? form.dataset.paying : label;
    form.setAttribute("aria-busy", on ? "true" : "false");
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (button.disabled) return;
    busy(true);
    errors.textContent = "";
    stripe.createToken(card).then(function (result) {
      if (result.error || !result.token) {
        errors.textContent = (result.error && result.error.message) || "Please check your card details.";
        busy(false);
        return;
      }
      form.elements.stripe_token.value = result.token.id;
      form.submit();
    });
  });

  var confirm = document.getElementById("confirm-payment");
  if (confirm && confirm.dataset.secret) {
    busy(true);
    stripe.confirmCardPayment(confirm.dataset.secret).then(function () {
      confirm.submit();  // the shop asks Stripe how it went, and places the order or says why not
    });
  }
})();
