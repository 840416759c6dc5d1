/* zobrist.h: the fixed Zobrist key table (a compile-time constant: nothing to initialise). */
#ifndef GB_ZOBRIST_H
#define GB_ZOBRIST_H

#include <stdint.h>

#include "gb_config.h"

/* Key slots: [0, 512) black stone at loc, [512, 1024) white stone at loc, 1024 white to
 * move, [1024 + loc] for loc > 0 the ko point (loc 0 is a wall, so 1024 is free). */
#define GB_ZOBRIST_STRIDE 512
#define GB_ZOBRIST_KEYS (3 * GB_ZOBRIST_STRIDE)
#define GB_ZOBRIST_WHITE_TO_MOVE (2 * GB_ZOBRIST_STRIDE)

extern const uint64_t gb_zobrist_keys[GB_ZOBRIST_KEYS];

/* Key of a stone of colour c (GB_BLACK or GB_WHITE) at loc. */
static inline uint64_t
gb_zobrist_stone(gb_color c, gb_loc loc)
{
    return gb_zobrist_keys[(c == GB_BLACK ? 0 : GB_ZOBRIST_STRIDE) + loc];
}

/* Key of the ko point loc (loc != GB_NULL_LOC). */
static inline uint64_t
gb_zobrist_ko(gb_loc loc)
{
    return gb_zobrist_keys[2 * GB_ZOBRIST_STRIDE + loc];
}

#endif /* GB_ZOBRIST_H */
