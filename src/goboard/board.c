/* board.c: strings as circular lists with head-only data, exact liberties, captures,
 * ko and superko, Tromp-Taylor area. See board.h for the contracts. */
#include "board.h"

#include <assert.h>
#include <string.h>

#include "zobrist.h"

#ifdef GB_PARANOID
#define GB_AFTER_MUTATION(b) assert(gb_board_check(b) == GB_OK)
#else
#define GB_AFTER_MUTATION(b) ((void)0)
#endif

static inline int
color_index(gb_color c)
{
    return c == GB_BLACK ? 0 : 1;
}

static inline bool
is_stone(gb_color c)
{
    return c == GB_BLACK || c == GB_WHITE;
}

/* ---- Empty-point list: O(1) add and remove, so playouts never scan the board ------- */

static inline void
empty_add(gb_board *b, gb_loc v)
{
    b->empty_idx[v] = b->num_empty;
    b->empty[b->num_empty++] = v;
}

static inline void
empty_remove(gb_board *b, gb_loc v)
{
    int16_t i = b->empty_idx[v];
    gb_loc last = b->empty[--b->num_empty];
    b->empty[i] = last;
    b->empty_idx[last] = i;
}

/* ---- Lifecycle ---------------------------------------------------------------------- */

int
gb_board_init(gb_board *b, int size)
{
    if (size < GB_MIN_SIZE || size > GB_MAX_SIZE)
        return GB_ERR_SIZE;
    memset(b, 0, sizeof *b);
    b->size = (int8_t)size;
    b->stride = (int16_t)(size + 1);
    b->to_play = GB_BLACK;
    b->ko_loc = GB_NULL_LOC;
    b->last_move = GB_NULL_LOC;
    b->adj[0] = (int16_t)-b->stride;
    b->adj[1] = -1;
    b->adj[2] = 1;
    b->adj[3] = b->stride;
    for (int i = 0; i < GB_ARR_SIZE; i++) {
        b->color[i] = GB_WALL;
        b->head[i] = GB_NULL_LOC;
    }
    for (int p = 0; p < size * size; p++) {
        gb_loc v = gb_board_loc(b, p);
        b->color[v] = GB_EMPTY;
        empty_add(b, v);
    }
    for (int p = 0; p < size * size; p++) {
        gb_loc v = gb_board_loc(b, p);
        for (int d = 0; d < 4; d++)
            b->nempty[v] = (uint8_t)(b->nempty[v] + (b->color[v + b->adj[d]] == GB_EMPTY));
    }
    return GB_OK;
}

/* ---- Strings -------------------------------------------------------------------------- */

/* True if the empty point e is a liberty of the string with head h. */
static inline bool
touches(const gb_board *b, gb_loc e, gb_loc h, int stride)
{
    return b->head[e - stride] == h || b->head[e - 1] == h || b->head[e + 1] == h ||
           b->head[e + stride] == h;
}

/* Joins the strings with heads x and y into one. The smaller list is relabelled, so a
 * stone changes head O(log n) times over a game. Liberties of the smaller string that
 * the larger lacks are added while relabelling: once a stone carries the new head, a
 * liberty it shares with a later stone of the same string is not counted again. */
static void
merge(gb_board *b, gb_loc x, gb_loc y)
{
    const int stride = b->stride;
    gb_loc big = b->stones[x] >= b->stones[y] ? x : y;
    gb_loc small = big == x ? y : x;
    int16_t libs = b->libs[big];
    gb_loc s = small;
    do {
        const gb_loc around[4] = {(gb_loc)(s - stride), (gb_loc)(s - 1), (gb_loc)(s + 1),
                                  (gb_loc)(s + stride)};
        for (int d = 0; d < 4; d++) {
            gb_loc e = around[d];
            if (b->color[e] == GB_EMPTY && !touches(b, e, big, stride))
                libs++;
        }
        b->head[s] = big;
        s = b->next[s];
    } while (s != small);
    b->libs[big] = libs;
    b->stones[big] = (int16_t)(b->stones[big] + b->stones[small]);
    /* Splice: big -> A... -> big and small -> B... -> small become big -> B... -> small
     * -> A... -> big by swapping the two successors. */
    gb_loc t = b->next[big];
    b->next[big] = b->next[small];
    b->next[small] = t;
}

/* Puts a stone of colour c on the empty loc v: takes one liberty from each neighbouring
 * string and joins the friendly ones. Fills heads with the distinct neighbouring strings
 * as they were before the move, for the caller's capture step. */
static void
place_stone(gb_board *b, gb_loc v, gb_color c, gb_loc heads[4])
{
    const int stride = b->stride;
    b->color[v] = c;
    b->hash ^= gb_zobrist_stone(c, v);
    empty_remove(b, v);
    b->head[v] = v;
    b->next[v] = v;
    b->stones[v] = 1;
    b->libs[v] = b->nempty[v];
    /* Wall entries are decremented too (cheaper than a branch); unsigned, they just wrap. */
    b->nempty[v - stride]--;
    b->nempty[v - 1]--;
    b->nempty[v + 1]--;
    b->nempty[v + stride]--;
    gb_distinct_neighbour_heads(b, v, stride, heads);
    for (int d = 0; d < 4; d++) {
        if (heads[d] != GB_NULL_LOC)
            b->libs[heads[d]]--;
    }
    for (int d = 0; d < 4; d++) {
        if (heads[d] != GB_NULL_LOC && b->color[heads[d]] == c)
            merge(b, heads[d], b->head[v]);
    }
}

/* Takes the string with head h off the board and gives each neighbouring string one
 * liberty per freed point. Returns the number of stones removed. */
static int
remove_string(gb_board *b, gb_loc h)
{
    const int stride = b->stride;
    gb_color c = b->color[h];
    int count = b->stones[h];
    gb_loc s = h;
    do {
        gb_loc nx = b->next[s];
        b->color[s] = GB_EMPTY;
        b->head[s] = GB_NULL_LOC;
        b->hash ^= gb_zobrist_stone(c, s);
        empty_add(b, s);
        b->nempty[s - stride]++;
        b->nempty[s - 1]++;
        b->nempty[s + 1]++;
        b->nempty[s + stride]++;
        gb_loc heads[4];
        gb_distinct_neighbour_heads(b, s, stride, heads);
        for (int d = 0; d < 4; d++) {
            /* Stones of the dying string still carry head h: skip them. */
            if (heads[d] != GB_NULL_LOC && heads[d] != h)
                b->libs[heads[d]]++;
        }
        s = nx;
    } while (s != h);
    return count;
}

/* XOR of the keys of every stone of the string with head h. */
static uint64_t
string_hash(const gb_board *b, gb_loc h)
{
    uint64_t x = 0;
    gb_loc s = h;
    do {
        x ^= gb_zobrist_stone(b->color[s], s);
        s = b->next[s];
    } while (s != h);
    return x;
}

/* XOR of the keys of the distinct strings among heads[0..n): a string touched from two
 * sides appears twice and must be XORed out once. */
static uint64_t
strings_hash(const gb_board *b, const gb_loc *heads, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= heads[j] == heads[i];
        if (!dup)
            x ^= string_hash(b, heads[i]);
    }
    return x;
}

/* ---- Setup ---------------------------------------------------------------------------- */

int
gb_board_setup(gb_board *b, const int8_t *stones, gb_color to_play)
{
    gb_board t;
    if (to_play != GB_BLACK && to_play != GB_WHITE)
        return GB_ERR_BAD_COLOR;
    gb_board_init(&t, b->size);
    int n = b->size * b->size;
    for (int p = 0; p < n; p++) {
        if (stones[p] != GB_EMPTY && stones[p] != GB_BLACK && stones[p] != GB_WHITE)
            return GB_ERR_BAD_COLOR;
    }
    for (int p = 0; p < n; p++) {
        gb_loc heads[4];
        if (stones[p] != GB_EMPTY)
            place_stone(&t, gb_board_loc(&t, p), stones[p], heads);
    }
    for (int p = 0; p < n; p++) {
        gb_loc v = gb_board_loc(&t, p);
        if (t.head[v] == v && t.libs[v] == 0)
            return GB_ERR_NO_LIBERTY;
    }
    t.to_play = to_play;
    *b = t;
    GB_AFTER_MUTATION(b);
    return GB_OK;
}

/* ---- Queries -------------------------------------------------------------------------- */

static uint64_t
superko_key(uint64_t hash, gb_color to_play, int ko_rule)
{
    if (ko_rule == GB_KO_SITUATIONAL && to_play == GB_WHITE)
        hash ^= gb_zobrist_keys[GB_ZOBRIST_WHITE_TO_MOVE];
    return hash;
}

uint64_t
gb_board_superko_key(const gb_board *b, int ko_rule)
{
    return superko_key(b->hash, b->to_play, ko_rule);
}

uint64_t
gb_board_situation_hash(const gb_board *b)
{
    uint64_t h = b->hash;
    if (b->to_play == GB_WHITE)
        h ^= gb_zobrist_keys[GB_ZOBRIST_WHITE_TO_MOVE];
    if (b->ko_loc != GB_NULL_LOC)
        h ^= gb_zobrist_ko(b->ko_loc);
    return h;
}

/* Legality of the empty, on-board, non-ko point v for the side to move, superko aside:
 * GB_OK or GB_ERR_SUICIDE. With GB_OK and want_key, *key is the superko key of the
 * position after the move (which superko looks up in the history). */
static int
move_legality_key(const gb_board *b, gb_loc v, const gb_rules *rules, bool want_key,
                  uint64_t *key)
{
    gb_color c = b->to_play;
    bool has_liberty = b->nempty[v] > 0, has_friend = false;
    gb_loc captured[4], friends[4];
    int ncaptured = 0, nfriends = 0;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(v + b->adj[d]);
        gb_color nc = b->color[nb];
        if (nc == c) {
            has_friend = true;
            if (b->libs[b->head[nb]] > 1)
                has_liberty = true;
            friends[nfriends++] = b->head[nb];
        } else if (nc == -c && b->libs[b->head[nb]] == 1) {
            captured[ncaptured++] = b->head[nb];
        }
    }
    bool suicide = !has_liberty && ncaptured == 0;
    if (suicide && (!has_friend || !rules->suicide))
        return GB_ERR_SUICIDE;
    if (!want_key)
        return GB_OK;

    /* The hash after the move, without making it. */
    uint64_t h = b->hash ^ gb_zobrist_stone(c, v) ^ strings_hash(b, captured, ncaptured);
    if (suicide)
        h ^= gb_zobrist_stone(c, v) ^ strings_hash(b, friends, nfriends);
    *key = superko_key(h, (gb_color)-c, rules->ko);
    return GB_OK;
}

/* For a point with an empty neighbour (so no suicide): true if the move captures
 * nothing. False means "ask move_legality_key", which handles captures. */
static inline bool
quiet_move(const gb_board *b, gb_loc v)
{
    /* Colour and liberties packed into one compare: a branch on the colour alone is a
     * coin flip, and gcc splits `&&` into two branches. Every loc has a head entry. */
    const uint32_t capture = (uint32_t)(uint8_t)-b->to_play << 16 | 1;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(v + b->adj[d]);
        if (((uint32_t)(uint8_t)b->color[nb] << 16 | (uint16_t)b->libs[b->head[nb]]) ==
            capture)
            return false;
    }
    return true;
}

/* Legality of the empty, on-board, non-ko point v for the side to move. */
static int
empty_point_legality(const gb_board *b, gb_loc v, const gb_rules *rules,
                     const gb_keyset *history)
{
    bool superko = rules->ko != GB_KO_SIMPLE && history != NULL;
    /* Fast path: with an empty neighbour the move is no suicide, and under simple ko
     * nothing else can forbid it; nor can superko a quiet move that cannot repeat. */
    if (b->nempty[v] > 0 && (!superko || (gb_board_quiet_is_new(b, rules, history) &&
                                          quiet_move(b, v))))
        return GB_OK;
    uint64_t key = 0;
    int rc = move_legality_key(b, v, rules, superko, &key);
    if (rc != GB_OK || !superko)
        return rc;
    return gb_keyset_contains(history, key) ? GB_ERR_SUPERKO : GB_OK;
}

int
gb_board_legality(const gb_board *b, gb_loc v, const gb_rules *rules,
                  const gb_keyset *history)
{
    if (v != GB_PASS_LOC && (v <= 0 || v >= GB_ARR_SIZE || b->color[v] == GB_WALL))
        return GB_ERR_OFF_BOARD;
    if (gb_board_is_over(b))
        return GB_ERR_GAME_OVER;
    if (v == GB_PASS_LOC)
        return GB_OK;
    if (b->color[v] != GB_EMPTY)
        return GB_ERR_OCCUPIED;
    if (v == b->ko_loc)
        return GB_ERR_KO;
    return empty_point_legality(b, v, rules, history);
}

/* The one liberty of the string at head h, which is in atari. */
static gb_loc
atari_liberty(const gb_board *b, gb_loc h)
{
    gb_loc s = h;
    do {
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            if (b->color[e] == GB_EMPTY)
                return e;
        }
        s = b->next[s];
    } while (s != h);
    assert(false); /* a string in atari has a liberty */
    return GB_NULL_LOC;
}

/* The common case is decided without a branch: a point is surely legal when it is
 * empty, not the ko point, has an empty neighbour and (with superko) is a quiet move
 * that cannot repeat a position (gb_board_quiet_is_new). Whether a point holds a
 * stone is a coin flip to the branch predictor, and the features of a batch of boards
 * ask for a mask per board. Only the rest branch; their superko keys are computed and
 * their slots prefetched first, so the lookups (a cold slot array per board in a
 * batch) wait for memory together. */
void
gb_board_legal_mask(const gb_board *b, const gb_rules *rules, const gb_keyset *history,
                    uint8_t *out)
{
    const int n = b->size, stride = b->stride;
    if (gb_board_is_over(b)) {
        memset(out, 0, (size_t)(n * n + 1));
        return;
    }
    const bool superko = rules->ko != GB_KO_SIMPLE && history != NULL;
    const bool quiet_is_new = gb_board_quiet_is_new(b, rules, history);
    /* Under superko a move next to an opponent string in atari captures, and is not
     * quiet: mark the one liberty of each such string, found from the string's head
     * (rare, so the test predicts well), rather than look at four neighbours of every
     * point. Under simple ko an empty neighbour is enough. */
    uint8_t captures[GB_ARR_SIZE];
    memset(captures, 0, sizeof captures);
    const gb_color opp = (gb_color)-b->to_play;
    for (int row = 0; row < n && superko; row++) {
        for (int col = 0; col < n; col++) {
            gb_loc h = (gb_loc)((row + 1) * stride + col + 1);
            /* Off a head, libs is stale but initialised; the head test discards it. */
            if ((b->head[h] == h) & (b->libs[h] == 1) & (b->color[h] == opp))
                captures[atari_liberty(b, h)] = 1;
        }
    }
    uint64_t keys[GB_MAX_POINTS];
    int16_t points[GB_MAX_POINTS];
    int m = 0; /* points waiting for a superko lookup */
    for (int row = 0, p = 0; row < n; row++) {
        for (int col = 0; col < n; col++, p++) {
            gb_loc v = (gb_loc)((row + 1) * stride + col + 1);
            bool open = (b->color[v] == GB_EMPTY) & (v != b->ko_loc);
            bool sure = open & (b->nempty[v] > 0) & !captures[v] & quiet_is_new;
            out[p] = sure;
            if (!open | sure)
                continue;
            /* A quiet move on a board with a capture to undo, a capture, or a point
             * without an empty neighbour (suicide is possible). */
            int rc = move_legality_key(b, v, rules, superko, &keys[m]);
            if (rc != GB_OK)
                continue;
            if (!superko) {
                out[p] = 1;
                continue;
            }
            points[m] = (int16_t)p;
            gb_keyset_prefetch(history, keys[m]);
            m++;
        }
    }
    for (int i = 0; i < m; i++)
        out[points[i]] = !gb_keyset_contains(history, keys[i]);
    out[n * n] = 1;
}

int
gb_board_legal_points(const gb_board *b, const gb_rules *rules, const gb_keyset *history,
                      int16_t *out)
{
    /* The mask, read in order: one implementation of whole-board legality. */
    uint8_t mask[GB_MAX_POINTS + 1];
    gb_board_legal_mask(b, rules, history, mask);
    int count = 0;
    for (int p = 0; p <= b->size * b->size; p++) {
        out[count] = (int16_t)p;
        count += mask[p];
    }
    return count;
}

/* Owner of the empty region around v (+1 black, -1 white, 0 neutral), found by flood
 * fill; writes it for every point of the region and marks them seen. */
static int8_t
fill_region(const gb_board *b, gb_loc v, bool *seen, int8_t *out)
{
    gb_loc stack[GB_MAX_POINTS], region[GB_MAX_POINTS];
    int top = 0, nregion = 0;
    bool reach_black = false, reach_white = false;
    stack[top++] = v;
    seen[v] = true;
    while (top > 0) {
        gb_loc e = stack[--top];
        region[nregion++] = e;
        for (int d = 0; d < 4; d++) {
            gb_loc nb = (gb_loc)(e + b->adj[d]);
            gb_color nc = b->color[nb];
            reach_black |= nc == GB_BLACK;
            reach_white |= nc == GB_WHITE;
            if (nc == GB_EMPTY && !seen[nb]) {
                seen[nb] = true;
                stack[top++] = nb;
            }
        }
    }
    int8_t owner = reach_black == reach_white ? 0 : (reach_black ? 1 : -1);
    for (int i = 0; i < nregion; i++)
        out[gb_board_point(b, region[i])] = owner;
    return owner;
}

void
gb_board_ownership(const gb_board *b, int8_t *out)
{
    bool seen[GB_ARR_SIZE];
    memset(seen, 0, sizeof seen);
    const int n = b->size, stride = b->stride;
    for (int row = 0, p = 0; row < n; row++) {
        for (int col = 0; col < n; col++, p++) {
            gb_loc v = (gb_loc)((row + 1) * stride + col + 1);
            gb_color c = b->color[v];
            if (c != GB_EMPTY) {
                out[p] = c;
            } else if (b->nempty[v] == 0) {
                /* A one-point region, as most are after a playout: no flood fill. */
                int any_black = 0, any_white = 0;
                for (int d = 0; d < 4; d++) {
                    gb_color nc = b->color[v + b->adj[d]];
                    any_black |= nc == GB_BLACK;
                    any_white |= nc == GB_WHITE;
                }
                out[p] = (int8_t)(any_black == any_white ? 0 : (any_black ? 1 : -1));
            } else if (!seen[v]) {
                fill_region(b, v, seen, out);
            }
        }
    }
}

double
gb_board_score(const gb_board *b, double komi)
{
    int8_t own[GB_MAX_POINTS];
    gb_board_ownership(b, own);
    int area = 0;
    for (int p = 0; p < b->size * b->size; p++)
        area += own[p];
    return area - komi;
}

/* ---- Mutations ------------------------------------------------------------------------ */

void
gb_board_play_unchecked(gb_board *b, gb_loc v)
{
    gb_color c = b->to_play;
    b->to_play = (gb_color)-c;
    b->move_number++;
    b->last_move = v;
    b->ko_loc = GB_NULL_LOC;
    if (v == GB_PASS_LOC) {
        b->passes++;
        return;
    }
    b->passes = 0;
    gb_loc heads[4];
    place_stone(b, v, c, heads);

    int captured = 0;
    gb_loc captured_at = GB_NULL_LOC;
    for (int d = 0; d < 4; d++) {
        gb_loc h = heads[d];
        if (h != GB_NULL_LOC && b->color[h] == -c && b->libs[h] == 0) {
            captured += remove_string(b, h);
            captured_at = h;
        }
    }
    b->captures[color_index(c)] = (int16_t)(b->captures[color_index(c)] + captured);

    gb_loc h = b->head[v];
    if (b->libs[h] == 0) {
        /* Multi-stone suicide: the mover's own string goes, to the opponent's credit. */
        int lost = remove_string(b, h);
        b->captures[color_index(-c)] = (int16_t)(b->captures[color_index(-c)] + lost);
    } else if (captured == 1 && b->stones[h] == 1 && b->libs[h] == 1) {
        b->ko_loc = captured_at;
    }
    GB_AFTER_MUTATION(b);
}

int
gb_board_play(gb_board *b, gb_loc v, const gb_rules *rules, const gb_keyset *history)
{
    int rc = gb_board_legality(b, v, rules, history);
    if (rc == GB_OK)
        gb_board_play_unchecked(b, v);
    return rc;
}

int
gb_board_resign(gb_board *b)
{
    if (gb_board_is_over(b))
        return GB_ERR_GAME_OVER;
    b->resigned = b->to_play;
    return GB_OK;
}

int
gb_board_set_to_play(gb_board *b, gb_color to_play)
{
    if (to_play != GB_BLACK && to_play != GB_WHITE)
        return GB_ERR_BAD_COLOR;
    if (gb_board_is_over(b))
        return GB_ERR_GAME_OVER;
    if (to_play == b->to_play)
        return GB_OK;
    b->to_play = to_play;
    b->passes = 0;
    b->ko_loc = GB_NULL_LOC;
    b->last_move = GB_NULL_LOC;
    GB_AFTER_MUTATION(b);
    return GB_OK;
}
