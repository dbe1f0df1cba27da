"""The studies' tables as validation cases: TOML data, one file per study."""
