"""The catalog: products, brands and categories, their counts, name order and search terms, and the
catalog import."""
