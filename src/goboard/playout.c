/* playout.c: random playouts and perft. See playout.h for the policy and contracts. */
#include "playout.h"

#include <string.h>

#include "zobrist.h"

void
gb_rng_seed(gb_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t z = seed + (stream + 1) * UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    z ^= z >> 31;
    rng->state = z ? z : UINT64_C(0x2545f4914f6cdd1d);
}

/* Uniform in [0, n) by a multiply-shift: one draw, no division (bias < n / 2^32). */
static inline int
rng_below(gb_rng *rng, int n)
{
    return (int)(((uint64_t)gb_rng_next32(rng) * (uint32_t)n) >> 32);
}

/* The diagonal half of the true-eye test, for a point already surrounded by c. */
static inline bool
diagonals_hold(const gb_board *b, gb_loc v, gb_color c)
{
    const int s = b->stride;
    gb_color d0 = b->color[v - s - 1], d1 = b->color[v - s + 1];
    gb_color d2 = b->color[v + s - 1], d3 = b->color[v + s + 1];
    int enemy = (d0 == -c) + (d1 == -c) + (d2 == -c) + (d3 == -c);
    int off_board = (d0 == GB_WALL) | (d1 == GB_WALL) | (d2 == GB_WALL) | (d3 == GB_WALL);
    /* On the edge the wall takes the place of the one diagonal the middle may concede. */
    return enemy + off_board < 2;
}

bool
gb_board_is_true_eye(const gb_board *b, gb_loc v, gb_color c)
{
    const int s = b->stride;
    const gb_loc around[4] = {(gb_loc)(v - s), (gb_loc)(v - 1), (gb_loc)(v + 1),
                              (gb_loc)(v + s)};
    if (b->color[v] != GB_EMPTY)
        return false;
    for (int d = 0; d < 4; d++) {
        gb_color nc = b->color[around[d]];
        if (nc != c && nc != GB_WALL)
            return false;
    }
    return diagonals_hold(b, v, c);
}

/* A playout may play v: not the ko point, not suicide, not one of its own true eyes. */
static inline bool
playout_move_ok(const gb_board *b, gb_loc v)
{
    /* Most candidates have an empty neighbour: then only ko can forbid them. */
    if (b->nempty[v])
        return v != b->ko_loc;
    const int s = b->stride;
    const gb_loc around[4] = {(gb_loc)(v - s), (gb_loc)(v - 1), (gb_loc)(v + 1),
                              (gb_loc)(v + s)};
    if (v == b->ko_loc)
        return false;
    gb_color c = b->to_play;
    bool breathes = false, surrounded_by_own = true;
    for (int d = 0; d < 4; d++) {
        gb_loc n = around[d];
        gb_color nc = b->color[n];
        if (nc == c) {
            breathes |= b->libs[b->head[n]] > 1;
        } else if (nc != GB_WALL) {
            surrounded_by_own = false;
            breathes |= b->libs[b->head[n]] == 1; /* captures */
        }
    }
    if (!breathes)
        return false;
    return !(surrounded_by_own && diagonals_hold(b, v, c));
}

int
gb_playout(gb_board *b, gb_rng *rng, int max_moves)
{
    int placed = 0;
    for (int moves = 0; moves < max_moves && b->passes < 2; moves++) {
        gb_loc chosen = GB_PASS_LOC;
        int n = b->num_empty;
        if (n > 0) {
            /* One random start, then scan the empty list cyclically. */
            int i = rng_below(rng, n);
            for (int tries = 0; tries < n; tries++) {
                gb_loc v = b->empty[i];
                if (playout_move_ok(b, v)) {
                    chosen = v;
                    break;
                }
                if (++i == n)
                    i = 0;
            }
        }
        gb_board_play_unchecked(b, chosen);
        placed += chosen != GB_PASS_LOC;
    }
    return placed;
}

void
gb_playouts(const gb_board *start, int64_t n, uint64_t seed, int max_moves, double komi,
            double *scores, int32_t *placed, int32_t *ownership)
{
    gb_board b;
    int8_t own[GB_MAX_POINTS];
    int points = start->size * start->size;
    for (int64_t i = 0; i < n; i++) {
        gb_rng rng;
        gb_rng_seed(&rng, seed, (uint64_t)i);
        memcpy(&b, start, sizeof b);
        placed[i] = gb_playout(&b, &rng, max_moves);
        gb_board_ownership(&b, own);
        int area = 0;
        for (int p = 0; p < points; p++)
            area += own[p];
        scores[i] = area - komi;
        if (ownership != NULL) {
            for (int p = 0; p < points; p++)
                ownership[p] += own[p];
        }
    }
}

/* Counts legal moves (pass included) without making them: the last ply of perft. */
static uint64_t
count_legal(const gb_board *b, const gb_rules *rules, const gb_keyset *history)
{
    if (gb_board_is_over(b))
        return 0;
    uint64_t count = 1; /* pass */
    for (int i = 0; i < b->num_empty; i++)
        count += gb_board_legality(b, b->empty[i], rules, history) == GB_OK;
    return count;
}

uint64_t
gb_perft(const gb_board *b, const gb_rules *rules, gb_keyset *history, int depth)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return count_legal(b, rules, history);
    if (gb_board_is_over(b))
        return 0;
    uint64_t leaves = 0;
    gb_board child;
    /* Iterate over a copy of the empty list: it is the set of candidate points. */
    gb_loc candidates[GB_MAX_POINTS + 1];
    int ncand = b->num_empty;
    memcpy(candidates, b->empty, (size_t)ncand * sizeof(gb_loc));
    candidates[ncand++] = GB_PASS_LOC;
    for (int i = 0; i < ncand; i++) {
        if (gb_board_legality(b, candidates[i], rules, history) != GB_OK)
            continue;
        memcpy(&child, b, sizeof child);
        gb_board_play_unchecked(&child, candidates[i]);
        uint64_t key = gb_board_superko_key(&child, rules->ko);
        bool added = gb_keyset_insert(history, key, gb_board_stone_count(&child));
        leaves += gb_perft(&child, rules, history, depth - 1);
        if (added)
            gb_keyset_remove_last(history, key);
    }
    return leaves;
}
