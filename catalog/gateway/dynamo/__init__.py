"""Reaching DynamoDB: the client, error translation, budgets, pauses, batches, threads, wire format,
telemetry, transactions and paging. Knows nothing of products, stock or orders."""
