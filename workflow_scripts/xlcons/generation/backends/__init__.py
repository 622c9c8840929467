"""Generation backends, one module each, registered by name in `xlcons.generation.base`."""
