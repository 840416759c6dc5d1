/* ladder.h: ladders read to the end, for the AlphaGo 2016 input planes.
 *
 * A read starts from a legal move of the side to move and plays on a work board in
 * caller-owned scratch, taking its moves back from an undo journal kept there too (no
 * allocation, no board copies, no deep C stack). Inside a read, moves obey
 * simple ko and no suicide; superko is not looked at (the first move's legality under
 * the game's rules is the caller's business).
 *
 * The attacker, to move, with the target string on two liberties, plays each liberty in
 * turn (ascending point order). The defender, to move, with the target in atari, tries
 * its candidates in ascending order: the last liberty and the liberty of every attacker
 * string next to the target that is itself in atari (a capture). A defender move
 * escapes if the target then has 3 or more liberties, or exactly 2 and no attacker
 * move wins. A read that would pass GB_LADDER_NODES moves or GB_LADDER_DEPTH plies
 * stops, and its ladder counts as not working for the attacker.
 *
 * Moves whose verdict is clear without the position after them are judged without
 * being played and do not count as moves: an atari after which extending at the other
 * liberty surely leaves 3 liberties (not played: it cannot work), and defender moves,
 * whose liberties are counted first (only those leaving exactly 2 are played).
 * goboard/reference_planes.py reads the same way, so even the caps agree.
 */
#ifndef GB_LADDER_H
#define GB_LADDER_H

#include <stdbool.h>

#include "board.h"

#define GB_LADDER_NODES 2000 /* moves played in one read, the first one included */
#define GB_LADDER_DEPTH 160  /* plies below the position read from */

/* Copies b into scratch (room for GB_LADDER_DEPTH boards), the work board that reads
 * play on: each read plays its moves in place, journals what they overwrite in the rest
 * of scratch, and takes them all back, so scratch holds b again when it returns. Load
 * again after b changes. */
void gb_ladder_load(gb_board *scratch, const gb_board *b);

/* True if the side to move of the loaded position, playing `move` (a liberty of the
 * opponent string at `target`, which has exactly 2 liberties), leaves that string in
 * atari and no defence saves it. */
bool gb_ladder_captures(gb_board *scratch, gb_loc move, gb_loc target);

/* True if the side to move of the loaded position, playing `move` (the one liberty of
 * its own string at `target`), leaves that string with 3 or more liberties, or with 2
 * and no ladder capturing it (a read stopped by the caps counts as an escape). */
bool gb_ladder_escapes(gb_board *scratch, gb_loc move, gb_loc target);

#endif /* GB_LADDER_H */
