"""solar translate: PyTorch (and, through the same op graph, other frontends) to AIR."""
