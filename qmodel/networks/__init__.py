"""Queueing networks: the model (stations, classes), exact and approximate MVA, open and mixed
networks, bounds (layer 2)."""
