"""Search configuration: defaults, validation errors, immutability."""

from __future__ import annotations

import dataclasses

import pytest

from search import AlphaGo2016Config, SearchConfig, UCTConfig


def test_defaults_are_valid_and_frozen() -> None:
    cfg = SearchConfig()
    assert cfg.num_simulations == 800 and cfg.leaves_per_batch == 1
    assert cfg.capacity() == 2 * 800 + 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.c_puct = 2.0  # type: ignore[misc]
    assert SearchConfig(max_nodes=50).capacity() == 50
    assert AlphaGo2016Config().expansion_threshold == 1
    assert UCTConfig().rollouts_per_leaf == 1


@pytest.mark.parametrize(
    ("cls", "field", "value", "error"),
    [
        (SearchConfig, "num_simulations", 0, ValueError),
        (SearchConfig, "num_simulations", 1.5, TypeError),
        (SearchConfig, "num_simulations", True, TypeError),
        (SearchConfig, "time_limit", 0.0, ValueError),
        (SearchConfig, "time_limit", "1", TypeError),
        (SearchConfig, "leaves_per_batch", 0, ValueError),
        (SearchConfig, "virtual_loss", 0, ValueError),
        (SearchConfig, "virtual_loss", 1.5, TypeError),
        (SearchConfig, "temperature", -0.1, ValueError),
        (SearchConfig, "temperature", float("nan"), ValueError),
        (SearchConfig, "resign_threshold", -1.5, ValueError),
        (SearchConfig, "resign_threshold", 1.01, ValueError),
        (SearchConfig, "max_nodes", 1, ValueError),
        (SearchConfig, "c_puct", 0.0, ValueError),
        (SearchConfig, "c_puct", None, TypeError),
        (SearchConfig, "fpu_reduction", 3.0, ValueError),
        (SearchConfig, "dirichlet_alpha", 0.0, ValueError),
        (SearchConfig, "dirichlet_fraction", 1.5, ValueError),
        (SearchConfig, "dirichlet_fraction", -0.1, ValueError),
        (AlphaGo2016Config, "expansion_threshold", 0, ValueError),
        (AlphaGo2016Config, "mix_lambda", 1.5, ValueError),
        (AlphaGo2016Config, "rollouts_per_leaf", 0, ValueError),
        (AlphaGo2016Config, "c_puct", -1.0, ValueError),
        (UCTConfig, "exploration", -1.0, ValueError),
        (UCTConfig, "rollouts_per_leaf", "2", TypeError),
        (UCTConfig, "num_simulations", -5, ValueError),
    ],
)
def test_invalid_values_name_the_field(
    cls: type, field: str, value: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match=field):
        cls(**{field: value})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"time_limit": 0.5, "resign_threshold": -0.9, "temperature": 1.0},
        {"dirichlet_fraction": 0.0, "fpu_reduction": -0.5, "max_nodes": 2},
        {"leaves_per_batch": 16, "virtual_loss": 3},
    ],
)
def test_valid_values_accepted(kwargs: dict[str, object]) -> None:
    cfg = SearchConfig(**kwargs)  # type: ignore[arg-type]
    for key, value in kwargs.items():
        assert getattr(cfg, key) == value


def test_ag2016_and_uct_limits_also_checked() -> None:
    with pytest.raises(ValueError, match="leaves_per_batch"):
        AlphaGo2016Config(leaves_per_batch=0)
    with pytest.raises(ValueError, match="time_limit"):
        UCTConfig(time_limit=-1.0)
