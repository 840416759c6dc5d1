/* alphago_planes.c: the AlphaGo 2016 planes (alphago48, alphago49; planes.h lists
 * them) of a batch of boards, behind gb_features_write_f32/u8.
 *
 * Each board's planes come from a few codes a point (plane_code): most of them are
 * counted for eight points at a time in 16-bit vector lanes, the rest (moves joining
 * two strings, legality lookups, eye tests, ladder reads) point by point, and the
 * planes are then written in one sequential pass. */
#include "alphago_planes.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "playout.h"

enum {
    P_OWN = 0, P_OPP = 1, P_EMPTY = 2, P_ONES = 3, P_TURNS = 4, P_LIBS = 12,
    P_CAPTURE = 20, P_SELF_ATARI = 28, P_LIBS_AFTER = 36, P_LADDER_CAPTURE = 44,
    P_LADDER_ESCAPE = 45, P_SENSIBLE = 46, P_ZEROS = 47, P_BLACK = 48
};
#define LIST_LIBS 8 /* liberties listed per string: all of them for strings with <= 8 */
#define LANES 8     /* points codes_of_lanes counts at once */
/* Room around the lane arrays: the heads two rows above the first row's lanes and two
 * rows below the last row's stay in. */
#define PAD (2 * (GB_MAX_SIZE + 1) + 2 * LANES)
/* The lanes need GCC's vector extensions with __builtin_convertvector (GCC 9 on,
 * clang); elsewhere every code is filled one point at a time. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9)
#define HAVE_LANES 1
#else
#define HAVE_LANES 0
#endif

/* Each plane of alphago48/49 is one code array compared with one value: the writer
 * fills the codes (most of them eight points at a time), then writes every plane as
 * code == value in one sequential pass. Scattering ones into zeroed planes, point by
 * point, cost more. */
enum {
    C_KIND,      /* 1 own stone, 2 opponent stone, 3 empty point */
    C_AGE,       /* stones: turns since played, 1..8; else 0 */
    C_LIBS,      /* stones: liberties of the string, capped at 8; else 0 */
    C_CAPTURE,   /* legal moves: 1 + stones captured, capped at 7; else 0 */
    C_SELF_ATARI, /* legal moves leaving 1 liberty: stones of the string, capped at 8 */
    C_LIBS_AFTER, /* legal moves: liberties after, capped at 8; else 0 */
    C_LADDER_CAPTURE, /* 1 or 0, as the plane */
    C_LADDER_ESCAPE,
    C_SENSIBLE,
    C_ONE, /* 1 everywhere: the constant planes */
    CODES
};

/* What the analysis of one position keeps: a mark array, and the liberty lists of the
 * side to move's strings that a move joins to another (listed when first needed), so
 * a move's outcome is counted without playing it. */
typedef struct analysis {
    const gb_board *b;
    uint16_t epoch;
    uint16_t mark[GB_ARR_SIZE];          /* == epoch: seen in the current count */
    uint8_t listed[GB_ARR_SIZE];         /* 1: libs[h] holds the string at h's list */
    gb_loc libs[GB_ARR_SIZE][LIST_LIBS]; /* by head: the liberties of own strings (<= 8) */
    /* The board as 16-bit lanes for codes_of_lanes (see fill_lanes). */
    int16_t lane_color[PAD + GB_ARR_SIZE + PAD], lane_head[PAD + GB_ARR_SIZE + PAD];
    int16_t lane_libs[PAD + GB_ARR_SIZE + PAD], lane_stones[PAD + GB_ARR_SIZE + PAD];
    int16_t lane_nempty[PAD + GB_ARR_SIZE + PAD];
    /* What codes_of_lanes counted for the empty loc v: the outcome's libs, or -1 where
     * move_outcome must count; captured stones, stones, and the ladder flag (-1/0). */
    int16_t q_libs[GB_ARR_SIZE + LANES], q_captured[GB_ARR_SIZE + LANES];
    int16_t q_stones[GB_ARR_SIZE + LANES], q_ladder[GB_ARR_SIZE + LANES];
    uint8_t code[CODES][GB_MAX_POINTS]; /* the planes' codes by point (see C_KIND) */
    uint8_t todo[GB_MAX_POINTS + 8];    /* 1: point_codes finishes the point's codes */
} analysis;

/* What a legal move at an empty point would do; libs capped as the planes need. */
typedef struct outcome {
    int captured; /* opponent stones removed */
    int libs;     /* liberties of the mover's new string, capped at 8; 0 for suicide */
    int stones;   /* stones of the mover's new string */
    bool ladder;  /* a neighbouring string may start a ladder read (point_codes) */
} outcome;

/* The liberties of the side to move's string at head h (<= LIST_LIBS of them), listed
 * on first use: only a move that joins two strings needs them, so most strings never
 * are. Uses the marks: call it before a count starts. */
static const gb_loc *
liberties_of(analysis *a, gb_loc h)
{
    if (a->listed[h])
        return a->libs[h];
    const gb_board *b = a->b;
    int n = 0;
    gb_loc s = h;
    a->epoch++;
    do {
        /* Most stones of a long string have no empty neighbour. */
        for (int d = 0; d < 4 && b->nempty[s] > 0; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            if (b->color[e] == GB_EMPTY && a->mark[e] != a->epoch) {
                a->mark[e] = a->epoch;
                a->libs[h][n++] = e;
            }
        }
        s = b->next[s];
    } while (s != h && n < b->libs[h]);
    a->listed[h] = 1;
    return a->libs[h];
}

/* Whether the empty point e touches a stone of the string at head h. */
static inline bool
touches(const gb_board *b, gb_loc e, gb_loc h)
{
    return (b->head[e + b->adj[0]] == h) | (b->head[e + b->adj[1]] == h) |
           (b->head[e + b->adj[2]] == h) | (b->head[e + b->adj[3]] == h);
}

/* Marks e for the current count; 1 if it was not marked yet, else 0. Branch-free: on
 * the random-looking boards the planes are written for, a branch here mispredicts. */
static inline int
mark_new(analysis *a, gb_loc e)
{
    int fresh = a->mark[e] != a->epoch;
    a->mark[e] = a->epoch;
    return fresh;
}

/* The outcome of the side to move playing the empty point v, counted whether or not the
 * move is legal (a suicide gets 0 liberties); heads gets the distinct neighbouring
 * strings (GB_NULL_LOC elsewhere). */
static outcome
move_outcome(analysis *a, gb_loc v, gb_loc heads[4])
{
    const gb_board *b = a->b;
    const gb_color c = b->to_play;
    outcome o = {0, 0, 1, false};
    gb_loc captured[4], friends[4];
    int ncaptured = 0, nfriends = 0, touching = 0;
    heads[0] = heads[1] = heads[2] = heads[3] = GB_NULL_LOC;
    for (int d = 0; d < 4; d++) {
        gb_loc e = (gb_loc)(v + b->adj[d]);
        gb_color ce = b->color[e];
        if (ce == GB_EMPTY || ce == GB_WALL)
            continue;
        gb_loc h = b->head[e];
        int libs = b->libs[h];
        bool in_atari = ce != c && libs == 1;
        touching += in_atari; /* a captured stone next to v: a liberty of the new stone */
        if (h == heads[0] || h == heads[1] || h == heads[2])
            continue;
        heads[d] = h;
        /* Only a string on 2 (opponent) or 1 (own) liberties can start a ladder read. */
        o.ladder |= libs == 2 - (ce == c);
        if (ce == c) {
            friends[nfriends++] = h;
            o.stones += b->stones[h];
        } else if (in_atari) {
            captured[ncaptured++] = h;
            o.captured += b->stones[h];
        }
    }
    /* Alone, the new stone's liberties are its empty neighbours and the captured stones
     * next to it, all distinct points: nothing to mark. */
    if (nfriends == 0) {
        o.libs = b->nempty[v] + touching;
        return o;
    }
    int libs = 0;
    bool many = false; /* a joined string keeps 8 or more liberties anyway */
    for (int f = 0; f < nfriends; f++)
        many |= b->libs[friends[f]] > LIST_LIBS;
    if (many) {
        o.libs = 8;
        return o;
    }
    if (nfriends == 1) {
        /* One string joined (most moves): its liberties but v, and each empty
         * neighbour of v it does not touch yet; no list needed. */
        gb_loc h = friends[0];
        libs = b->libs[h] - 1;
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(v + b->adj[d]);
            if (b->color[e] == GB_EMPTY)
                libs += !touches(b, e, h);
        }
        a->epoch++; /* fresh marks for the captured stones below */
    } else {
        const gb_loc *lists[4];
        for (int f = 0; f < nfriends; f++)
            lists[f] = liberties_of(a, friends[f]);
        a->epoch++;
        a->mark[v] = a->epoch;
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(v + b->adj[d]);
            if (b->color[e] == GB_EMPTY)
                libs += mark_new(a, e);
        }
        for (int f = 0; f < nfriends; f++)
            for (int i = 0; i < b->libs[friends[f]]; i++)
                libs += mark_new(a, lists[f][i]);
    }
    /* A captured stone becomes a liberty if it touches v or a joined string. */
    for (int i = 0; i < ncaptured; i++) {
        gb_loc s = captured[i];
        do {
            for (int d = 0; d < 4; d++) {
                gb_loc e = (gb_loc)(s + b->adj[d]);
                bool joined = e == v;
                for (int f = 0; f < nfriends && !joined; f++)
                    joined = b->color[e] == c && b->head[e] == friends[f];
                if (joined) {
                    libs += mark_new(a, s);
                    break;
                }
            }
            s = b->next[s];
        } while (s != captured[i]);
    }
    o.libs = libs > 8 ? 8 : libs;
    return o;
}

/* ages[loc] = the first k in 1..7 such that position t-k (held in the record) did not
 * have b's colour at loc, else 8; for every loc of the board's rows, stones or not.
 * Taking k from the oldest down, each test a plain select, lets the loops vectorise. */
static void
stone_ages(const gb_board *b, const gb_stone_history *h, uint8_t *ages)
{
    const int first = b->stride + 1, last = b->size * b->stride + b->size;
    memset(ages + first, 8, (size_t)(last + 1 - first));
    for (int k = h->count - 1; k >= 1; k--) {
        const gb_color *restrict then = gb_history_past(h, k);
        const gb_color *restrict now = b->color;
        uint8_t *restrict age = ages;
        for (int v = first; v <= last; v++)
            age[v] = then[v] != now[v] ? (uint8_t)k : age[v];
    }
}

/* Where one board's legal moves come from: a mask the caller computed, or the rules and
 * superko keys, from which the analysis decides each point as it meets it. */
typedef struct legality {
    const uint8_t *mask;     /* NULL: decide from rules and keys */
    const gb_rules *rules;
    const gb_keyset *keys;
    bool over;               /* the game is over: nothing is legal */
    bool quiet_is_new;       /* gb_board_quiet_is_new */
} legality;

static legality
legality_of(const gb_legal_source *src, int64_t i, const gb_board *b)
{
    legality l = {NULL, NULL, NULL, false, true};
    if (src->mask != NULL) {
        l.mask = src->mask[i];
        return l;
    }
    l.rules = src->rules[i];
    l.keys = src->keys[i];
    l.over = gb_board_is_over(b);
    l.quiet_is_new = gb_board_quiet_is_new(b, l.rules, l.keys);
    return l;
}

/* ---- Codes: the planes of a board as a few small numbers a point ---------------------- */

/* Plane k of alphago49 is code[plane_code[k].code] == plane_code[k].value; value 0 never
 * matches C_ONE (the zeros plane), and the black_to_move plane's value is set per board.
 * Each group starts at its plane's index and runs on from there. */
static const struct {
    uint8_t code, value;
} plane_code[49] = {
    [P_OWN] = {C_KIND, 1}, [P_OPP] = {C_KIND, 2}, [P_EMPTY] = {C_KIND, 3},
    [P_ONES] = {C_ONE, 1},
    [P_TURNS] = {C_AGE, 1}, {C_AGE, 2}, {C_AGE, 3}, {C_AGE, 4},
    {C_AGE, 5}, {C_AGE, 6}, {C_AGE, 7}, {C_AGE, 8},
    [P_LIBS] = {C_LIBS, 1}, {C_LIBS, 2}, {C_LIBS, 3}, {C_LIBS, 4},
    {C_LIBS, 5}, {C_LIBS, 6}, {C_LIBS, 7}, {C_LIBS, 8},
    [P_CAPTURE] = {C_CAPTURE, 1}, {C_CAPTURE, 2}, {C_CAPTURE, 3}, {C_CAPTURE, 4},
    {C_CAPTURE, 5}, {C_CAPTURE, 6}, {C_CAPTURE, 7}, {C_CAPTURE, 8},
    [P_SELF_ATARI] = {C_SELF_ATARI, 1}, {C_SELF_ATARI, 2}, {C_SELF_ATARI, 3},
    {C_SELF_ATARI, 4}, {C_SELF_ATARI, 5}, {C_SELF_ATARI, 6}, {C_SELF_ATARI, 7},
    {C_SELF_ATARI, 8},
    [P_LIBS_AFTER] = {C_LIBS_AFTER, 1}, {C_LIBS_AFTER, 2}, {C_LIBS_AFTER, 3},
    {C_LIBS_AFTER, 4}, {C_LIBS_AFTER, 5}, {C_LIBS_AFTER, 6}, {C_LIBS_AFTER, 7},
    {C_LIBS_AFTER, 8},
    [P_LADDER_CAPTURE] = {C_LADDER_CAPTURE, 1}, [P_LADDER_ESCAPE] = {C_LADDER_ESCAPE, 1},
    [P_SENSIBLE] = {C_SENSIBLE, 1}, [P_ZEROS] = {C_ONE, 0},
    [P_BLACK] = {C_ONE, 1}, /* 0 instead when white is to move */
};

static inline int
cap(int value, int most)
{
    return value < most ? value : most;
}

/* Whether the side to move may play the empty point v (point p), after which it has a
 * string of `libs` liberties and has captured `captured` stones (move_outcome). Without a
 * mask, the common case needs no lookup: a move that is not the ko point, leaves its
 * string a liberty and captures nothing is legal while a quiet move cannot repeat a
 * position (gb_board_quiet_is_new); the rest (captures, suicides, a board after a
 * capture) ask gb_board_legality, the rules' one implementation. This spares the
 * writer a separate pass over the board for the mask. */
static inline bool
is_legal(const legality *l, const gb_board *b, gb_loc v, int p, int captured, int libs)
{
    if (l->mask != NULL)
        return l->mask[p];
    if (l->over | (v == b->ko_loc))
        return false;
    if ((libs > 0) & (captured == 0) & l->quiet_is_new)
        return true;
    return gb_board_legality(b, v, l->rules, l->keys) == GB_OK;
}

/* The move codes of the empty point v (point p) that the lanes left to count: legality
 * looked up, an outcome move_outcome counts, an eye test or ladder reads. */
static void
point_codes(analysis *a, const legality *legal, gb_board *scratch, bool *loaded, gb_loc v,
            int p)
{
    const gb_board *b = a->b;
    const gb_color own = b->to_play, opp = (gb_color)-own;
    gb_loc heads[4];
    outcome o;
    if (a->q_libs[v] < 0) {
        o = move_outcome(a, v, heads);
    } else {
        o.libs = a->q_libs[v];
        o.captured = a->q_captured[v];
        o.stones = a->q_stones[v];
        o.ladder = a->q_ladder[v] != 0;
        if (o.ladder)
            gb_distinct_neighbour_heads(b, v, b->stride, heads);
    }
    if (!is_legal(legal, b, v, p, o.captured, o.libs))
        return;
    a->code[C_CAPTURE][p] = (uint8_t)(1 + cap(o.captured, 7));
    if (o.libs == 1)
        a->code[C_SELF_ATARI][p] = (uint8_t)cap(o.stones, 8);
    a->code[C_LIBS_AFTER][p] = (uint8_t)o.libs;
    /* A true eye has no empty neighbour: most points need no eye test. */
    a->code[C_SENSIBLE][p] = b->nempty[v] > 0 || !gb_board_is_true_eye(b, v, own);
    bool ladder_capture = false, ladder_escape = false;
    for (int d = 0; d < 4 && o.ladder; d++) {
        gb_loc hd = heads[d];
        if (hd == GB_NULL_LOC)
            continue;
        bool capture = b->color[hd] == opp && b->libs[hd] == 2 && !ladder_capture &&
                       o.libs > 0;
        /* Escape reads only when the move leaves exactly 2 liberties. */
        bool escape = b->color[hd] == own && b->libs[hd] == 1 && !ladder_escape;
        if (escape && o.libs >= 3)
            ladder_escape = true;
        if (!capture && !(escape && o.libs == 2))
            continue;
        if (!*loaded) {
            gb_ladder_load(scratch, b);
            *loaded = true;
        }
        if (capture)
            ladder_capture = gb_ladder_captures(scratch, v, hd);
        if (escape && o.libs == 2)
            ladder_escape = gb_ladder_escapes(scratch, v, hd);
    }
    a->code[C_LADDER_CAPTURE][p] = ladder_capture;
    a->code[C_LADDER_ESCAPE][p] = ladder_escape;
}

/* Every point's codes one at a time: the stones' here, every empty point's by
 * point_codes. For compilers without vector extensions and boards narrower than the
 * lanes. */
static void
codes_one_by_one(analysis *a, const uint8_t *ages)
{
    const gb_board *b = a->b;
    const int n = b->size;
    for (int k = 0; k < CODES; k++)
        memset(a->code[k], k == C_ONE, (size_t)(n * n));
    for (int p = 0; p < n * n; p++) {
        gb_loc v = gb_board_loc(b, p);
        gb_color c = b->color[v];
        a->todo[p] = c == GB_EMPTY;
        a->q_libs[v] = -1;
        a->code[C_KIND][p] = (uint8_t)(c == GB_EMPTY ? 3 : c == b->to_play ? 1 : 2);
        if (c != GB_EMPTY) {
            a->code[C_AGE][p] = ages[v];
            a->code[C_LIBS][p] = (uint8_t)cap(b->libs[b->head[v]], 8);
        }
    }
}

#if HAVE_LANES
typedef int16_t lanes16 __attribute__((vector_size(2 * LANES)));
typedef uint8_t ulanes8 __attribute__((vector_size(LANES)));

static inline lanes16
load_lanes(const int16_t *p)
{
    lanes16 x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline lanes16
load_bytes(const uint8_t *p)
{
    ulanes8 x;
    memcpy(&x, p, sizeof x);
    return __builtin_convertvector(x, lanes16);
}

/* Stores lanes holding 0..255 as bytes. */
static inline void
store_bytes(uint8_t *p, lanes16 x)
{
    ulanes8 y = __builtin_convertvector(x, ulanes8);
    memcpy(p, &y, sizeof y);
}

static inline lanes16
splat(int x)
{
    return (lanes16){0} + (int16_t)x;
}

/* The board as 16-bit lanes, loc v at [PAD + v]: colour times the side to move (own 1,
 * opponent -1, empty 0, wall +-2), head, and the liberties and stones of the string
 * at head (whatever GB_NULL_LOC's entries hold for empty points and walls: the lanes
 * read them only for stones), empty neighbours. Separate loops, so that all but the
 * last vectorise. */
static void
fill_lanes(analysis *a)
{
    const gb_board *b = a->b;
    const int end = (b->size + 2) * b->stride + 1; /* the board's mailbox */
    memcpy(a->lane_head + PAD, b->head, (size_t)end * sizeof *b->head);
    for (int v = 0; v < end; v++)
        a->lane_color[PAD + v] = (int16_t)(b->color[v] * b->to_play);
    for (int v = 0; v < end; v++)
        a->lane_nempty[PAD + v] = b->nempty[v];
    for (int v = 0; v < end; v++) {
        gb_loc h = b->head[v];
        a->lane_libs[PAD + v] = b->libs[h];
        a->lane_stones[PAD + v] = b->stones[h];
    }
}

/* The codes of the LANES points from p on, locs from v on (one row), and which of them
 * need point_codes. A move's outcome is counted here when it joins no string of the
 * mover's (its empty neighbours and the captured stones next to it), one (that
 * string's liberties but v, and each empty neighbour of v the string does not touch
 * yet, found from the heads two steps away), or any with more than 8 liberties; the
 * rest (two or more strings joined, or one joined while capturing: a fifth of the
 * moves) get q_libs -1 and move_outcome counts them. Same values as move_outcome,
 * which the tests hold it to. */
static void
codes_of_lanes(analysis *a, const legality *legal, const uint8_t *ages, gb_loc v, int p)
{
    const gb_board *b = a->b;
    const int s = b->stride;
    const int16_t *C = a->lane_color + PAD, *H = a->lane_head + PAD;
    const int16_t *L = a->lane_libs + PAD, *S = a->lane_stones + PAD;
    const lanes16 zero = splat(0), one = splat(1), two = splat(2), eight = splat(8);
    const int off[4] = {-s, -1, 1, s};
    lanes16 c[4], h[4], l[4], st[4], d[4];
    for (int k = 0; k < 4; k++) {
        c[k] = load_lanes(C + v + off[k]);
        h[k] = load_lanes(H + v + off[k]);
        l[k] = load_lanes(L + v + off[k]);
        st[k] = load_lanes(S + v + off[k]);
    }
    /* d[k]: neighbour k is a stone of a string no earlier neighbour belongs to. */
    for (int k = 0; k < 4; k++) {
        d[k] = (c[k] == one) | (c[k] == -one);
        for (int j = 0; j < k; j++)
            d[k] &= h[k] != h[j];
    }
    lanes16 captured = zero, touching = zero, friends = zero, stones = one;
    lanes16 ladder = zero, many = zero, hf = zero, lf = zero;
    for (int k = 0; k < 4; k++) {
        lanes16 mine = d[k] & (c[k] == one);
        lanes16 atari = (c[k] == -one) & (l[k] == one);
        captured += d[k] & atari & st[k];
        touching -= atari;
        friends -= mine;
        stones += mine & st[k];
        ladder |= (mine & (l[k] == one)) | (d[k] & (c[k] == -one) & (l[k] == two));
        many |= mine & (l[k] > eight);
        hf |= mine & h[k];
        lf |= mine & l[k];
    }
    /* The one joined string's head hf against the heads around each neighbour. */
    lanes16 r_nn = load_lanes(H + v - 2 * s) == hf, r_ss = load_lanes(H + v + 2 * s) == hf;
    lanes16 r_nw = load_lanes(H + v - s - 1) == hf, r_ne = load_lanes(H + v - s + 1) == hf;
    lanes16 r_sw = load_lanes(H + v + s - 1) == hf, r_se = load_lanes(H + v + s + 1) == hf;
    lanes16 r_ww = load_lanes(H + v - 2) == hf, r_ee = load_lanes(H + v + 2) == hf;
    lanes16 fresh = ((c[0] == zero) & ~(r_nn | r_nw | r_ne)) +
                    ((c[1] == zero) & ~(r_nw | r_ww | r_sw)) +
                    ((c[2] == zero) & ~(r_ne | r_ee | r_se)) +
                    ((c[3] == zero) & ~(r_sw | r_se | r_ss));
    lanes16 alone = friends == zero;
    lanes16 nempty = load_lanes(a->lane_nempty + PAD + v);
    lanes16 libs = (alone & (nempty + touching)) | (~alone & many & eight) |
                   (~alone & ~many & (lf - one - fresh));
    lanes16 over = libs > eight;
    libs = (over & eight) | (~over & libs);
    lanes16 slow = ~many & ((friends > one) | ((friends == one) & (captured > zero)));
    libs = (slow & -one) | (~slow & libs);
    memcpy(a->q_libs + v, &libs, sizeof libs);
    memcpy(a->q_captured + v, &captured, sizeof captured);
    memcpy(a->q_stones + v, &stones, sizeof stones);
    memcpy(a->q_ladder + v, &ladder, sizeof ladder);

    /* The stones' codes. */
    lanes16 cv = load_lanes(C + v);
    lanes16 stone = (cv == one) | (cv == -one), empty = cv == zero;
    store_bytes(a->code[C_KIND] + p,
                ((cv == one) & one) | ((cv == -one) & two) | (empty & splat(3)));
    store_bytes(a->code[C_AGE] + p, stone & load_bytes(ages + v));
    lanes16 lv = load_lanes(L + v);
    lanes16 many_v = lv > eight;
    store_bytes(a->code[C_LIBS] + p, stone & ((many_v & eight) | (~many_v & lv)));

    /* Legality as is_legal decides it, where no lookup is needed. */
    lanes16 legal_v, lookup;
    if (legal->mask != NULL) {
        legal_v = load_bytes(legal->mask + p) != zero;
        lookup = zero;
    } else if (legal->over) {
        legal_v = lookup = zero;
    } else {
        lanes16 loc = splat(v) + (lanes16){0, 1, 2, 3, 4, 5, 6, 7};
        lanes16 open = loc != splat(b->ko_loc);
        lanes16 easy = (libs > zero) & (captured == zero) & splat(-legal->quiet_is_new);
        legal_v = open & easy;
        lookup = open & ~easy;
    }
    /* Left to point_codes: lookups, and legal moves that need counting, an eye test
     * (no empty neighbour) or ladder reads. The rest of the legal moves get their
     * codes here; illegal ones have none. */
    lanes16 todo = empty & (lookup | (legal_v & (slow | ladder | (nempty == zero))));
    store_bytes(a->todo + p, todo & one);
    lanes16 ok = empty & legal_v & ~todo;
    lanes16 cap7 = captured > splat(6);
    store_bytes(a->code[C_CAPTURE] + p, ok & (one + ((cap7 & splat(7)) | (~cap7 & captured))));
    lanes16 cap8 = stones > eight;
    store_bytes(a->code[C_SELF_ATARI] + p,
                ok & (libs == one) & ((cap8 & eight) | (~cap8 & stones)));
    store_bytes(a->code[C_LIBS_AFTER] + p, ok & libs);
    store_bytes(a->code[C_LADDER_CAPTURE] + p, zero);
    store_bytes(a->code[C_LADDER_ESCAPE] + p, zero);
    store_bytes(a->code[C_SENSIBLE] + p, ok & one);
    store_bytes(a->code[C_ONE] + p, one);
}

/* Every point's codes, LANES at a time: each row from its start in steps of LANES, its
 * last step ending at its end (overlapping the one before it: the same values again). */
static bool
codes_by_lanes(analysis *a, const legality *legal, const uint8_t *ages)
{
    const gb_board *b = a->b;
    const int n = b->size;
    if (n < LANES)
        return false;
    fill_lanes(a);
    for (int row = 0; row < n; row++) {
        for (int col = 0;; col += LANES) {
            if (col > n - LANES)
                col = n - LANES;
            codes_of_lanes(a, legal, ages, (gb_loc)((row + 1) * b->stride + col + 1),
                           row * n + col);
            if (col == n - LANES)
                break;
        }
    }
    return true;
}
#else
static bool
codes_by_lanes(analysis *a, const legality *legal, const uint8_t *ages)
{
    (void)a;
    (void)legal;
    (void)ages;
    return false;
}
#endif

/* One board's planes, a byte a value, plane k at out + k * points. */
static inline void
alphago_planes(analysis *a, const gb_stone_history *h, const legality *legal,
               gb_board *scratch, int planes, uint8_t *out)
{
    const gb_board *b = a->b;
    const int points = b->size * b->size;
    a->epoch = 0;
    memset(a->mark, 0, sizeof a->mark);
    memset(a->listed, 0, sizeof a->listed);
    uint8_t ages[GB_ARR_SIZE + LANES];
    stone_ages(b, h, ages);
    if (!codes_by_lanes(a, legal, ages))
        codes_one_by_one(a, ages);
    bool loaded = false; /* scratch holds b for ladder reads */
    /* The points left, found eight todo bytes at a time: a branch per point, taken at
     * random, cost more. */
#if (defined(__GNUC__) || defined(__clang__)) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memset(a->todo + points, 0, sizeof(uint64_t));
    for (int p0 = 0; p0 < points; p0 += 8) {
        uint64_t left; /* byte i, 0 or 1, at bit 8 i */
        memcpy(&left, a->todo + p0, sizeof left);
        for (; left != 0; left &= left - 1) {
            int p = p0 + __builtin_ctzll(left) / 8;
            point_codes(a, legal, scratch, &loaded, gb_board_loc(b, p), p);
        }
    }
#else
    for (int p = 0; p < points; p++) {
        if (a->todo[p])
            point_codes(a, legal, scratch, &loaded, gb_board_loc(b, p), p);
    }
#endif
    for (int k = 0; k < planes; k++) {
        const uint8_t *restrict code = a->code[plane_code[k].code];
        uint8_t value = plane_code[k].value;
        if (k == P_BLACK && b->to_play != GB_BLACK)
            value = 0;
        uint8_t *restrict plane = out + (int64_t)k * points;
        for (int p = 0; p < points; p++)
            plane[p] = code[p] == value;
    }
}

/* Starts loading what the planes of b read: the planes of the board before, written
 * meanwhile, evicted it (a batch's output is many times the cache), and the analysis
 * reads it in an order no hardware prefetcher follows. */
static void
prefetch_board(const gb_board *b, const gb_stone_history *h)
{
#if defined(__GNUC__) || defined(__clang__)
    /* Every field before the empty list (colours, strings, counts), and nempty. */
    const char *p = (const char *)b;
    for (size_t off = 0; off < offsetof(gb_board, empty); off += 64)
        __builtin_prefetch(p + off);
    for (size_t off = 0; off < sizeof b->nempty; off += 64)
        __builtin_prefetch((const char *)b->nempty + off);
    for (int k = 0; k < h->count; k++) {
        const char *then = (const char *)h->color[(h->latest - k) & (GB_HISTORY - 1)];
        for (size_t off = 0; off < sizeof h->color[0]; off += 64)
            __builtin_prefetch(then + off);
    }
#else
    (void)b;
    (void)h;
#endif
}

/* Batches whose float output is larger than this are streamed past the cache. */
#define STREAM_BYTES (4 << 20)

/* out[0 .. n) = bytes[0 .. n) as floats. With stream (a batch's output many times the
 * cache, not read again here) the stores bypass the cache where the CPU can: a cached
 * store first reads from memory the line it writes. A small batch stays cached for the
 * network that reads it next. */
static void
widen_f32(float *restrict out, const uint8_t *restrict bytes, int64_t n, bool stream)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; stream && i < n && ((uintptr_t)(out + i) & 15) != 0; i++)
        out[i] = (float)bytes[i];
    const __m128i zero = _mm_setzero_si128();
    for (; stream && i + 16 <= n; i += 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(bytes + i));
        __m128i lo = _mm_unpacklo_epi8(b, zero), hi = _mm_unpackhi_epi8(b, zero);
        _mm_stream_ps(out + i, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
        _mm_stream_ps(out + i + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
        _mm_stream_ps(out + i + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
        _mm_stream_ps(out + i + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
    }
#else
    (void)stream; /* no streaming stores here: plain ones */
#endif
    for (; i < n; i++)
        out[i] = (float)bytes[i];
}

void
gb_alphago_planes_write(const gb_board *const *boards,
                        const gb_stone_history *const *histories,
                        const gb_legal_source *legal, int64_t count, int set,
                        gb_board *scratch, void *out, int64_t stride_b, bool floats)
{
    const int planes = gb_features_count(set);
    const size_t elem = floats ? sizeof(float) : sizeof(uint8_t);
    const bool stream = floats && count * stride_b * (int64_t)sizeof(float) > STREAM_BYTES;
    analysis a;
    /* The lanes past a board's mailbox are read but never used: zeroed once. */
    memset(a.lane_color, 0, sizeof a.lane_color);
    memset(a.lane_head, 0, sizeof a.lane_head);
    memset(a.lane_libs, 0, sizeof a.lane_libs);
    memset(a.lane_stones, 0, sizeof a.lane_stones);
    memset(a.lane_nempty, 0, sizeof a.lane_nempty);
    /* Float planes are first written as bytes here, in the cache, then widened in one
     * sequential pass (floats written straight from the codes took 1.12 times as
     * long). Byte planes go straight into the caller's array. */
    uint8_t bytes[49 * GB_MAX_POINTS]; /* alphago49 has the most planes */
    for (int64_t i = 0; i < count; i++) {
        if (i + 1 < count)
            prefetch_board(boards[i + 1], histories[i + 1]);
        const int points = boards[i]->size * boards[i]->size;
        const int64_t values = (int64_t)planes * points;
        char *board_out = (char *)out + i * stride_b * (int64_t)elem;
        a.b = boards[i];
        const legality l = legality_of(legal, i, boards[i]);
        alphago_planes(&a, histories[i], &l, scratch, planes,
                       floats ? bytes : (uint8_t *)board_out);
        if (floats)
            widen_f32((float *)(void *)board_out, bytes, values, stream);
    }
#if defined(__SSE2__)
    if (stream)
        _mm_sfence(); /* the streamed stores are seen before the caller reads the planes */
#endif
}

