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

static int
libs_of(const gb_board *b, gb_loc stone)
{
    return b->libs[b->head[stone]];
}

static bool defend(reader *r, const gb_board *b, int depth, gb_loc target);

/* Attacker to move, target on 2 liberties: true if some atari captures it. */
static bool
attack(reader *r, const gb_board *b, int depth, gb_loc target)
{
    gb_loc libs[2];
    int n = string_liberties(b, b->head[target], libs, 2);
    for (int i = 0; i < n; i++) {
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
        const gb_board *next = try_play(r, b, depth, cand[i]);
        if (r->stopped)
            return false;
        if (next == NULL)
            continue;
        int libs = libs_of(next, target);
        if (libs >= 3)
            return true;
        if (libs == 2) {
            bool caught = attack(r, next, depth + 1, target);
            if (r->stopped)
                return false;
            if (!caught)
                return true;
        }
    }
    return false;
}

bool
gb_ladder_captures(const gb_board *b, gb_loc move, gb_loc target, gb_board *scratch)
{
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
