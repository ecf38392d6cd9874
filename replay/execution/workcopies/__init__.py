"""Work copies: the only place model output is written, and host-side file access inside them."""
