"""Loaders: any supported source -> a stream of Battle records or RowError reports."""
