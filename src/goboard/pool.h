/* pool.h: the positions of search trees, one gb_board per tree node, kept in C.
 *
 * A pool holds `games` trees of `slots_per_root` slots each; slot g * M is game g's root
 * and the search decides which slot each new node takes. Every slot records its parent,
 * so superko (the game's record plus the path) and the eight positions a network sees
 * (up the tree, then into the game's record) are found without Python objects. The
 * caller (the Cython wrapper) allocates every array; nothing here allocates.
 */
#ifndef GB_POOL_H
#define GB_POOL_H

#include <stdint.h>

#include "board.h"
#include "keyset.h"
#include "planes.h"

typedef struct gb_pool {
    gb_board *boards;  /* [games * slots_per_root] */
    int32_t *parent;   /* parent slot; -1 for roots and unset slots */
    int16_t *move;     /* point played from the parent; -1 for roots */
    uint64_t *key;     /* superko key of the slot's position under its game's rules */
    uint8_t *valid;    /* 1 once the slot holds a position */
    uint32_t *stamp;   /* scratch for gb_pool_expand: stamp[s] == epoch marks a child */
    uint32_t epoch;
    int32_t games, slots_per_root;
    /* Per game: rules, komi, superko record and stone record of the game so far. */
    gb_rules *rules;
    double *komi;
    gb_keyset *record;
    gb_stone_history *past;
} gb_pool;

/* Game whose block holds `slot`. */
static inline int32_t
gb_pool_game(const gb_pool *p, int64_t slot)
{
    return (int32_t)(slot / p->slots_per_root);
}

/* The superko keys to test a move from `slot` against: the game's record plus the keys
 * of slot and its ancestors, written to path (room for slots_per_root). */
gb_keyset gb_pool_history(const gb_pool *p, int64_t slot, uint64_t *path);

/* GB_OK if every slot is in the pool and holds a position, else GB_ERR_SLOT or
 * GB_ERR_EMPTY_SLOT with *failed = the index of the first bad one. */
int gb_pool_check_slots(const gb_pool *p, const int64_t *slots, int64_t n, int64_t *failed);

/* For each i, slot children[i] becomes parents[i] after playing points[i] (size * size
 * is pass). Checks everything first (slots in range and in the parent's game, children
 * distinct, not roots and neither parents of the call nor their ancestors, parents set,
 * points on the board,
 * legality with superko along the path) and changes nothing on error: returns GB_OK, or
 * an error code with *failed = i. path is scratch with room for slots_per_root keys. */
int gb_pool_expand(gb_pool *p, const int64_t *parents, const int32_t *points,
                   const int64_t *children, int64_t n, uint64_t *path, int64_t *failed);

/* Legal masks [n, size * size + 1] of the given slots (superko along the path). */
void gb_pool_legal_masks(const gb_pool *p, const int64_t *slots, int64_t n, uint8_t *out,
                         uint64_t *path);

/* Eye masks [n, size * size + 1]: 1 where the point is one of the true eyes (the
 * playout rule, gb_board_is_true_eye) of the side to move at the slot; pass is 0. */
void gb_pool_eye_masks(const gb_pool *p, const int64_t *slots, int64_t n, uint8_t *out);

/* The last GB_HISTORY positions of `slot`: up the tree, then the game's record. */
void gb_pool_stone_history(const gb_pool *p, int64_t slot, gb_stone_history *out);

/* Hash of what a network sees at `slot`: the stones of its last GB_HISTORY positions,
 * the side to move and the ko point. */
uint64_t gb_pool_eval_key(const gb_pool *p, int64_t slot);

/* Tree reuse: keeps the subtree of new_root (in game g's block), moved to the front of
 * the block in slot order; mapping[old offset] = new offset or -1. The positions from the
 * old root (exclusive) to new_root (inclusive) are pushed on the game's stone record; the
 * caller adds their superko keys to the game's record first (it may need to grow).
 * Returns the number of slots kept. */
int32_t gb_pool_reroot(gb_pool *p, int32_t g, int64_t new_root, int32_t *mapping);

#endif /* GB_POOL_H */
