/* patterns.h: the local pattern codes of the fast rollout policy (AlphaGo 2016's P_pi).
 *
 * Every code is read from the side to move's view ("own" / "opponent" stones), so one
 * weight serves both colours.
 *
 * 3x3 pattern of a point v: the states of its 8 neighbours. The four orthogonal ones
 * (N, W, E, S) take 6 states: 0 empty, 1 off-board, 2 own string with >= 2 liberties,
 * 3 own string in atari (1 liberty), 4 opponent >= 2 liberties, 5 opponent in atari.
 * The four diagonal ones (NW, NE, SW, SE) take 4: 0 empty, 1 off-board, 2 own, 3
 * opponent. The raw code is the mixed-radix number
 *     ((((N * 6 + W) * 6 + E) * 6 + S) * 256) + NW * 64 + NE * 16 + SW * 4 + SE
 * in [0, GB_PAT3_RAW). Patterns equal up to a rotation or reflection of the square share
 * one class: the canonical code is the least raw code over the 8 transforms, and the
 * class index is the rank of the canonical code among all canonical codes (0 ..
 * GB_PAT3_CLASSES - 1). Liberty counts are kept only orthogonally, where they decide
 * captures and escapes; sharing classes across symmetries lets the few hundred
 * thousand positions of a game collection train the 43 thousand classes.
 *
 * Response pattern of a candidate v near the previous move m: the 12 points at
 * Manhattan distance 1 or 2 from m (the "diamond"), each 0 empty, 1 own, 2 opponent,
 * 3 off-board (2 bits each, in the order of GB_DIAMOND below, point i at bits 2i), the
 * liberties of the string on m (0 if m is empty, else min(libs, 3)) at bits 24..25, and
 * the index of v in the diamond (0..11) at bits 26..29. The canonical key is the least
 * such 30-bit key over the 8 transforms; it is hashed into GB_RESPONSE_BUCKETS buckets
 * by gb_response_bucket() (a fixed multiplicative hash, so collisions are possible and
 * harmless: colliding patterns share a weight).
 */
#ifndef GB_PATTERNS_H
#define GB_PATTERNS_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"

#define GB_PAT3_RAW 331776      /* 6^4 * 4^4 raw 3x3 codes */
#define GB_PAT3_CLASSES 42990   /* classes up to the 8 symmetries of the square */
#define GB_RESPONSE_BITS 16
#define GB_RESPONSE_BUCKETS (1 << GB_RESPONSE_BITS)
#define GB_DIAMOND 12

/* (row, col) offsets of the diamond points, in code order. */
extern const int8_t gb_diamond_offsets[GB_DIAMOND][2];

/* Fills the raw-code -> class table once; later calls return at once. Call it with the
 * GIL (or another lock) held before any function below; not thread-safe itself. */
void gb_patterns_init(void);

/* Class index (0 .. GB_PAT3_CLASSES - 1) of a raw 3x3 code. Needs gb_patterns_init(). */
int32_t gb_pat3_class(int32_t raw);

/* Raw 3x3 code of the on-board loc v from the view of colour `mover`. */
int32_t gb_pat3_raw(const gb_board *b, gb_loc v, gb_color mover);

/* Index of loc v in the diamond around m (0..11), or -1 if it is not in it. */
int gb_diamond_index(const gb_board *b, gb_loc m, gb_loc v);

/* The 8 transformed response keys of the diamond around the on-board loc m, without the
 * candidate bits (bits 0..25), from the view of `mover`: keys[t] for transform t. */
void gb_response_keys(const gb_board *b, gb_loc m, gb_color mover, uint32_t keys[8]);

/* Canonical 30-bit key of the candidate with diamond index i, given keys[] from
 * gb_response_keys(). */
uint32_t gb_response_canonical(const uint32_t keys[8], int i);

/* Bucket (0 .. GB_RESPONSE_BUCKETS - 1) of a canonical response key. */
static inline int32_t
gb_response_bucket(uint32_t key)
{
    return (int32_t)(((uint64_t)key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - GB_RESPONSE_BITS));
}

#endif /* GB_PATTERNS_H */
