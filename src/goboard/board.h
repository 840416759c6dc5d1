/* board.h: the Go rules core. A plain-old-data position plus the functions that read and
 * change it. No Python, no allocation: a gb_board copies with one memcpy.
 *
 * Terms: a loc is a mailbox location ((row + 1) * stride + col + 1, walls around the
 * board); a point is the flat on-board index row * size + col that Python sees. A string
 * (chain) is a maximal set of connected stones of one colour; its data live at its head.
 */
#ifndef GB_BOARD_H
#define GB_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_config.h"
#include "keyset.h"

/* ---- Types ------------------------------------------------------------------------ */

typedef struct gb_rules {
    int8_t ko;      /* enum gb_ko_rule */
    int8_t suicide; /* 1: multi-stone suicide legal; single-stone suicide never is */
} gb_rules;

typedef struct gb_board {
    int8_t size;        /* edge length N, GB_MIN_SIZE..GB_MAX_SIZE */
    int8_t to_play;     /* GB_BLACK or GB_WHITE */
    int8_t passes;      /* consecutive passes just played; 2 ends the game */
    int8_t resigned;    /* colour that resigned, GB_EMPTY while nobody has */
    int16_t stride;     /* N + 1 */
    int16_t adj[4];     /* loc offsets of the neighbours: N, W, E, S */
    gb_loc ko_loc;      /* point the side to move may not retake, or GB_NULL_LOC */
    gb_loc last_move;   /* GB_NULL_LOC before the first move, GB_PASS_LOC after a pass */
    int16_t num_empty;  /* valid entries of empty[] */
    int16_t captures[2];  /* stones captured by black [0] and by white [1] */
    int32_t move_number;  /* moves (passes included) played since init or setup */
    uint64_t hash;        /* XOR of the Zobrist keys of all stones (not turn, not ko) */
    gb_color color[GB_ARR_SIZE];   /* GB_WALL off the board */
    gb_loc head[GB_ARR_SIZE];      /* head of the stone's string; GB_NULL_LOC if no stone */
    gb_loc next[GB_ARR_SIZE];      /* next stone in the string's circular list; stones only */
    int16_t libs[GB_ARR_SIZE];     /* exact liberty count; valid at heads only */
    int16_t stones[GB_ARR_SIZE];   /* stone count; valid at heads only */
    gb_loc empty[GB_MAX_POINTS];   /* the empty points in no order; [0, num_empty) valid */
    int16_t empty_idx[GB_ARR_SIZE]; /* index of an empty loc in empty[]; empty locs only */
    uint8_t nempty[GB_ARR_SIZE];    /* empty neighbours of an on-board loc; junk on walls */
} gb_board;

/* ---- Locations -------------------------------------------------------------------- */

static inline gb_loc
gb_board_loc(const gb_board *b, int point)
{
    return (gb_loc)((point / b->size + 1) * b->stride + point % b->size + 1);
}

static inline int
gb_board_point(const gb_board *b, gb_loc loc)
{
    return (loc / b->stride - 1) * b->size + loc % b->stride - 1;
}

/* Stones on the board, both colours. */
static inline int
gb_board_stone_count(const gb_board *b)
{
    return b->size * b->size - b->num_empty;
}

static inline bool
gb_board_is_over(const gb_board *b)
{
    return b->passes >= 2 || b->resigned != GB_EMPTY;
}

/* Whether a quiet move on b (one stone more, nothing captured) surely repeats no
 * position of `history`: always under simple ko or without a history; under superko
 * while no earlier position had more stones than b, since only a capture since then
 * could let the count come back to an earlier position's. The legality code skips
 * the superko lookups of such moves. */
static inline bool
gb_board_quiet_is_new(const gb_board *b, const gb_rules *rules, const gb_keyset *history)
{
    return rules->ko == GB_KO_SIMPLE || history == NULL ||
           gb_board_stone_count(b) >= history->most_stones;
}

/* Heads of the four neighbours of v with repeats and non-strings set to GB_NULL_LOC,
 * so each neighbouring string appears once. */
static inline void
gb_distinct_neighbour_heads(const gb_board *b, gb_loc v, int stride, gb_loc heads[4])
{
    heads[0] = b->head[v - stride];
    heads[1] = b->head[v - 1];
    heads[2] = b->head[v + 1];
    heads[3] = b->head[v + stride];
    if (heads[1] == heads[0])
        heads[1] = GB_NULL_LOC;
    if (heads[2] == heads[0] || heads[2] == heads[1])
        heads[2] = GB_NULL_LOC;
    if (heads[3] == heads[0] || heads[3] == heads[1] || heads[3] == heads[2])
        heads[3] = GB_NULL_LOC;
}

/* ---- Lifecycle -------------------------------------------------------------------- */

/* Empty board of edge `size`, black to move. GB_ERR_SIZE (b untouched) if out of range. */
int gb_board_init(gb_board *b, int size);

/* Board of b->size holding stones[point] (GB_BLACK/GB_WHITE/GB_EMPTY for each of the
 * size * size points) with `to_play` to move; counters reset. Returns GB_ERR_BAD_COLOR
 * or GB_ERR_NO_LIBERTY (a string without liberty) and leaves b untouched on error. */
int gb_board_setup(gb_board *b, const int8_t *stones, gb_color to_play);

/* ---- Queries ---------------------------------------------------------------------- */

/* Key the superko history stores for the current position: the stone hash, with the side
 * to move folded in for situational superko. */
uint64_t gb_board_superko_key(const gb_board *b, int ko_rule);

/* Hash of stones, side to move and ko point: the key for caches of network evaluations,
 * which must not confuse positions that differ only in turn or ko. */
uint64_t gb_board_situation_hash(const gb_board *b);

/* GB_OK if the side to move may play loc (an on-board loc or GB_PASS_LOC), else the
 * reason. `history` holds the superko keys of the game's positions (ignored for simple
 * ko; NULL means no history). Reasons are checked in the order: off-board, game over,
 * occupied, ko, suicide, superko. */
int gb_board_legality(const gb_board *b, gb_loc loc, const gb_rules *rules,
                      const gb_keyset *history);

/* Writes the legal points in ascending order, pass (size * size) last, to out (room for
 * size * size + 1) and returns their number: 0 once the game is over. */
int gb_board_legal_points(const gb_board *b, const gb_rules *rules,
                          const gb_keyset *history, int16_t *out);

/* out[point] = 1 if legal, else 0, for every point and pass (index size * size). */
void gb_board_legal_mask(const gb_board *b, const gb_rules *rules,
                         const gb_keyset *history, uint8_t *out);

/* out[point] = +1/-1 for points owned by black/white under Tromp-Taylor (the stone's own
 * colour, or the one colour an empty region reaches), 0 for neutral points. */
void gb_board_ownership(const gb_board *b, int8_t *out);

/* Tromp-Taylor area of black minus area of white minus komi. */
double gb_board_score(const gb_board *b, double komi);

/* ---- Mutations -------------------------------------------------------------------- */

/* Plays loc for the side to move if gb_board_legality() allows it; otherwise returns the
 * reason and leaves b untouched. Does not add the new position to `history`. */
int gb_board_play(gb_board *b, gb_loc loc, const gb_rules *rules,
                  const gb_keyset *history);

/* Plays loc for the side to move without checks. Precondition: the move is legal under
 * some rules (multi-stone suicide is carried out; superko is not looked at). */
void gb_board_play_unchecked(gb_board *b, gb_loc loc);

/* The side to move resigns. GB_ERR_GAME_OVER (b untouched) if the game is already over. */
int gb_board_resign(gb_board *b);

/* Makes `to_play` the side to move without a move (a GTP genmove out of turn, a position
 * being edited): no pass is counted and the passes so far are forgotten, the ko ban and
 * the last move go (they were the other side's), the move number stays. Nothing changes
 * if `to_play` is already to move. GB_ERR_BAD_COLOR or GB_ERR_GAME_OVER (b untouched). */
int gb_board_set_to_play(gb_board *b, gb_color to_play);

/* ---- Checks ----------------------------------------------------------------------- */

/* Recounts everything from scratch (walls, empty list, string lists and heads, stone and
 * liberty counts, hash, ko point) and returns GB_OK or the first broken invariant. */
int gb_board_check(const gb_board *b);

/* A short message for any return code. */
const char *gb_strerror(int code);

#endif /* GB_BOARD_H */
