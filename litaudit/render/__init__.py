"""Rendering: terminal tables, JSON and reports. Nothing here computes a statistic."""
