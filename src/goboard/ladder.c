/* ladder.c: ladder reading (see ladder.h for the rules of a read).
 *
 * A read plays its moves in place on the work board and takes them back from an undo
 * journal: copying a whole board per move (about 6 KB) cost more than the reading. */
#include "ladder.h"

#include <assert.h>
#include <string.h>

/* The journal keeps the old value of every 16-bit word of the work board a move writes,
 * as (word index << 16 | old word); restoring them newest first gives the board back
 * bit for bit. Byte fields (color, nempty) are journalled by their whole word. */
_Static_assert(sizeof(gb_board) / 2 <= 0x10000, "board words must fit 16-bit indices");

/* Most journal entries one move can need: its own point and four neighbours (5 words,
 * 4 nempty, 4 libs), three merges (4 words each, plus one head per relabelled stone),
 * and per captured stone its colour, head, 4 nempty and 4 libs; at most every point
 * relabelled and every point captured. */
#define MOVE_WORDS (13 + 12 + GB_MAX_POINTS + 10 * GB_MAX_POINTS)

/* What a move changed besides the journalled words. */
typedef struct frame {
    int32_t mark; /* journal length before the move */
    gb_loc ko_loc;
    gb_loc last_move;
    int8_t to_play;
} frame;

typedef struct reader {
    gb_board *b;      /* the work board: the position being read */
    uint32_t *log;    /* the undo journal, in the scratch after the work board */
    int32_t nlog;     /* entries used */
    int32_t cap;      /* entries available */
    int nplayed;      /* moves on the board now, frames[0..nplayed) */
    int nodes;        /* moves played so far */
    bool stopped;     /* a cap was hit: the read's answer is "no ladder" */
    frame frames[GB_LADDER_DEPTH];
} reader;

static void
reader_init(reader *r, gb_board *scratch)
{
    r->b = scratch;
    r->log = (uint32_t *)(void *)(scratch + 1);
    r->nlog = 0;
    r->cap = (int32_t)((GB_LADDER_DEPTH - 1) * sizeof(gb_board) / sizeof(uint32_t));
    r->nplayed = 0;
    r->nodes = 0;
    r->stopped = false;
}

/* Where one move's entries go: the work board and the next free journal entry. Kept in
 * a local while the move is played (the journal's length lives in the reader, and a
 * byte store to the board may alias anything, so the compiler would reload it). */
typedef struct journal {
    gb_board *b;
    uint32_t *at;
} journal;

/* Journals the 16-bit word holding the byte or word at p, a field of the work board. */
static inline void
save_word(journal *j, const void *p)
{
    size_t offset = (size_t)((const char *)p - (const char *)j->b) & ~(size_t)1;
    uint16_t old;
    memcpy(&old, (const char *)j->b + offset, sizeof old);
    *j->at++ = (uint32_t)(offset / 2) << 16 | old;
}

static inline void
set16(journal *j, int16_t *p, int value)
{
    save_word(j, p);
    *p = (int16_t)value;
}

static inline void
set8(journal *j, int8_t *p, int value)
{
    save_word(j, p);
    *p = (int8_t)value;
}

static inline void
add_nempty(journal *j, uint8_t *p, int delta)
{
    save_word(j, p);
    *p = (uint8_t)(*p + delta);
}

/* The work board's gb_board_play_unchecked, for fields a read looks at (colours,
 * strings, nempty, turn, ko, last move): same heads, same lists, same counts. The
 * hash, empty list, capture and move counters keep their values from the start of the
 * read; the move is legal under the read's rules (simple ko, no suicide). */
static inline void
merge_logged(journal *j, gb_loc x, gb_loc y)
{
    gb_board *b = j->b;
    const int stride = b->stride;
    gb_loc big = b->stones[x] >= b->stones[y] ? x : y;
    gb_loc small = big == x ? y : x;
    int libs = b->libs[big];
    gb_loc s = small;
    do {
        const gb_loc around[4] = {(gb_loc)(s - stride), (gb_loc)(s - 1), (gb_loc)(s + 1),
                                  (gb_loc)(s + stride)};
        for (int d = 0; d < 4; d++) {
            gb_loc e = around[d];
            if (b->color[e] == GB_EMPTY && b->head[e - stride] != big &&
                b->head[e - 1] != big && b->head[e + 1] != big && b->head[e + stride] != big)
                libs++;
        }
        set16(j, &b->head[s], big);
        s = b->next[s];
    } while (s != small);
    int stones = b->stones[big] + b->stones[small];
    gb_loc next_big = b->next[big], next_small = b->next[small];
    set16(j, &b->libs[big], libs);
    set16(j, &b->stones[big], stones);
    set16(j, &b->next[big], next_small);
    set16(j, &b->next[small], next_big);
}

static inline int
remove_logged(journal *j, gb_loc h)
{
    gb_board *b = j->b;
    const int stride = b->stride;
    int count = b->stones[h];
    gb_loc s = h;
    do {
        gb_loc nx = b->next[s];
        set8(j, &b->color[s], GB_EMPTY);
        set16(j, &b->head[s], GB_NULL_LOC);
        add_nempty(j, &b->nempty[s - stride], 1);
        add_nempty(j, &b->nempty[s - 1], 1);
        add_nempty(j, &b->nempty[s + 1], 1);
        add_nempty(j, &b->nempty[s + stride], 1);
        gb_loc heads[4];
        gb_distinct_neighbour_heads(b, s, stride, heads);
        for (int d = 0; d < 4; d++) {
            if (heads[d] != GB_NULL_LOC && heads[d] != h)
                set16(j, &b->libs[heads[d]], b->libs[heads[d]] + 1);
        }
        s = nx;
    } while (s != h);
    return count;
}

static void
play_logged(reader *r, gb_loc v)
{
    gb_board *b = r->b;
    journal j = {b, r->log + r->nlog};
    const int stride = b->stride;
    const gb_color c = b->to_play;
    frame *f = &r->frames[r->nplayed++];
    f->mark = r->nlog;
    f->ko_loc = b->ko_loc;
    f->last_move = b->last_move;
    f->to_play = c;
    b->to_play = (gb_color)-c;
    b->last_move = v;
    b->ko_loc = GB_NULL_LOC;

    gb_loc heads[4];
    gb_distinct_neighbour_heads(b, v, stride, heads);
    set8(&j, &b->color[v], c);
    set16(&j, &b->head[v], v);
    set16(&j, &b->next[v], v);
    set16(&j, &b->stones[v], 1);
    set16(&j, &b->libs[v], b->nempty[v]);
    add_nempty(&j, &b->nempty[v - stride], -1);
    add_nempty(&j, &b->nempty[v - 1], -1);
    add_nempty(&j, &b->nempty[v + 1], -1);
    add_nempty(&j, &b->nempty[v + stride], -1);
    for (int d = 0; d < 4; d++) {
        if (heads[d] != GB_NULL_LOC)
            set16(&j, &b->libs[heads[d]], b->libs[heads[d]] - 1);
    }
    for (int d = 0; d < 4; d++) {
        if (heads[d] != GB_NULL_LOC && b->color[heads[d]] == c)
            merge_logged(&j, heads[d], b->head[v]);
    }
    int captured = 0;
    gb_loc captured_at = GB_NULL_LOC;
    for (int d = 0; d < 4; d++) {
        gb_loc h = heads[d];
        if (h != GB_NULL_LOC && b->color[h] == -c && b->libs[h] == 0) {
            captured += remove_logged(&j, h);
            captured_at = h;
        }
    }
    gb_loc h = b->head[v];
    assert(b->libs[h] > 0);
    if (captured == 1 && b->stones[h] == 1 && b->libs[h] == 1)
        b->ko_loc = captured_at;
    r->nlog = (int32_t)(j.at - r->log);
}

/* Takes back the last move played. */
static void
undo(reader *r)
{
    gb_board *b = r->b;
    const frame *f = &r->frames[--r->nplayed];
    const uint32_t *log = r->log;
    const int32_t mark = f->mark;
    for (int32_t i = r->nlog - 1; i >= mark; i--) {
        uint32_t e = log[i];
        uint16_t old = (uint16_t)e;
        memcpy((char *)b + 2 * (size_t)(e >> 16), &old, sizeof old);
    }
    r->nlog = mark;
    b->ko_loc = f->ko_loc;
    b->last_move = f->last_move;
    b->to_play = f->to_play;
}

/* gb_board_legality(b, v, rules, NULL) == GB_OK under simple ko without suicide, for a
 * v other than pass (reads never pass), without the call and the superko branches. */
static inline bool
read_legal(const gb_board *b, gb_loc v)
{
    if (v <= 0 || v >= GB_ARR_SIZE || b->color[v] != GB_EMPTY || v == b->ko_loc ||
        gb_board_is_over(b))
        return false;
    if (b->nempty[v] > 0)
        return true;
    const gb_color c = b->to_play;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(v + b->adj[d]);
        int libs = b->libs[b->head[nb]];
        if ((b->color[nb] == c && libs > 1) || (b->color[nb] == -c && libs == 1))
            return true;
    }
    return false;
}

/* Plays loc on the work board; false (nothing played) if illegal or a cap is hit. */
static bool
try_play(reader *r, int depth, gb_loc loc)
{
    assert(loc != GB_PASS_LOC);
    assert(read_legal(r->b, loc) ==
           (gb_board_legality(r->b, loc, &(const gb_rules){GB_KO_SIMPLE, 0}, NULL) == GB_OK));
    if (!read_legal(r->b, loc))
        return false;
    /* The journal cap is a safety net only: a read's live path of at most
     * GB_LADDER_DEPTH moves relabels at most GB_MAX_POINTS heads per move and captures
     * at most GB_MAX_POINTS + GB_LADDER_DEPTH stones, far below the room it has. */
    if (r->nodes >= GB_LADDER_NODES || depth >= GB_LADDER_DEPTH ||
        r->cap - r->nlog < MOVE_WORDS) {
        r->stopped = true;
        return false;
    }
    r->nodes++;
    play_logged(r, loc);
    return true;
}

/* Up to max liberties of the string with head h, ascending; returns how many. */
static int
string_liberties(const gb_board *b, gb_loc h, gb_loc *out, int max)
{
    int n = 0;
    gb_loc s = h;
    do {
        /* Most stones of a long string have no empty neighbour. */
        for (int d = 0; d < 4 && b->nempty[s] > 0; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            if (b->color[e] != GB_EMPTY)
                continue;
            int i = 0;
            while (i < n && out[i] != e)
                i++;
            if (i == n && n < max) {
                /* Insertion keeps the list sorted. */
                int j = n++;
                while (j > 0 && out[j - 1] > e) {
                    out[j] = out[j - 1];
                    j--;
                }
                out[j] = e;
            }
        }
        s = b->next[s];
    } while (s != h && n < max);
    return n;
}

/* The liberties, ascending, of the string at t, which has 2: around the last move
 * first (in a ladder the defender's extension, where the new liberties are), then by
 * a walk of the string. Returns how many were found. */
static int
two_liberties(const gb_board *b, gb_loc t, gb_loc libs[2])
{
    const gb_loc last = b->last_move;
    int n = 0;
    if (last != GB_PASS_LOC && last != GB_NULL_LOC && b->head[last] == b->head[t]) {
        for (int d = 0; d < 4 && n < 2; d++) {
            gb_loc e = (gb_loc)(last + b->adj[d]);
            if (b->color[e] == GB_EMPTY)
                libs[n++] = e;
        }
        if (n == 2) {
            if (libs[0] > libs[1]) {
                gb_loc x = libs[0];
                libs[0] = libs[1];
                libs[1] = x;
            }
            return 2;
        }
    }
    return string_liberties(b, b->head[t], libs, 2);
}

static int
libs_of(const gb_board *b, gb_loc stone)
{
    return b->libs[b->head[stone]];
}

static bool defend(reader *r, int depth, gb_loc target, gb_loc lib);

/* True if, after the attacker plays a, the defender's extension at e (a and e being the
 * two liberties of the string at t) surely leaves 3 or more liberties: e's empty
 * neighbours and the liberties of the other defender strings at e, a and e excluded,
 * already make 3. Captures could only add more, so such an atari never works and is
 * not played: most candidate ladders end here without a board copy. */
static bool
surely_escapes(const gb_board *b, gb_loc t, gb_loc a, gb_loc e)
{
    /* Three empty neighbours of e besides a settle it without a look at them. */
    int near_a = (a == e - b->stride) | (a == e - 1) | (a == e + 1) | (a == e + b->stride);
    if (b->nempty[e] - near_a >= 3)
        return true;
    /* With no other string of the defender's next to e, those are all there is. */
    const gb_color c = b->color[t];
    const gb_loc th = b->head[t];
    bool friends = false;
    for (int d = 0; d < 4; d++) {
        gb_loc nb = (gb_loc)(e + b->adj[d]);
        friends |= (b->color[nb] == c) & (b->head[nb] != th);
    }
    if (!friends)
        return false;
    gb_loc found[3];
    int n = 0;
    for (int d = 0; d < 4 && n < 3; d++) {
        gb_loc nb = (gb_loc)(e + b->adj[d]);
        gb_loc s = nb, h = b->head[nb];
        bool friend = b->color[nb] == c && h != th;
        if (b->color[nb] != GB_EMPTY && !friend)
            continue;
        /* Five liberties leave three besides a and e: no need to walk the string. */
        if (friend && b->libs[h] >= 5)
            return true;
        /* An empty neighbour counts itself; a friendly string, its liberties. */
        do {
            for (int k = friend ? (b->nempty[s] > 0 ? 0 : 5) : 4; k < 5 && n < 3; k++) {
                gb_loc l = k == 4 ? s : (gb_loc)(s + b->adj[k]);
                if (b->color[l] != GB_EMPTY || l == a || l == e)
                    continue;
                bool dup = false;
                for (int i = 0; i < n; i++)
                    dup |= found[i] == l;
                if (!dup)
                    found[n++] = l;
            }
            s = friend ? b->next[s] : nb;
        } while (s != nb && n < 3);
    }
    return n >= 3;
}

/* Attacker to move, target on 2 liberties: true if some atari captures it. */
static bool
attack(reader *r, int depth, gb_loc target)
{
    const gb_board *b = r->b;
    gb_loc libs[2];
    int n = two_liberties(b, target, libs);
    for (int i = 0; i < n; i++) {
        if (n == 2 && surely_escapes(b, target, libs[i], libs[1 - i]))
            continue;
        if (!try_play(r, depth, libs[i])) {
            if (r->stopped)
                return false;
            continue;
        }
        /* In atari after filling one of its two liberties, the target keeps the other. */
        bool caught = libs_of(b, target) == 1 &&
                      !defend(r, depth + 1, target, n == 2 ? libs[1 - i] : GB_NULL_LOC);
        undo(r);
        if (caught)
            return !r->stopped;
        if (r->stopped)
            return false;
    }
    return false;
}

/* Adds l to the set found[0..*n) unless it is `except` or there already; true once the
 * set holds 3 (all a read needs to know). */
static inline bool
add_liberty(gb_loc *found, int *n, gb_loc l, gb_loc except)
{
    for (int i = 0; i < *n; i++) {
        if (found[i] == l)
            return false;
    }
    if (l != except)
        found[(*n)++] = l;
    return *n >= 3;
}

/* Liberties, capped at 3, of the string at t after its owner plays the empty point v,
 * counted without playing: the strings v joins, and the stones v captures that touch
 * them. Below 1 when the move would be suicide; a move that neither joins t nor
 * captures next to it leaves t as it was. */
static int
target_libs_after(const gb_board *b, gb_loc v, gb_loc t)
{
    const gb_color c = b->color[t];
    gb_loc joined[5], captured[4], found[3];
    int nj = 0, nc = 0, n = 0;
    bool joins = false;
    for (int d = 0; d < 4; d++) {
        gb_loc e = (gb_loc)(v + b->adj[d]);
        gb_loc h = b->head[e];
        if (b->color[e] == c) {
            bool dup = false;
            for (int i = 0; i < nj; i++)
                dup |= joined[i] == h;
            if (!dup)
                joined[nj++] = h;
            joins |= h == b->head[t];
        } else if (b->color[e] == -c && b->libs[h] == 1) {
            bool dup = false;
            for (int i = 0; i < nc; i++)
                dup |= captured[i] == h;
            if (!dup)
                captured[nc++] = h;
        }
    }
    const gb_loc th = b->head[t];
    if (!joins) {
        /* v is not a liberty of t: t keeps its own and gains the captured stones that
         * touch it (stones, so never among those it has). */
        int libs = b->libs[th];
        for (int i = 0; i < nc && libs < 3; i++) {
            gb_loc s = captured[i];
            do {
                bool touches = false;
                for (int d = 0; d < 4; d++)
                    touches |= b->head[s + b->adj[d]] == th;
                libs += touches;
                s = b->next[s];
            } while (s != captured[i] && libs < 3);
        }
        return libs < 3 ? libs : 3;
    }
    for (int d = 0; d < 4; d++) {
        gb_loc e = (gb_loc)(v + b->adj[d]);
        if (b->color[e] == GB_EMPTY && add_liberty(found, &n, e, v))
            return 3;
    }
    for (int i = 0; i < nj; i++) {
        /* A joined string in atari breathes only at v: nothing to add. In a ladder
         * that is the defender's whole string, so this skips the longest walk. */
        if (b->libs[joined[i]] == 1)
            continue;
        gb_loc s = joined[i];
        do {
            for (int d = 0; d < 4; d++) {
                gb_loc e = (gb_loc)(s + b->adj[d]);
                if (b->color[e] == GB_EMPTY && add_liberty(found, &n, e, v))
                    return 3;
            }
            s = b->next[s];
        } while (s != joined[i]);
    }
    for (int i = 0; i < nc; i++) {
        gb_loc s = captured[i];
        do {
            bool touches = false;
            for (int d = 0; d < 4 && !touches; d++) {
                gb_loc e = (gb_loc)(s + b->adj[d]);
                touches = e == v;
                for (int j = 0; j < nj && !touches; j++)
                    touches = b->color[e] == c && b->head[e] == joined[j];
            }
            if (touches && add_liberty(found, &n, s, v))
                return 3;
            s = b->next[s];
        } while (s != captured[i]);
    }
    return n;
}

/* Adds loc to the sorted set cand[0..*n). */
static void
add_candidate(gb_loc *cand, int *n, gb_loc loc)
{
    int i = 0;
    while (i < *n && cand[i] < loc)
        i++;
    if (i < *n && cand[i] == loc)
        return;
    memmove(cand + i + 1, cand + i, (size_t)(*n - i) * sizeof *cand);
    cand[i] = loc;
    (*n)++;
}

/* Defender to move, target in atari: true if some move saves it. lib is the target's
 * liberty when the caller knows it, else GB_NULL_LOC. */
static bool
defend(reader *r, int depth, gb_loc target, gb_loc lib)
{
    const gb_board *b = r->b;
    gb_loc cand[GB_MAX_POINTS]; /* distinct empty points: never more than the board */
    int n = 0;
    gb_loc h = b->head[target];
    gb_color attacker = (gb_color)-b->color[target];
    if (lib != GB_NULL_LOC)
        cand[0] = lib;
    else
        string_liberties(b, h, cand, 1);
    n = 1;
    /* The liberty of every attacker string in atari that touches the target. Colour
     * and liberties are packed into one key and compared once: a branch on the colour
     * alone is a coin flip, and the compiler splits a plain `&&` (or `&`) into two
     * branches. Every loc has a head entry (GB_NULL_LOC's for no stone). */
    const uint32_t in_atari = (uint32_t)(uint8_t)attacker << 16 | 1;
    gb_loc s = h;
    do {
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            uint32_t key = (uint32_t)(uint8_t)b->color[e] << 16 |
                           (uint16_t)b->libs[b->head[e]];
            if (key == in_atari) {
                gb_loc lib;
                string_liberties(b, b->head[e], &lib, 1);
                add_candidate(cand, &n, lib);
            }
        }
        s = b->next[s];
    } while (s != h);
    for (int i = 0; i < n; i++) {
        /* Counted without playing: only a move leaving exactly 2 liberties needs the
         * position after it. */
        if (cand[i] == b->ko_loc)
            continue;
        int libs = target_libs_after(b, cand[i], target);
        if (libs >= 3)
            return true;
        if (libs < 2)
            continue;
        if (!try_play(r, depth, cand[i])) {
            if (r->stopped)
                return false;
            continue;
        }
        bool caught = attack(r, depth + 1, target);
        undo(r);
        if (r->stopped)
            return false;
        if (!caught)
            return true;
    }
    return false;
}

void
gb_ladder_load(gb_board *scratch, const gb_board *b)
{
    memcpy(scratch, b, sizeof *scratch);
}

bool
gb_ladder_captures(gb_board *scratch, gb_loc move, gb_loc target)
{
    const gb_board *b = scratch;
    gb_loc libs[2];
    gb_loc other = GB_NULL_LOC; /* the target's liberty besides move */
    if (string_liberties(b, b->head[target], libs, 2) == 2) {
        other = libs[0] == move ? libs[1] : libs[0];
        if (surely_escapes(b, target, move, other))
            return false;
    }
    reader r;
    reader_init(&r, scratch);
    const gb_color c = b->color[target];
    if (!try_play(&r, 0, move))
        return false;
    bool atari = b->color[target] == c && libs_of(b, target) == 1;
    bool saved = !atari || defend(&r, 1, target, other);
    undo(&r);
    assert(r.nlog == 0 && r.nplayed == 0);
    return !saved && !r.stopped;
}

bool
gb_ladder_escapes(gb_board *scratch, gb_loc move, gb_loc target)
{
    const gb_board *b = scratch;
    reader r;
    reader_init(&r, scratch);
    const gb_color c = b->color[target];
    if (!try_play(&r, 0, move))
        return false;
    bool escaped;
    if (b->color[target] != c)
        escaped = false;
    else if (libs_of(b, target) != 2)
        escaped = libs_of(b, target) >= 3;
    else
        escaped = !attack(&r, 1, target) || r.stopped;
    undo(&r);
    assert(r.nlog == 0 && r.nplayed == 0);
    return escaped;
}
