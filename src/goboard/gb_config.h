/* gb_config.h: capacities, scalar types, colours and error codes of the goboard core. */
#ifndef GB_CONFIG_H
#define GB_CONFIG_H

#include <stdint.h>

/* Largest supported edge length; boards of any size 2..GB_MAX_SIZE share one layout. */
#define GB_MAX_SIZE 19
#define GB_MIN_SIZE 2
/* Mailbox with a border: (N + 2) rows of stride N + 1 (the wall column is shared by the
 * right edge of one row and the left edge of the next), plus one slot. */
#define GB_ARR_SIZE ((GB_MAX_SIZE + 2) * (GB_MAX_SIZE + 1) + 1)
#define GB_MAX_POINTS (GB_MAX_SIZE * GB_MAX_SIZE)

typedef int16_t gb_loc;  /* mailbox location; never seen by Python */
typedef int8_t gb_color; /* GB_BLACK, GB_WHITE, GB_EMPTY or GB_WALL */

enum { GB_EMPTY = 0, GB_BLACK = 1, GB_WHITE = -1, GB_WALL = 2 };

/* Both live in the top wall row, so they never collide with an on-board location. */
enum { GB_NULL_LOC = 0, GB_PASS_LOC = 1 };

enum gb_ko_rule { GB_KO_SIMPLE = 0, GB_KO_POSITIONAL = 1, GB_KO_SITUATIONAL = 2 };

/* Return codes: GB_OK or a negative code; gb_strerror() names each. */
enum gb_error {
    GB_OK = 0,
    GB_ERR_OFF_BOARD = -1,
    GB_ERR_OCCUPIED = -2,
    GB_ERR_KO = -3,
    GB_ERR_SUICIDE = -4,
    GB_ERR_SUPERKO = -5,
    GB_ERR_GAME_OVER = -6,
    GB_ERR_SIZE = -7,
    GB_ERR_BAD_COLOR = -8,
    GB_ERR_NO_LIBERTY = -9,
    GB_ERR_SLOT = -10,
    GB_ERR_EMPTY_SLOT = -11,
    /* Broken invariants reported by gb_board_check(). */
    GB_ERR_CHECK_LAYOUT = -20,
    GB_ERR_CHECK_EMPTY_LIST = -21,
    GB_ERR_CHECK_HEAD = -22,
    GB_ERR_CHECK_LIST = -23,
    GB_ERR_CHECK_STONES = -24,
    GB_ERR_CHECK_LIBERTIES = -25,
    GB_ERR_CHECK_HASH = -26,
    GB_ERR_CHECK_KO = -27,
    GB_ERR_CHECK_STATE = -28,
    GB_ERR_CHECK_NEIGHBOURS = -29
};

#endif /* GB_CONFIG_H */
