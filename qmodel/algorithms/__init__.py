"""Algorithms that are not closed forms: stable queueing recursions and fixed points (layer 2)."""
