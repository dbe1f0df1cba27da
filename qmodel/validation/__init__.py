"""Validation against the studies' printed numbers: casebooks and ``qmodel validate``."""
