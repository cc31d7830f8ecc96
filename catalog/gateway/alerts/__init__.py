"""Stock alerts: shoppers asking to be told when a product is back."""
