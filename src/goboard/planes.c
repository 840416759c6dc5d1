/* planes.c: stone history and plane writers (see planes.h for the plane sets; the
 * AlphaGo 2016 sets are written in alphago_planes.c). */
#include "planes.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "alphago_planes.h"

static const gb_plane_info agz17[] = {
    {"own_t0", "stones of the side to move, now"},
    {"own_t1", "stones of the side to move, 1 move ago"},
    {"own_t2", "stones of the side to move, 2 moves ago"},
    {"own_t3", "stones of the side to move, 3 moves ago"},
    {"own_t4", "stones of the side to move, 4 moves ago"},
    {"own_t5", "stones of the side to move, 5 moves ago"},
    {"own_t6", "stones of the side to move, 6 moves ago"},
    {"own_t7", "stones of the side to move, 7 moves ago"},
    {"opp_t0", "opponent stones, now"},
    {"opp_t1", "opponent stones, 1 move ago"},
    {"opp_t2", "opponent stones, 2 moves ago"},
    {"opp_t3", "opponent stones, 3 moves ago"},
    {"opp_t4", "opponent stones, 4 moves ago"},
    {"opp_t5", "opponent stones, 5 moves ago"},
    {"opp_t6", "opponent stones, 6 moves ago"},
    {"opp_t7", "opponent stones, 7 moves ago"},
    {"black_to_move", "all ones if black is to move"},
    {"white_to_move", "all ones if white is to move (lz18 only)"},
};

static const gb_plane_info alphago49[] = {
    {"own", "stones of the side to move"},
    {"opponent", "opponent stones"},
    {"empty", "empty points"},
    {"ones", "all ones"},
    {"turns_since_1", "stones played 1 move ago"},
    {"turns_since_2", "stones played 2 moves ago"},
    {"turns_since_3", "stones played 3 moves ago"},
    {"turns_since_4", "stones played 4 moves ago"},
    {"turns_since_5", "stones played 5 moves ago"},
    {"turns_since_6", "stones played 6 moves ago"},
    {"turns_since_7", "stones played 7 moves ago"},
    {"turns_since_8", "stones played 8 or more moves ago, or before the record"},
    {"liberties_1", "stones of strings with 1 liberty"},
    {"liberties_2", "stones of strings with 2 liberties"},
    {"liberties_3", "stones of strings with 3 liberties"},
    {"liberties_4", "stones of strings with 4 liberties"},
    {"liberties_5", "stones of strings with 5 liberties"},
    {"liberties_6", "stones of strings with 6 liberties"},
    {"liberties_7", "stones of strings with 7 liberties"},
    {"liberties_8", "stones of strings with 8 or more liberties"},
    {"capture_size_0", "legal moves that capture no stone"},
    {"capture_size_1", "legal moves that capture 1 opponent stone"},
    {"capture_size_2", "legal moves that capture 2 opponent stones"},
    {"capture_size_3", "legal moves that capture 3 opponent stones"},
    {"capture_size_4", "legal moves that capture 4 opponent stones"},
    {"capture_size_5", "legal moves that capture 5 opponent stones"},
    {"capture_size_6", "legal moves that capture 6 opponent stones"},
    {"capture_size_7", "legal moves that capture 7 or more opponent stones"},
    {"self_atari_1", "legal moves leaving a 1-stone own string in atari"},
    {"self_atari_2", "legal moves leaving a 2-stone own string in atari"},
    {"self_atari_3", "legal moves leaving a 3-stone own string in atari"},
    {"self_atari_4", "legal moves leaving a 4-stone own string in atari"},
    {"self_atari_5", "legal moves leaving a 5-stone own string in atari"},
    {"self_atari_6", "legal moves leaving a 6-stone own string in atari"},
    {"self_atari_7", "legal moves leaving a 7-stone own string in atari"},
    {"self_atari_8", "legal moves leaving an own string of 8 or more stones in atari"},
    {"liberties_after_1", "legal moves after which the mover's string has 1 liberty"},
    {"liberties_after_2", "legal moves after which the mover's string has 2 liberties"},
    {"liberties_after_3", "legal moves after which the mover's string has 3 liberties"},
    {"liberties_after_4", "legal moves after which the mover's string has 4 liberties"},
    {"liberties_after_5", "legal moves after which the mover's string has 5 liberties"},
    {"liberties_after_6", "legal moves after which the mover's string has 6 liberties"},
    {"liberties_after_7", "legal moves after which the mover's string has 7 liberties"},
    {"liberties_after_8", "legal moves after which the mover's string has 8+ liberties"},
    {"ladder_capture", "legal moves that capture an opponent string in a ladder"},
    {"ladder_escape", "legal moves that save an own string in atari from the ladder"},
    {"sensible", "legal moves that do not fill a true eye of the mover"},
    {"zeros", "all zeros"},
    {"black_to_move", "all ones if black is to move (alphago49 only)"},
};

int
gb_features_count(int set)
{
    switch (set) {
    case GB_FEATURES_AGZ17:
        return 17;
    case GB_FEATURES_LZ18:
        return 18;
    case GB_FEATURES_ALPHAGO48:
        return 48;
    case GB_FEATURES_ALPHAGO49:
        return 49;
    default:
        return 0;
    }
}

const gb_plane_info *
gb_features_plane(int set, int i)
{
    if (i < 0 || i >= gb_features_count(set))
        return NULL;
    return gb_features_need_moves(set) ? &alphago49[i] : &agz17[i];
}

/* Bytes of the mailbox that hold the board: up to the last on-board loc. */
static size_t
used_bytes(const gb_board *b)
{
    return (size_t)((b->size + 1) * b->stride);
}

void
gb_history_reset(gb_stone_history *h, const gb_board *b)
{
    h->count = 1;
    h->latest = 0;
    memcpy(h->color[0], b->color, used_bytes(b));
    h->hash[0] = b->hash;
}

void
gb_history_push(gb_stone_history *h, const gb_board *b)
{
    h->latest = (int8_t)((h->latest + 1) & (GB_HISTORY - 1));
    if (h->count < GB_HISTORY)
        h->count++;
    memcpy(h->color[h->latest], b->color, used_bytes(b));
    h->hash[h->latest] = b->hash;
}

/* The two element types share one driver; only these kernels know the type. Each
 * works on a whole plane, so the indirect call is per plane and the row loops inside
 * stay simple enough to vectorise. */
struct plane_kernels {
    size_t elem; /* bytes per value */
    /* dst[row * n + col] = 1 where the mailbox colour at (row, col) is c, else 0. */
    void (*match)(void *dst, const gb_color *mailbox, int n, int stride, gb_color c);
    /* dst[0 .. points) = value (0 or 1). */
    void (*fill)(void *dst, int points, int value);
};

static void
match_f32(void *dst, const gb_color *mailbox, int n, int stride, gb_color c)
{
    for (int row = 0; row < n; row++) {
        const gb_color *restrict src = mailbox + (row + 1) * stride + 1;
        float *restrict out = (float *)dst + row * n;
        for (int col = 0; col < n; col++)
            out[col] = (float)(src[col] == c);
    }
}

static void
match_u8(void *dst, const gb_color *mailbox, int n, int stride, gb_color c)
{
    for (int row = 0; row < n; row++) {
        const gb_color *restrict src = mailbox + (row + 1) * stride + 1;
        uint8_t *restrict out = (uint8_t *)dst + row * n;
        for (int col = 0; col < n; col++)
            out[col] = (uint8_t)(src[col] == c);
    }
}

static void
fill_f32(void *dst, int points, int value)
{
    if (value == 0) { /* 0.0f is all zero bits; memset is the fastest zeroing */
        memset(dst, 0, (size_t)points * sizeof(float));
        return;
    }
    float *restrict out = dst;
    for (int p = 0; p < points; p++)
        out[p] = (float)value;
}

static void
fill_u8(void *dst, int points, int value)
{
    memset(dst, value, (size_t)points);
}

static const struct plane_kernels f32_kernels = {sizeof(float), match_f32, fill_f32};
static const struct plane_kernels u8_kernels = {sizeof(uint8_t), match_u8, fill_u8};

static int
write_planes(const gb_board *const *boards, const gb_stone_history *const *histories,
             const gb_legal_source *legal, int64_t count, int set, gb_board *scratch,
             char *out, int64_t stride_b, const struct plane_kernels *kern)
{
    if (gb_features_count(set) == 0)
        return GB_ERR_SIZE;
    if (gb_features_need_moves(set)) {
        gb_alphago_planes_write(boards, histories, legal, count, set, scratch, out, stride_b,
                                kern->elem == sizeof(float));
        return GB_OK;
    }
    for (int64_t i = 0; i < count; i++) {
        const gb_board *b = boards[i];
        const int n = b->size, points = n * n;
        const int64_t plane_bytes = points * (int64_t)kern->elem;
        const gb_color own = b->to_play, opp = (gb_color)-b->to_play;
        char *base = out + i * stride_b * (int64_t)kern->elem;
        for (int k = 0; k < GB_HISTORY; k++) {
            const gb_color *s = gb_history_past(histories[i], k);
            char *mine = base + k * plane_bytes;
            char *theirs = base + (k + GB_HISTORY) * plane_bytes;
            if (s == NULL) {
                kern->fill(mine, points, 0);
                kern->fill(theirs, points, 0);
            } else {
                kern->match(mine, s, n, b->stride, own);
                kern->match(theirs, s, n, b->stride, opp);
            }
        }
        char *turn = base + 2 * GB_HISTORY * plane_bytes;
        kern->fill(turn, points, own == GB_BLACK);
        if (set == GB_FEATURES_LZ18)
            kern->fill(turn + plane_bytes, points, own == GB_WHITE);
    }
    return GB_OK;
}

int
gb_features_write_f32(const gb_board *const *boards,
                      const gb_stone_history *const *histories,
                      const gb_legal_source *legal, int64_t count, int set,
                      gb_board *scratch, float *out, int64_t stride_b)
{
    return write_planes(boards, histories, legal, count, set, scratch, (char *)out,
                        stride_b, &f32_kernels);
}

int
gb_features_write_u8(const gb_board *const *boards,
                     const gb_stone_history *const *histories,
                     const gb_legal_source *legal, int64_t count, int set,
                     gb_board *scratch, uint8_t *out, int64_t stride_b)
{
    return write_planes(boards, histories, legal, count, set, scratch, (char *)out,
                        stride_b, &u8_kernels);
}
