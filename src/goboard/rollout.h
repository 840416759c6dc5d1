/* rollout.h: the fast rollout policy of AlphaGo 2016 (P_pi): a linear softmax over local
 * pattern features, and playouts to the end of the game that follow it.
 *
 * A candidate move of the side to move c is an empty point that is not suicide (simple
 * ko: the ko point is excluded while it is one) and not one of c's own true eyes
 * (gb_board_is_true_eye); pass is played only when there is no candidate. A candidate's
 * score is the sum of the weights of its active features, and it is drawn with
 * probability exp(score) / sum over the candidates of exp(score).
 *
 * Feature indices (GB_ROLLOUT_FEATURES_V1; patterns.h defines the codes):
 *   0  capture      the move captures at least one stone
 *   1  save-atari   the move joins an own string in atari and leaves it >= 2 liberties
 *   2  self-atari   the string of the move has exactly 1 liberty after it
 *   3  near-prev    the move is one of the 8 neighbours of the previous move
 *   4 .. 4 + GB_PAT3_CLASSES - 1          the 3x3 pattern class around the move
 *   GB_RF_RESPONSE .. + GB_RESPONSE_BUCKETS - 1   the response pattern bucket (only for
 *                  moves in the 12-point diamond around the previous move, on the board)
 * Every candidate has exactly one 3x3 feature and at most one response feature. The
 * liberty counts after a move count captured stones that become liberties.
 *
 * Playouts keep, for each colour to move, the gamma (exp of the score without the
 * features that depend on the previous move) of every point, and recompute after a move
 * only the points whose features can have changed: the 8 neighbours of each stone placed
 * or removed, and the liberties of every string whose liberty count changed while it had
 * or has at most 3 (the features only see min(liberties, 4) and, below that, the
 * liberties themselves). The response and near-prev factors are applied at sampling time
 * to the <= 12 diamond points. Like gb_playout, rollouts use simple ko only.
 */
#ifndef GB_ROLLOUT_H
#define GB_ROLLOUT_H

#include <stdint.h>

#include "board.h"
#include "patterns.h"
#include "playout.h"

#define GB_ROLLOUT_FEATURES_V1 1
enum {
    GB_RF_CAPTURE = 0,
    GB_RF_SAVE_ATARI = 1,
    GB_RF_SELF_ATARI = 2,
    GB_RF_NEAR_PREV = 3,
    GB_RF_PAT3 = 4,
    GB_RF_RESPONSE = GB_RF_PAT3 + GB_PAT3_CLASSES,
    GB_RF_COUNT = GB_RF_RESPONSE + GB_RESPONSE_BUCKETS,
    GB_RF_MAX_ACTIVE = 6 /* features one move can have */
};

/* Largest |weight| accepted: keeps every product of gammas finite in double. */
#define GB_RF_MAX_WEIGHT 50.0f

/* exp(weight) tables; filled by gb_rollout_policy_set. ~1.6 MB: allocate on the heap. */
typedef struct gb_rollout_policy {
    float pat3[GB_PAT3_RAW];             /* gamma of the class of each raw 3x3 code */
    float response[GB_RESPONSE_BUCKETS]; /* gamma of each response bucket */
    float binary[4];                     /* capture, save-atari, self-atari, near-prev */
} gb_rollout_policy;

/* A position being played out with its per-point gammas. ~16 kB; copies with memcpy. */
typedef struct gb_rollout {
    gb_board board;                /* the position */
    double gamma[2][GB_ARR_SIZE];  /* [0] black, [1] white to move: gamma of each point
                                    * (0 if not a candidate for that colour, ignoring
                                    * ko); valid for on-board locs */
    uint8_t mark[GB_ARR_SIZE];     /* scratch; all 0 between calls */
    gb_loc dirty[GB_ARR_SIZE];     /* scratch: points to recompute after a move */
} gb_rollout;

/* ---- Policy ----------------------------------------------------------------------- */

/* Fills p from weights[GB_RF_COUNT]. Precondition: every weight finite and within
 * +-GB_RF_MAX_WEIGHT (the wrapper checks). Calls gb_patterns_init(). */
void gb_rollout_policy_set(gb_rollout_policy *p, const float *weights);

/* Active features of every candidate of b's side to move, from scratch: pairs
 * (points[i], index[i]) in ascending point order, ascending index within a point.
 * Returns the number of pairs (room needed: GB_RF_MAX_ACTIVE * size * size). */
int gb_rollout_features(const gb_board *b, int16_t *points, int32_t *index);

/* ---- Rollouts --------------------------------------------------------------------- */

/* r becomes a copy of b with every gamma computed from scratch. */
void gb_rollout_start(gb_rollout *r, const gb_board *b, const gb_rollout_policy *p);

/* Plays loc (a candidate of the side to move, or GB_PASS_LOC) and updates the gammas. */
void gb_rollout_play(gb_rollout *r, const gb_rollout_policy *p, gb_loc loc);

/* Draws the next move from the policy (GB_PASS_LOC when there is no candidate). */
gb_loc gb_rollout_choose(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng);

/* Probability of each point and pass (index size * size) for the side to move. */
void gb_rollout_probabilities(gb_rollout *r, const gb_rollout_policy *p, float *out);

/* Plays r out: up to max_moves moves, stopping after two passes in a row. Writes the
 * points played (pass = size * size) to moves[0 .. *played) if moves is not NULL.
 * Returns the number of stones placed. */
int gb_rollout_run(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng, int max_moves,
                   int16_t *moves, int *played);

/* n rollouts from *start with streams 0..n-1 of seed; scores[i] = final Tromp-Taylor
 * score minus komi, placed[i] = stones placed. No global state: safe without the GIL. */
void gb_rollouts(const gb_board *start, const gb_rollout_policy *p, int64_t n,
                 uint64_t seed, int max_moves, double komi, double *scores,
                 int32_t *placed);

/* GB_OK if r's gammas equal a from-scratch recomputation, else GB_ERR_CHECK_STATE with
 * *where = the first point that differs. */
int gb_rollout_check(const gb_rollout *r, const gb_rollout_policy *p, int *where);

#endif /* GB_ROLLOUT_H */
