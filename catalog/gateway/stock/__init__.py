"""Stock: levels, the ledger, taking units (takes), buckets, holds and their limits, receiving and
reconciling."""
