"""qmodel: analytic queueing models for mainframe storage and Parallel Sysplex capacity planning."""

__version__ = "0.1.0"
