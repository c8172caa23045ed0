"""BigCodeReward: judge battles with and without execution traces; score against human votes."""
