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
 *
 * alphago48 (the AlphaGo 2016 policy network) and alphago49 (its value network: the
 * same and a 49th plane); the one-hot groups end with an "or more" plane:
 *   0..2   own stone, opponent stone, empty
 *   3      ones
 *   4..11  stones: played 1, 2, ..., 7, >=8 moves ago (the first position back, within
 *          the last GB_HISTORY, where the point did not hold this stone; older, or on a
 *          set-up board: >=8)
 *   12..19 stones: liberties of the string 1, ..., 7, >=8
 *   20..27 legal moves: opponent stones captured 0, 1, ..., 6, >=7
 *   28..35 legal moves leaving the mover's new string on one liberty: its stones
 *          1, ..., 7, >=8
 *   36..43 legal moves: liberties of the mover's new string 1, ..., 7, >=8 (all zero
 *          for a multi-stone suicide)
 *   44     legal moves that capture an opponent string in a ladder (ladder.h)
 *   45     legal moves on the last liberty of an own string that escape the ladder
 *   46     legal moves that do not fill a true eye of the mover (gb_board_is_true_eye)
 *   47     zeros
 *   48     (alphago49) ones if black is to move
 * Legality follows the game's ko and superko rules (gb_legal_source).
 */
#ifndef GB_PLANES_H
#define GB_PLANES_H

#include <stdint.h>

#include "board.h"
#include "ladder.h"

#define GB_FEATURES_V1 1
#define GB_HISTORY 8 /* a power of two: the ring index wraps by masking */

enum gb_feature_set {
    GB_FEATURES_AGZ17 = 0,
    GB_FEATURES_LZ18 = 1,
    GB_FEATURES_ALPHAGO48 = 2,
    GB_FEATURES_ALPHAGO49 = 3,
    GB_FEATURE_SETS = 4
};

/* True for the sets that need a legal mask and ladder scratch. */
static inline int
gb_features_need_moves(int set)
{
    return set == GB_FEATURES_ALPHAGO48 || set == GB_FEATURES_ALPHAGO49;
}

/* The last GB_HISTORY stone arrays of a game, newest at `latest`, kept beside the board
 * (not in it) so playouts and tree nodes never copy them. */
typedef struct gb_stone_history {
    int8_t count;  /* positions held, 1..GB_HISTORY */
    int8_t latest; /* ring index of position t */
    /* Colours in the mailbox layout (one memcpy per move); walls never matter. */
    gb_color color[GB_HISTORY][GB_ARR_SIZE];
    uint64_t hash[GB_HISTORY]; /* stone hash of each position, same ring */
} gb_stone_history;

/* The colours of position t-k, or NULL if the record does not reach back so far. */
static inline const gb_color *
gb_history_past(const gb_stone_history *h, int k)
{
    return k < h->count ? h->color[(h->latest - k) & (GB_HISTORY - 1)] : NULL;
}

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

/* Where the alphago sets learn each board's legal moves (the game's ko and superko
 * rules): masks the caller computed (mask[i]: N * N + 1 bytes, pass last), or, with
 * mask NULL, board i's rules[i] and superko keys[i], from which the writer decides each
 * point as its analysis reaches it (no separate pass over the board for a mask). */
typedef struct gb_legal_source {
    const uint8_t *const *mask;
    const gb_rules *const *rules;
    const gb_keyset *const *keys;
} gb_legal_source;

/* Writes the planes of `set` for `count` boards: board i's plane c at out + i * stride_b +
 * c * N * N, N * N contiguous values (row-major), the planes of a board back to back
 * (stride_b >= planes * N * N values). For the alphago sets, `legal` says
 * where the legal moves come from and scratch has room for GB_LADDER_DEPTH boards;
 * other sets ignore both (NULL is fine). Returns GB_OK, or GB_ERR_SIZE for an unknown
 * set. Writes only out and scratch: safe without the GIL. */
int gb_features_write_f32(const gb_board *const *boards,
                          const gb_stone_history *const *histories,
                          const gb_legal_source *legal, int64_t count, int set,
                          gb_board *scratch, float *out, int64_t stride_b);
int gb_features_write_u8(const gb_board *const *boards,
                         const gb_stone_history *const *histories,
                         const gb_legal_source *legal, int64_t count, int set,
                         gb_board *scratch, uint8_t *out, int64_t stride_b);

#endif /* GB_PLANES_H */
