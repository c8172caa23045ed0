"""Async execution of LLM calls: limits, retries, cache, durable storage, progress."""
