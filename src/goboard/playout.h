/* playout.h: random playouts and perft, the hot loops that benchmarks and rollouts use.
 *
 * Playouts follow the policy every fast Go board measures itself with: a uniformly random
 * legal move that does not fill one of the mover's own true eyes, pass when there is
 * none, stop after two passes in a row or max_moves moves. They use simple ko only and
 * never play suicide, whatever the board's rules: superko needs the game history, which
 * a playout does not carry, and is irrelevant to the statistics playouts are used for.
 */
#ifndef GB_PLAYOUT_H
#define GB_PLAYOUT_H

#include <stdint.h>

#include "board.h"

/* Fast 64-bit generator (splitmix64 seeding a xorshift64* stream). */
typedef struct gb_rng {
    uint64_t state; /* never 0 */
} gb_rng;

/* Next 32 random bits of the stream (xorshift64* output). */
static inline uint32_t
gb_rng_next32(gb_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return (uint32_t)((x * UINT64_C(0x2545f4914f6cdd1d)) >> 32);
}

/* Generator for stream `stream` of seed `seed`: playout i of a batch uses stream i, so
 * results do not depend on how the batch is split. */
void gb_rng_seed(gb_rng *rng, uint64_t seed, uint64_t stream);

/* True if loc is an empty point whose on-board neighbours are all stones of colour c and
 * whose diagonals are not held by the opponent: at most one opposing diagonal in the
 * middle of the board, none on the edge or in the corner. */
bool gb_board_is_true_eye(const gb_board *b, gb_loc loc, gb_color c);

/* Plays out b in place with the policy above; returns the number of stones placed.
 * Precondition: max_moves >= 0. */
int gb_playout(gb_board *b, gb_rng *rng, int max_moves);

/* Runs n playouts from copies of *start with streams 0..n-1 of `seed`. Writes the final
 * Tromp-Taylor score (black minus white minus komi) to scores[i] and the stones placed
 * to placed[i]; adds each final ownership (+1/-1/0 per point) into ownership[size*size]
 * when it is not NULL. Touches no global state: safe without the GIL, in parallel. */
void gb_playouts(const gb_board *start, int64_t n, uint64_t seed, int max_moves,
                 double komi, double *scores, int32_t *placed, int32_t *ownership);

/* Leaves of the legal-move tree of the given depth below b (pass included; a finished
 * game has no moves) under `rules`, with the game's superko keys in `history`. The
 * search adds and removes keys as it goes (restored on return), so history needs room
 * for depth more keys. */
uint64_t gb_perft(const gb_board *b, const gb_rules *rules, gb_keyset *history, int depth);

#endif /* GB_PLAYOUT_H */
