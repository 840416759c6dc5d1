/* planes.c: stone history and plane writers (see planes.h for the plane sets). */
#include "planes.h"

#include <string.h>

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

int
gb_features_count(int set)
{
    return set == GB_FEATURES_AGZ17 ? 17 : set == GB_FEATURES_LZ18 ? 18 : 0;
}

const gb_plane_info *
gb_features_plane(int set, int i)
{
    return i >= 0 && i < gb_features_count(set) ? &agz17[i] : NULL;
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

/* The colours of position t-k, or NULL if the record does not reach back so far. */
static const gb_color *
past(const gb_stone_history *h, int k)
{
    return k < h->count ? h->color[(h->latest - k) & (GB_HISTORY - 1)] : NULL;
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
             int64_t count, int set, char *out, int64_t stride_b, int64_t stride_c,
             const struct plane_kernels *kern)
{
    if (gb_features_count(set) == 0)
        return GB_ERR_SIZE;
    const int64_t plane_bytes = stride_c * (int64_t)kern->elem;
    for (int64_t i = 0; i < count; i++) {
        const gb_board *b = boards[i];
        const int n = b->size, points = n * n;
        const gb_color own = b->to_play, opp = (gb_color)-b->to_play;
        char *base = out + i * stride_b * (int64_t)kern->elem;
        for (int k = 0; k < GB_HISTORY; k++) {
            const gb_color *s = past(histories[i], k);
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
                      const gb_stone_history *const *histories, int64_t count,
                      int set, float *out, int64_t stride_b, int64_t stride_c)
{
    return write_planes(boards, histories, count, set, (char *)out, stride_b, stride_c,
                        &f32_kernels);
}

int
gb_features_write_u8(const gb_board *const *boards,
                     const gb_stone_history *const *histories, int64_t count,
                     int set, uint8_t *out, int64_t stride_b, int64_t stride_c)
{
    return write_planes(boards, histories, count, set, (char *)out, stride_b, stride_c,
                        &u8_kernels);
}
