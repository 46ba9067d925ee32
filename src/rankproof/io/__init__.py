"""Readers that turn qrels and run files into interned columns."""
