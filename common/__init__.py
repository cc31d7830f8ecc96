"""Small helpers every app and the data layer may use (no Django, no project imports)."""
