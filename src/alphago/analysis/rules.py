"""KataGo's rules (a name or a JSON object) mapped onto ``goboard.Rules``.

We play by ko rule and suicide, and count by area (Tromp-Taylor: stones plus empty
regions reaching one colour, minus komi). KataGo's area rule sets map exactly;
territory scoring, a group tax and the button do not exist here, so those queries are
analysed by area counting with a ``warning`` (not an error), as the issue asks.

``whiteHandicapBonus`` ("0", "N", "N-1": White gets a point per handicap stone, or per
stone beyond the first, under area scoring) is applied to komi: handicap stones are the
Black stones of ``initialStones`` and Black's moves before White's first, when they
are at least two and ``initialStones`` holds no White stone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import goboard

__all__ = ["RuleSet", "handicap_bonus", "handicap_stones", "parse_rules"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """What a query's ``rules`` mean here."""

    rules: goboard.Rules
    territory: bool = False  # KataGo would count territory; we count area
    handicap_bonus: str = "0"  # "0", "N" or "N-1"
    warnings: tuple[str, ...] = field(default=())
    komi: float = 7.5  # when the query names none: the object's, else KataGo's default


_AREA = {"ko": "SITUATIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False}
_TERRITORY = {"ko": "SIMPLE", "scoring": "TERRITORY", "tax": "SEKI", "suicide": False}

#: KataGo's rule set names as rule objects (what its ``parseRules`` gives each name;
#: docs/GTP_Extensions.md). ``chinese`` is simple ko over the board, ``chinese-ogs``
#: and ``chinese-kgs`` the servers' positional superko.
_NAMED: dict[str, dict[str, object]] = {
    "tromp-taylor": {
        "ko": "POSITIONAL",
        "scoring": "AREA",
        "tax": "NONE",
        "suicide": True,
        "whiteHandicapBonus": "0",
    },
    "chinese": {**_AREA, "ko": "SIMPLE", "whiteHandicapBonus": "N"},
    "chinese-ogs": {**_AREA, "ko": "POSITIONAL", "whiteHandicapBonus": "N"},
    "chinese-kgs": {**_AREA, "ko": "POSITIONAL", "whiteHandicapBonus": "N"},
    "japanese": {**_TERRITORY, "whiteHandicapBonus": "0"},
    "korean": {**_TERRITORY, "whiteHandicapBonus": "0"},
    "aga": {**_AREA, "whiteHandicapBonus": "N-1"},
    "bga": {**_AREA, "whiteHandicapBonus": "N-1"},
    "french": {**_AREA, "whiteHandicapBonus": "N-1"},
    "aga-button": {**_AREA, "hasButton": True, "whiteHandicapBonus": "N-1"},
    "new-zealand": {**_AREA, "suicide": True, "whiteHandicapBonus": "0"},
    "ing": {**_AREA, "ko": "POSITIONAL", "suicide": True, "whiteHandicapBonus": "0"},
    "goe": {**_AREA, "ko": "POSITIONAL", "suicide": True, "whiteHandicapBonus": "0"},
    "stone-scoring": {**_AREA, "ko": "SIMPLE", "tax": "ALL", "whiteHandicapBonus": "0"},
    "ancient-territory": {**_TERRITORY, "tax": "ALL", "whiteHandicapBonus": "0"},
}
#: Other spellings, by the name with spaces, hyphens and underscores taken out (so
#: "new zealand", "New-Zealand" and "new_zealand" all find "newzealand").
_ALIASES = {
    **{name.replace("-", ""): name for name in _NAMED},
    "tt": "tromp-taylor",
    "cn": "chinese",
    "jp": "japanese",
    "ko": "korean",
    "nz": "new-zealand",
    "ancientarea": "stone-scoring",
}
_KO = {"SIMPLE": "simple", "POSITIONAL": "positional", "SITUATIONAL": "situational"}
_SPIGHT = "SPIGHT"  # KataGo's japanese-like ko handling: simple ko here
_KEYS = {
    "ko",
    "scoring",
    "score",  # KataGo's other spelling of "scoring"
    "komi",
    "tax",
    "suicide",
    "hasButton",
    "whiteHandicapBonus",
    "friendlyPassOk",
}


def parse_rules(value: object) -> RuleSet:
    """The rule set of a query's ``rules`` field.

    Raises:
        ValueError: an unknown name, or a malformed rules object.
    """
    if isinstance(value, str):
        compact = "".join(value.lower().split()).replace("-", "").replace("_", "")
        name = _ALIASES.get(compact, "")
        if name not in _NAMED:
            known = ", ".join(sorted(_NAMED))
            raise ValueError(f"unknown rules {value!r} (known: {known})")
        return _from_object(_NAMED[name], f"rules {name!r}")
    if isinstance(value, dict):
        return _from_object(value, "these rules")
    raise ValueError("rules must be a name or a JSON object")


def _from_object(obj: dict[str, object], what: str) -> RuleSet:
    unknown = sorted(set(obj) - _KEYS)
    if unknown:
        raise ValueError(f"unknown rules fields: {', '.join(unknown)}")
    ko_name = str(obj.get("ko", "POSITIONAL")).upper()
    if ko_name == _SPIGHT:
        ko_name = "SIMPLE"
    if ko_name not in _KO:
        raise ValueError(f"unknown ko rule {obj.get('ko')!r}")
    suicide = obj.get("suicide", True)  # KataGo's objects start Tromp-Taylor-like
    if not isinstance(suicide, bool):
        raise ValueError("rules suicide must be true or false")
    scoring = str(obj.get("scoring", obj.get("score", "AREA"))).upper()
    if scoring not in ("AREA", "TERRITORY"):
        raise ValueError(f"unknown scoring {obj.get('scoring', obj.get('score'))!r}")
    tax = str(obj.get("tax", "SEKI" if scoring == "TERRITORY" else "NONE")).upper()
    if tax not in ("NONE", "SEKI", "ALL"):
        raise ValueError(f"unknown tax {obj.get('tax')!r}")
    bonus = str(obj.get("whiteHandicapBonus", "0")).upper()
    if bonus not in ("0", "N", "N-1"):
        raise ValueError(
            f"unknown whiteHandicapBonus {obj.get('whiteHandicapBonus')!r}"
        )
    warnings = []
    territory = scoring == "TERRITORY"
    if territory:
        warnings.append(
            f"{what} count territory; alphago counts area (Tromp-Taylor): winrates "
            "and scores are for area counting"
        )
    elif tax != "NONE":
        warnings.append(f"{what} tax groups ({tax}); alphago counts area without tax")
    if obj.get("hasButton") is True:
        warnings.append(f"{what} have a button; alphago plays without it")
    rules = goboard.Rules(ko=_KO[ko_name], suicide=suicide)
    return RuleSet(rules, territory, bonus, tuple(warnings), _komi_of(obj, territory))


def _komi_of(obj: dict[str, object], territory: bool) -> float:
    """A rules object's komi (``kata-get-rules`` prints one), else KataGo's default:
    6.5 for territory scoring, 7 with a button, else 7.5."""
    if "komi" not in obj:
        return 6.5 if territory else 7.0 if obj.get("hasButton") is True else 7.5
    komi = obj["komi"]
    if (
        isinstance(komi, bool)
        or not isinstance(komi, (int, float))
        or not (math.isfinite(komi) and abs(komi) <= 150)
        or komi * 2 % 1
    ):
        raise ValueError(
            f"rules komi must be an integer or half-integer in [-150, 150], not {komi}"
        )
    return float(komi)


def handicap_stones(initial: list[tuple[int, int]], black_moves: int = 0) -> int:
    """How many handicap stones Black has: with no White stone among the
    ``initialStones`` (colour, point), its stones there and its ``black_moves`` (the
    moves it made before White's first), when they are at least two; else none
    (KataGo's ``computeNumHandicapStones``: servers record handicap so too)."""
    black = sum(1 for colour, _ in initial if colour == goboard.BLACK)
    stones = black + black_moves
    return stones if black == len(initial) and stones >= 2 else 0


def handicap_bonus(
    kind: str, initial: list[tuple[int, int]], black_moves: int = 0
) -> int:
    """Points added to komi for ``whiteHandicapBonus`` ``kind``.

    Args:
        kind: "0", "N" or "N-1".
        initial: the ``initialStones`` as (colour, point).
        black_moves: Black's moves (passes aside) before White's first.
    """
    stones = handicap_stones(initial, black_moves)
    if kind == "0" or not stones:
        return 0
    return stones if kind == "N" else stones - 1
