"""KataGo's JSON analysis engine protocol: ``alphago analysis``.

KaTrain and other review tools drive KataGo through ``katago analysis``: one JSON query
per line on stdin, one JSON object per line on stdout (docs/Analysis_Engine.md in
KataGo's repository). ``alphago analysis`` speaks the same protocol over our players
(:mod:`alphago.player_choice`: the shipped network on 9x9, UCT elsewhere, or
``--weights``).

Supported query fields: ``id``, ``moves``, ``initialStones``, ``initialPlayer``,
``rules`` (a name or a rules object; territory rules, taxes and the button are counted
by area with a ``warning``), ``komi``, ``whiteHandicapBonus``, ``boardXSize`` =
``boardYSize`` (2..19; others are an ``error``), ``analyzeTurns``, ``maxVisits``,
``includeOwnership``, ``includeMovesOwnership``, ``includePolicy``,
``includePVVisits``, ``avoidMoves``, ``allowMoves``, ``reportDuringSearchEvery``,
``priority``/``priorities`` and ``overrideSettings`` (``reportAnalysisWinratesAs``,
``maxVisits`` and ``maxTime`` apply; other keys are ignored with a ``warning``, as are
the KataGo fields in :data:`.query.UNSUPPORTED_FLAGS` and
:data:`.query.UNSUPPORTED_FIELDS`). Actions: ``query_version``, ``clear_cache``,
``terminate`` (with ``turnNumbers``) and ``terminate_all``. A turn
at which the game is over (two passes) is analysed with the side to move playing on,
with a ``warning``.

Values are reported from Black's view unless the command line or a query's
``overrideSettings.reportAnalysisWinratesAs`` says WHITE or SIDETOMOVE (KataGo's
``reportAnalysisWinratesAs``); see :mod:`.respond` for each field.
"""

from .query import Job, QueryError, parse_query
from .server import KATAGO_VERSION, AnalysisServer

__all__ = ["KATAGO_VERSION", "AnalysisServer", "Job", "QueryError", "parse_query"]
