"""Training: data, supervised and self-play learning, checkpoints, metrics."""
