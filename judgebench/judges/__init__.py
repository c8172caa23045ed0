"""Judges: LLMs through litellm (remote, OpenAI-compatible servers, the embedded GGUF model) and
reference judges that need no LLM."""
