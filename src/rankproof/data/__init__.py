"""Columnar judgments and rankings, id interning, and alignment."""
