/* planes.h (not features.h, which would shadow glibc's <features.h> on the include
 * path): the recent stone arrays a network sees, and the input planes written from
 * them for one board or a batch, into caller-owned arrays with explicit strides.
 *
 * Plane sets (version GB_FEATURES_V1), always from the side to move's view:
 *
 *   agz17 (AlphaGo Zero)     lz18 (Leela Zero)
 *   0..7   own stones at t, t-1, ..., t-7        same
 *   8..15  opponent stones at t, t-1, ..., t-7  same
 *   16     ones if black is to move              16 ones if black to move
 *                                                17 ones if white to move
 *
 * Positions before the start of the record (fewer than 8 moves played, or a set-up
 * board) give all-zero history planes. A pass is a position too (the same stones).
 */
#ifndef GB_PLANES_H
#define GB_PLANES_H

#include <stdint.h>

#include "board.h"

#define GB_FEATURES_V1 1
#define GB_HISTORY 8 /* a power of two: the ring index wraps by masking */

enum gb_feature_set { GB_FEATURES_AGZ17 = 0, GB_FEATURES_LZ18 = 1, GB_FEATURE_SETS = 2 };

/* The last GB_HISTORY stone arrays of a game, newest at `latest`, kept beside the board
 * (not in it) so playouts and tree nodes never copy them. */
typedef struct gb_stone_history {
    int8_t count;  /* positions held, 1..GB_HISTORY */
    int8_t latest; /* ring index of position t */
    /* Colours in the mailbox layout (one memcpy per move); walls are never read. */
    gb_color color[GB_HISTORY][GB_ARR_SIZE];
    uint64_t hash[GB_HISTORY]; /* stone hash of each position, same ring */
} gb_stone_history;

/* One plane of a set: its name and what it holds. */
typedef struct gb_plane_info {
    const char *name;
    const char *description;
} gb_plane_info;

/* Number of planes of `set`, or 0 for an unknown set. */
int gb_features_count(int set);

/* Name and description of plane i of `set`; NULL if out of range. */
const gb_plane_info *gb_features_plane(int set, int i);

/* Starts a record holding only b's position. */
void gb_history_reset(gb_stone_history *h, const gb_board *b);

/* Appends b's position (call after every move, passes included). */
void gb_history_push(gb_stone_history *h, const gb_board *b);

/* Writes the planes of `set` for `count` boards: board i's plane c at out + i * stride_b +
 * c * stride_c, N * N contiguous values (row-major). Returns GB_OK, or GB_ERR_SIZE for
 * an unknown set. Reads only its arguments: safe without the GIL. */
int gb_features_write_f32(const gb_board *const *boards,
                          const gb_stone_history *const *histories, int64_t count,
                          int set,
                          float *out, int64_t stride_b, int64_t stride_c);
int gb_features_write_u8(const gb_board *const *boards,
                         const gb_stone_history *const *histories, int64_t count,
                          int set,
                         uint8_t *out, int64_t stride_b, int64_t stride_c);

#endif /* GB_PLANES_H */
