"""Training data: teacher games (GNU Go) and SGF collections as training shards."""
