"""Renderers: Results and explanations to text. Renderers never compute."""
