"""Human-readable output: rich tables for the terminal, markdown and plots for leaderboards."""
