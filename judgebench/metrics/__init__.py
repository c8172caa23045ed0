"""Statistics over stored judgments: agreement, position consistency, paired tests, ratings.

Every estimate comes with a seeded bootstrap interval and the n behind it. Bootstraps resample
sufficient statistics (confusion-matrix cells, pair outcome counts) with multinomial weights, which
is exactly resampling items with replacement, at a cost independent of the number of items.
"""
