"""Running model-written code safely: bubblewrap sandbox, toolchains, headless browser, extraction."""
