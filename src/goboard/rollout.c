/* rollout.c: the pattern rollout policy and its incremental playouts (see rollout.h). */
#include "rollout.h"

#include <math.h>
#include <string.h>

/* ---- Features of one point ------------------------------------------------------------ */

enum { F_CAPTURE = 1, F_SAVE = 2, F_SELF_ATARI = 4 };

static inline bool
add_lib(gb_loc *libs, int *n, gb_loc x)
{
    for (int i = 0; i < *n; i++) {
        if (libs[i] == x)
            return *n >= 3;
    }
    libs[(*n)++] = x;
    return *n >= 3;
}

static inline bool
in_list(const gb_loc *xs, int n, gb_loc x)
{
    for (int i = 0; i < n; i++) {
        if (xs[i] == x)
            return true;
    }
    return false;
}

/* Liberties, capped at 3, of the string c forms by playing the empty loc v; counts the
 * stones it captures that become its liberties. Sets *captures. */
static int
libs_after(const gb_board *b, gb_loc v, gb_color c, bool *captures, bool *saves_atari)
{
    gb_loc own[4], taken[4], libs[3];
    int nown = 0, ntaken = 0, n = 0;
    bool own_atari = false, plenty = false;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(v + b->adj[d]);
        gb_color nc = b->color[nb];
        if (nc == GB_EMPTY) {
            add_lib(libs, &n, nb);
        } else if (nc == c) {
            gb_loc h = b->head[nb];
            if (!in_list(own, nown, h)) {
                own[nown++] = h;
                own_atari |= b->libs[h] == 1;
                plenty |= b->libs[h] >= 4; /* >= 3 left after v is filled */
            }
        } else if (nc == -c) {
            gb_loc h = b->head[nb];
            if (b->libs[h] == 1 && !in_list(taken, ntaken, h))
                taken[ntaken++] = h;
        }
    }
    *captures = ntaken > 0;
    int result = 3;
    if (n >= 3 || plenty)
        goto done;
    for (int i = 0; i < nown; i++) {
        gb_loc s = own[i];
        do {
            for (int d = 0; d < 4; d++) {
                gb_loc e = (gb_loc)(s + b->adj[d]);
                if (b->color[e] == GB_EMPTY && e != v && add_lib(libs, &n, e))
                    goto done;
            }
            s = b->next[s];
        } while (s != own[i]);
    }
    /* A captured stone becomes a liberty if it touches v or a string that joins v. */
    for (int i = 0; i < ntaken; i++) {
        gb_loc s = taken[i];
        do {
            for (int d = 0; d < 4; d++) {
                gb_loc e = (gb_loc)(s + b->adj[d]);
                if (e == v || (b->color[e] == c && in_list(own, nown, b->head[e]))) {
                    if (add_lib(libs, &n, s))
                        goto done;
                    break;
                }
            }
            s = b->next[s];
        } while (s != taken[i]);
    }
    result = n;
done:
    *saves_atari = own_atari && result >= 2;
    return result;
}

/* Flags of the empty on-board loc v for mover c; -1 if v is not a candidate (suicide or
 * an own true eye). Ko is not looked at. */
static int
point_flags(const gb_board *b, gb_loc v, gb_color c)
{
    if (b->nempty[v] == 4)
        return 0; /* the common case: nothing around, nothing to capture or save */
    bool captures, saves;
    int libs = libs_after(b, v, c, &captures, &saves);
    if (libs == 0)
        return -1;
    if (!captures && gb_board_is_true_eye(b, v, c))
        return -1;
    return (captures ? F_CAPTURE : 0) | (saves ? F_SAVE : 0) | (libs == 1 ? F_SELF_ATARI : 0);
}

static inline double
point_gamma(const gb_board *b, gb_loc v, gb_color c, const gb_rollout_policy *p)
{
    if (b->color[v] != GB_EMPTY)
        return 0.0;
    int flags = point_flags(b, v, c);
    if (flags < 0)
        return 0.0;
    double g = p->pat3[gb_pat3_raw(b, v, c)];
    if (flags) {
        if (flags & F_CAPTURE)
            g *= p->binary[GB_RF_CAPTURE];
        if (flags & F_SAVE)
            g *= p->binary[GB_RF_SAVE_ATARI];
        if (flags & F_SELF_ATARI)
            g *= p->binary[GB_RF_SELF_ATARI];
    }
    return g;
}

/* ---- Policy --------------------------------------------------------------------------- */

void
gb_rollout_policy_set(gb_rollout_policy *p, const float *weights)
{
    gb_patterns_init();
    for (int32_t raw = 0; raw < GB_PAT3_RAW; raw++)
        p->pat3[raw] = expf(weights[GB_RF_PAT3 + gb_pat3_class(raw)]);
    for (int i = 0; i < GB_RESPONSE_BUCKETS; i++)
        p->response[i] = expf(weights[GB_RF_RESPONSE + i]);
    for (int i = 0; i < 4; i++)
        p->binary[i] = expf(weights[i]);
}

/* Diamond point i around m, or GB_NULL_LOC if it is off the board. */
static inline gb_loc
diamond_loc(const gb_board *b, gb_loc m, int i)
{
    int r = m / b->stride - 1 + gb_diamond_offsets[i][0];
    int c = m % b->stride - 1 + gb_diamond_offsets[i][1];
    if (r < 0 || r >= b->size || c < 0 || c >= b->size)
        return GB_NULL_LOC;
    return (gb_loc)((r + 1) * b->stride + c + 1);
}

static inline bool
near_index(int i)
{
    return gb_diamond_offsets[i][0] * gb_diamond_offsets[i][0] +
               gb_diamond_offsets[i][1] * gb_diamond_offsets[i][1] <=
           2;
}

static inline bool
previous_on_board(const gb_board *b)
{
    return b->last_move != GB_NULL_LOC && b->last_move != GB_PASS_LOC;
}

int
gb_rollout_features(const gb_board *b, int16_t *points, int32_t *index)
{
    gb_patterns_init();
    const gb_color c = b->to_play;
    const gb_loc m = b->last_move;
    uint32_t keys[8];
    if (previous_on_board(b))
        gb_response_keys(b, m, c, keys);
    int count = 0;
    for (int p = 0; p < b->size * b->size; p++) {
        gb_loc v = gb_board_loc(b, p);
        if (b->color[v] != GB_EMPTY || v == b->ko_loc)
            continue;
        int flags = point_flags(b, v, c);
        if (flags < 0)
            continue;
        int32_t feats[GB_RF_MAX_ACTIVE];
        int nf = 0;
        int i = previous_on_board(b) ? gb_diamond_index(b, m, v) : -1;
        if (flags & F_CAPTURE)
            feats[nf++] = GB_RF_CAPTURE;
        if (flags & F_SAVE)
            feats[nf++] = GB_RF_SAVE_ATARI;
        if (flags & F_SELF_ATARI)
            feats[nf++] = GB_RF_SELF_ATARI;
        if (i >= 0 && near_index(i))
            feats[nf++] = GB_RF_NEAR_PREV;
        feats[nf++] = GB_RF_PAT3 + gb_pat3_class(gb_pat3_raw(b, v, c));
        if (i >= 0)
            feats[nf++] = GB_RF_RESPONSE + gb_response_bucket(gb_response_canonical(keys, i));
        for (int k = 0; k < nf; k++) {
            points[count] = (int16_t)p;
            index[count++] = feats[k];
        }
    }
    return count;
}

/* ---- Rollouts ------------------------------------------------------------------------- */

void
gb_rollout_start(gb_rollout *r, const gb_board *b, const gb_rollout_policy *p)
{
    memcpy(&r->board, b, sizeof *b);
    memset(r->gamma, 0, sizeof r->gamma);
    memset(r->mark, 0, sizeof r->mark);
    for (int i = 0; i < b->num_empty; i++) {
        gb_loc v = b->empty[i];
        r->gamma[0][v] = point_gamma(b, v, GB_BLACK, p);
        r->gamma[1][v] = point_gamma(b, v, GB_WHITE, p);
    }
}

static inline void
mark_dirty(gb_rollout *r, int *n, gb_loc v)
{
    if (!r->mark[v] && r->board.color[v] != GB_WALL) {
        r->mark[v] = 1;
        r->dirty[(*n)++] = v;
    }
}

static void
mark_around(gb_rollout *r, int *n, gb_loc v)
{
    const int s = r->board.stride;
    mark_dirty(r, n, v);
    mark_dirty(r, n, (gb_loc)(v - s - 1));
    mark_dirty(r, n, (gb_loc)(v - s));
    mark_dirty(r, n, (gb_loc)(v - s + 1));
    mark_dirty(r, n, (gb_loc)(v - 1));
    mark_dirty(r, n, (gb_loc)(v + 1));
    mark_dirty(r, n, (gb_loc)(v + s - 1));
    mark_dirty(r, n, (gb_loc)(v + s));
    mark_dirty(r, n, (gb_loc)(v + s + 1));
}

/* Marks the liberties of the string with head h. */
static void
mark_liberties(gb_rollout *r, int *n, gb_loc h)
{
    const gb_board *b = &r->board;
    gb_loc s = h;
    do {
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            if (b->color[e] == GB_EMPTY)
                mark_dirty(r, n, e);
        }
        s = b->next[s];
    } while (s != h);
}

void
gb_rollout_play(gb_rollout *r, const gb_rollout_policy *p, gb_loc v)
{
    gb_board *b = &r->board;
    if (v == GB_PASS_LOC) {
        gb_board_play_unchecked(b, v);
        return;
    }
    const gb_color c = b->to_play;
    /* What the move will change, read before it is made: the strings next to v, whether
     * any friendly one is short of liberties, and the stones it captures. */
    gb_loc near[4], captured[GB_MAX_POINTS];
    int nnear = 0, ncaptured = 0;
    bool own_short = false;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(v + b->adj[d]);
        gb_color nc = b->color[nb];
        if (nc != c && nc != -c)
            continue;
        gb_loc h = b->head[nb];
        if (in_list(near, nnear, h))
            continue;
        near[nnear++] = h;
        if (nc == c) {
            own_short |= b->libs[h] <= 3;
        } else if (b->libs[h] == 1) {
            gb_loc s = h;
            do {
                captured[ncaptured++] = s;
                s = b->next[s];
            } while (s != h);
        }
    }
    gb_board_play_unchecked(b, v);

    int n = 0;
    mark_around(r, &n, v);
    for (int i = 0; i < ncaptured; i++)
        mark_around(r, &n, captured[i]);
    gb_loc h = b->head[v];
    if (own_short || b->libs[h] <= 3)
        mark_liberties(r, &n, h);
    for (int i = 0; i < nnear; i++) {
        /* Opponent strings that survived lost one liberty. */
        gb_loc x = near[i];
        if (b->color[x] == -c && b->libs[x] <= 3)
            mark_liberties(r, &n, x);
    }
    if (ncaptured > 0) {
        /* Strings next to the captured stones gained liberties. The stone at v's string
         * is among them; marking a string twice only repeats marks. */
        for (int i = 0; i < ncaptured; i++) {
            for (int d = 0; d < 4; d++) {
                gb_loc e = (gb_loc)(captured[i] + b->adj[d]);
                if (b->color[e] == c)
                    mark_liberties(r, &n, b->head[e]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        gb_loc x = r->dirty[i];
        r->mark[x] = 0;
        r->gamma[0][x] = point_gamma(b, x, GB_BLACK, p);
        r->gamma[1][x] = point_gamma(b, x, GB_WHITE, p);
    }
}

/* The candidates in the diamond of the previous move with their full gammas (response
 * and near-prev factors applied); marks them, and the ko point, in r->mark. Returns
 * their number. */
static int
diamond_candidates(gb_rollout *r, const gb_rollout_policy *p, gb_loc *cand, double *cg)
{
    const gb_board *b = &r->board;
    const double *g = r->gamma[b->to_play == GB_BLACK ? 0 : 1];
    if (b->ko_loc != GB_NULL_LOC)
        r->mark[b->ko_loc] = 1;
    if (!previous_on_board(b))
        return 0;
    const gb_loc m = b->last_move;
    uint32_t keys[8];
    gb_response_keys(b, m, b->to_play, keys);
    int nc = 0;
    for (int i = 0; i < GB_DIAMOND; i++) {
        gb_loc q = diamond_loc(b, m, i);
        if (q == GB_NULL_LOC || r->mark[q] || g[q] <= 0.0)
            continue;
        double f = p->response[gb_response_bucket(gb_response_canonical(keys, i))];
        if (near_index(i))
            f *= p->binary[GB_RF_NEAR_PREV];
        r->mark[q] = 1;
        cand[nc] = q;
        cg[nc++] = g[q] * f;
    }
    return nc;
}

static inline void
clear_marks(gb_rollout *r, const gb_loc *cand, int nc)
{
    for (int i = 0; i < nc; i++)
        r->mark[cand[i]] = 0;
    r->mark[r->board.ko_loc] = 0; /* GB_NULL_LOC is a wall slot: clearing it is harmless */
}

gb_loc
gb_rollout_choose(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng)
{
    const gb_board *b = &r->board;
    const double *g = r->gamma[b->to_play == GB_BLACK ? 0 : 1];
    gb_loc cand[GB_DIAMOND];
    double cg[GB_DIAMOND];
    int nc = diamond_candidates(r, p, cand, cg);
    /* The total is summed afresh (a few hundred additions) rather than kept: a running
     * sum of gammas that span many orders of magnitude would drift. */
    double total = 0.0;
    for (int i = 0; i < nc; i++)
        total += cg[i];
    const int ne = b->num_empty;
    for (int i = 0; i < ne; i++) {
        gb_loc e = b->empty[i];
        total += r->mark[e] ? 0.0 : g[e];
    }
    gb_loc chosen = GB_PASS_LOC;
    if (total > 0.0) {
        double x = total * ((double)gb_rng_next32(rng) * (1.0 / 4294967296.0));
        for (int i = 0; i < nc && chosen == GB_PASS_LOC; i++) {
            x -= cg[i];
            if (x < 0.0)
                chosen = cand[i];
        }
        for (int i = 0; i < ne && chosen == GB_PASS_LOC; i++) {
            gb_loc e = b->empty[i];
            if (r->mark[e] || g[e] <= 0.0)
                continue;
            x -= g[e];
            if (x < 0.0)
                chosen = e;
        }
        if (chosen == GB_PASS_LOC) {
            /* Only rounding (x >= 0 after the last term) gets here: take the last
             * candidate of the scan. */
            for (int i = ne - 1; i >= 0 && chosen == GB_PASS_LOC; i--) {
                gb_loc e = b->empty[i];
                if (!r->mark[e] && g[e] > 0.0)
                    chosen = e;
            }
            if (chosen == GB_PASS_LOC && nc > 0)
                chosen = cand[nc - 1];
        }
    }
    clear_marks(r, cand, nc);
    return chosen;
}

void
gb_rollout_probabilities(gb_rollout *r, const gb_rollout_policy *p, float *out)
{
    const gb_board *b = &r->board;
    const double *g = r->gamma[b->to_play == GB_BLACK ? 0 : 1];
    const int points = b->size * b->size;
    gb_loc cand[GB_DIAMOND];
    double cg[GB_DIAMOND], w[GB_MAX_POINTS];
    int nc = diamond_candidates(r, p, cand, cg);
    double total = 0.0;
    for (int pt = 0; pt < points; pt++) {
        gb_loc v = gb_board_loc(b, pt);
        w[pt] = r->mark[v] ? 0.0 : g[v];
    }
    for (int i = 0; i < nc; i++)
        w[gb_board_point(b, cand[i])] = cg[i];
    for (int pt = 0; pt < points; pt++)
        total += w[pt];
    clear_marks(r, cand, nc);
    for (int pt = 0; pt < points; pt++)
        out[pt] = total > 0.0 ? (float)(w[pt] / total) : 0.0f;
    out[points] = total > 0.0 ? 0.0f : 1.0f;
}

int
gb_rollout_run(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng, int max_moves,
               int16_t *moves, int *played)
{
    gb_board *b = &r->board;
    const int pass = b->size * b->size;
    int placed = 0, count = 0;
    for (; count < max_moves && b->passes < 2; count++) {
        gb_loc v = gb_rollout_choose(r, p, rng);
        if (moves != NULL)
            moves[count] = (int16_t)(v == GB_PASS_LOC ? pass : gb_board_point(b, v));
        gb_rollout_play(r, p, v);
        placed += v != GB_PASS_LOC;
    }
    if (played != NULL)
        *played = count;
    return placed;
}

void
gb_rollouts(const gb_board *start, const gb_rollout_policy *p, int64_t n, uint64_t seed,
            int max_moves, double komi, double *scores, int32_t *placed)
{
    gb_rollout r;
    gb_rollout_start(&r, start, p);
    gb_rollout first = r; /* the start's gammas, computed once for all n rollouts */
    for (int64_t i = 0; i < n; i++) {
        gb_rng rng;
        gb_rng_seed(&rng, seed, (uint64_t)i);
        if (i > 0)
            memcpy(&r, &first, sizeof r);
        placed[i] = gb_rollout_run(&r, p, &rng, max_moves, NULL, NULL);
        scores[i] = gb_board_score(&r.board, komi);
    }
}

int
gb_rollout_check(const gb_rollout *r, const gb_rollout_policy *p, int *where)
{
    const gb_board *b = &r->board;
    for (int pt = 0; pt < b->size * b->size; pt++) {
        gb_loc v = gb_board_loc(b, pt);
        if (r->gamma[0][v] != point_gamma(b, v, GB_BLACK, p) ||
            r->gamma[1][v] != point_gamma(b, v, GB_WHITE, p) || r->mark[v]) {
            *where = pt;
            return GB_ERR_CHECK_STATE;
        }
    }
    return GB_OK;
}
