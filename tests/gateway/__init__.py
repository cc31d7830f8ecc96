"""Tests of the data layer (catalog/gateway/). tests/gateway/<package>/test_<module>.py tests the module of
that name in catalog/gateway/<package>/ (on moto, unless marked dynamodb_local). The files directly in this
folder are integration tests that cross modules: every access pattern's requests, a crowd's checkouts, reused
keys and lost answers, and what only a real DynamoDB does (DynamoDB Local, raced, restarted or stalled)."""
