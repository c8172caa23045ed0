"""AutoCodeArena: candidate answers, sandboxed execution, judged against a fixed baseline."""
