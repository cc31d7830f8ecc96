"""The table's migration steps, in order: the baseline, then each step of a release since.

A table is at the baseline when release BASELINE_COMMIT's `migrate_table` ran on it to the end, or
when this code created it. A table of an earlier release is refused until that release's
`migrate_table` has brought it there (docs/upgrading.md).

A later step is one entry of LATER_STEPS, appended at the end (a Backfill's function in a module
of its own beside this one); never rename or reorder a step that has shipped: tables record them
by name. See runner.py for the kinds of step and docs/upgrading.md for an example.
"""
from .runner import AddIndex, Backfill, Baseline, DeleteIndex, EnableTTL, Recount

BASELINE_COMMIT = "cff0828e436ee0497a498e7c8f06750c9a2a72e2"

# The names of the steps that release BASELINE_COMMIT's migrate_table records (keys.migration_key),
# each of which a table must have to be at the baseline without this code's own baseline record.
BASELINE_STEP_NAMES = (
    "0001_products", "0002_index_ByName1", "0003_index_ByName2", "0004_index_ByName3", "0005_index_ByPrice1",
    "0006_index_ByPrice2", "0007_index_ByPrice3", "0008_search_term_counts", "0009_stock_change_and_order_keys",
    "0010_index_Ledger", "0011_index_ByReason", "0012_index_Reorder", "0013_index_OpenOrders",
    "0014_brand_category_counts", "0015_idempotency_ttl", "0016_order_numbers", "0017_opening_stock_entries",
    "0018_stock_bands", "0019_index_GSI1v2", "0020_drop_GSI1", "0021_index_GSI2v2", "0022_drop_GSI2",
    "0023_index_ByName1v2", "0024_drop_ByName1", "0025_index_ByName2v2", "0026_drop_ByName2",
    "0027_index_ByName3v2", "0028_drop_ByName3", "0029_index_ByPrice1v2", "0030_drop_ByPrice1",
    "0031_index_ByPrice2v2", "0032_drop_ByPrice2", "0033_index_ByPrice3v2", "0034_drop_ByPrice3",
    "0035_index_Buyers", "0036_buyer_keys", "0037_open_order_shards", "0055_index_AlertQueue",
    "0065_index_HoldExpiry", "0075_alert_counts_on_products",
)

BASELINE = Baseline(
    "0075_baseline", BASELINE_COMMIT, BASELINE_STEP_NAMES,
    f"the layout of release {BASELINE_COMMIT[:12]} (every step up to 0075_alert_counts_on_products)",
)

# Steps of the releases after the baseline, oldest first (names from 0076 on).
LATER_STEPS: list[AddIndex | DeleteIndex | Backfill | Recount | EnableTTL] = []

STEPS = [BASELINE, *LATER_STEPS]
