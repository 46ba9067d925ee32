"""Vectorised numpy kernels over all queries at once; they never validate."""
