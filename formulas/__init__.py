"""The formula catalogue: TOML data, one file per domain (shipped as package data)."""
