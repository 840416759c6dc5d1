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

/* One writer per element type; the loops are the same, so a macro would hide nothing
 * but the type, and two short functions read better. */
int
gb_features_write_f32(const gb_board *const *boards,
                      const gb_stone_history *const *histories, int64_t count,
                      int set, float *out, int64_t stride_b, int64_t stride_c)
{
    int planes = gb_features_count(set);
    if (planes == 0)
        return GB_ERR_SIZE;
    for (int64_t i = 0; i < count; i++) {
        const gb_board *b = boards[i];
        const int n = b->size, points = n * n, stride = b->stride;
        const int8_t own = b->to_play, opp = (int8_t)-b->to_play;
        float *base = out + i * stride_b;
        for (int k = 0; k < GB_HISTORY; k++) {
            const gb_color *s = past(histories[i], k);
            float *mine = base + k * stride_c, *theirs = base + (k + GB_HISTORY) * stride_c;
            if (s == NULL) {
                /* All-bits-zero is 0.0f in IEEE 754. */
                memset(mine, 0, (size_t)points * sizeof *mine);
                memset(theirs, 0, (size_t)points * sizeof *theirs);
                continue;
            }
            for (int row = 0; row < n; row++) {
                const gb_color *restrict src = s + (row + 1) * stride + 1;
                float *restrict m = mine + row * n, *restrict t = theirs + row * n;
                for (int col = 0; col < n; col++) {
                    m[col] = (float)(src[col] == own);
                    t[col] = (float)(src[col] == opp);
                }
            }
        }
        float *turn = base + 2 * GB_HISTORY * stride_c;
        for (int p = 0; p < points; p++)
            turn[p] = own == GB_BLACK;
        if (set == GB_FEATURES_LZ18) {
            for (int p = 0; p < points; p++)
                turn[stride_c + p] = own == GB_WHITE;
        }
    }
    return GB_OK;
}

int
gb_features_write_u8(const gb_board *const *boards,
                     const gb_stone_history *const *histories, int64_t count,
                     int set, uint8_t *out, int64_t stride_b, int64_t stride_c)
{
    int planes = gb_features_count(set);
    if (planes == 0)
        return GB_ERR_SIZE;
    for (int64_t i = 0; i < count; i++) {
        const gb_board *b = boards[i];
        const int n = b->size, points = n * n, stride = b->stride;
        const int8_t own = b->to_play, opp = (int8_t)-b->to_play;
        uint8_t *base = out + i * stride_b;
        for (int k = 0; k < GB_HISTORY; k++) {
            const gb_color *s = past(histories[i], k);
            uint8_t *mine = base + k * stride_c;
            uint8_t *theirs = base + (k + GB_HISTORY) * stride_c;
            if (s == NULL) {
                memset(mine, 0, (size_t)points);
                memset(theirs, 0, (size_t)points);
                continue;
            }
            for (int row = 0; row < n; row++) {
                const gb_color *restrict src = s + (row + 1) * stride + 1;
                uint8_t *restrict m = mine + row * n, *restrict t = theirs + row * n;
                for (int col = 0; col < n; col++) {
                    m[col] = (uint8_t)(src[col] == own);
                    t[col] = (uint8_t)(src[col] == opp);
                }
            }
        }
        uint8_t *turn = base + 2 * GB_HISTORY * stride_c;
        memset(turn, own == GB_BLACK, (size_t)points);
        if (set == GB_FEATURES_LZ18)
            memset(turn + stride_c, own == GB_WHITE, (size_t)points);
    }
    return GB_OK;
}
