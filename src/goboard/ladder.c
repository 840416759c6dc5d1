/* ladder.c: ladder reading (see ladder.h for the rules of a read). */
#include "ladder.h"

#include <string.h>

typedef struct reader {
    gb_board *stack; /* stack[d] holds the position d + 1 plies below the start */
    int nodes;       /* moves played so far */
    bool stopped;    /* a cap was hit: the read's answer is "no ladder" */
} reader;

static const gb_rules read_rules = {GB_KO_SIMPLE, 0};

/* Plays loc on a copy of b into stack[depth]; NULL if illegal or a cap is hit. */
static const gb_board *
try_play(reader *r, const gb_board *b, int depth, gb_loc loc)
{
    if (gb_board_legality(b, loc, &read_rules, NULL) != GB_OK)
        return NULL;
    if (r->nodes >= GB_LADDER_NODES || depth >= GB_LADDER_DEPTH) {
        r->stopped = true;
        return NULL;
    }
    r->nodes++;
    gb_board *next = &r->stack[depth];
    memcpy(next, b, sizeof *next);
    gb_board_play_unchecked(next, loc);
    return next;
}

/* Up to max liberties of the string with head h, ascending; returns how many. */
static int
string_liberties(const gb_board *b, gb_loc h, gb_loc *out, int max)
{
    int n = 0;
    gb_loc s = h;
    do {
        for (int d = 0; d < 4; d++) {
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

static bool defend(reader *r, const gb_board *b, int depth, gb_loc target);

/* True if, after the attacker plays a, the defender's extension at e (a and e being the
 * two liberties of the string at t) surely leaves 3 or more liberties: e's empty
 * neighbours and the liberties of the other defender strings at e, a and e excluded,
 * already make 3. Captures could only add more, so such an atari never works and is
 * not played: most candidate ladders end here without a board copy. */
static bool
surely_escapes(const gb_board *b, gb_loc t, gb_loc a, gb_loc e)
{
    gb_loc found[3];
    int n = 0;
    const gb_color c = b->color[t];
    const gb_loc th = b->head[t];
    for (int d = 0; d < 4 && n < 3; d++) {
        gb_loc nb = (gb_loc)(e + b->adj[d]);
        gb_loc s = nb, h = b->head[nb];
        bool friend = b->color[nb] == c && h != th;
        if (b->color[nb] != GB_EMPTY && !friend)
            continue;
        /* An empty neighbour counts itself; a friendly string, its liberties. */
        do {
            for (int k = friend ? 0 : 4; k < 5 && n < 3; k++) {
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
attack(reader *r, const gb_board *b, int depth, gb_loc target)
{
    gb_loc libs[2];
    int n = two_liberties(b, target, libs);
    for (int i = 0; i < n; i++) {
        if (n == 2 && surely_escapes(b, target, libs[i], libs[1 - i]))
            continue;
        const gb_board *next = try_play(r, b, depth, libs[i]);
        if (r->stopped)
            return false;
        if (next != NULL && libs_of(next, target) == 1 && !defend(r, next, depth + 1, target))
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

/* Defender to move, target in atari: true if some move saves it. */
static bool
defend(reader *r, const gb_board *b, int depth, gb_loc target)
{
    gb_loc cand[GB_MAX_POINTS]; /* distinct empty points: never more than the board */
    int n = 0;
    gb_loc h = b->head[target];
    gb_color attacker = (gb_color)-b->color[target];
    string_liberties(b, h, cand, 1);
    n = 1;
    /* The liberty of every attacker string in atari that touches the target. */
    gb_loc s = h;
    do {
        for (int d = 0; d < 4; d++) {
            gb_loc e = (gb_loc)(s + b->adj[d]);
            if (b->color[e] == attacker && b->libs[b->head[e]] == 1) {
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
        const gb_board *next = try_play(r, b, depth, cand[i]);
        if (r->stopped)
            return false;
        if (next == NULL)
            continue;
        bool caught = attack(r, next, depth + 1, target);
        if (r->stopped)
            return false;
        if (!caught)
            return true;
    }
    return false;
}

bool
gb_ladder_captures(const gb_board *b, gb_loc move, gb_loc target, gb_board *scratch)
{
    gb_loc libs[2];
    if (string_liberties(b, b->head[target], libs, 2) == 2 &&
        surely_escapes(b, target, move, libs[0] == move ? libs[1] : libs[0]))
        return false;
    reader r = {scratch, 0, false};
    const gb_board *next = try_play(&r, b, 0, move);
    if (next == NULL || next->color[target] != b->color[target] || libs_of(next, target) != 1)
        return false;
    bool saved = defend(&r, next, 1, target);
    return !saved && !r.stopped;
}

bool
gb_ladder_escapes(const gb_board *b, gb_loc move, gb_loc target, gb_board *scratch)
{
    reader r = {scratch, 0, false};
    const gb_board *next = try_play(&r, b, 0, move);
    if (next == NULL || next->color[target] != b->color[target])
        return false;
    int libs = libs_of(next, target);
    if (libs != 2)
        return libs >= 3;
    bool caught = attack(&r, next, 1, target);
    return !caught || r.stopped;
}
