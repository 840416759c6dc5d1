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

static void
copy_stones(int8_t *dst, const gb_board *b)
{
    /* Each board row is contiguous in the mailbox: one memcpy per row. */
    for (int row = 0; row < b->size; row++)
        memcpy(dst + row * b->size, &b->color[(row + 1) * b->stride + 1], (size_t)b->size);
}

void
gb_history_reset(gb_stone_history *h, const gb_board *b)
{
    h->count = 1;
    h->latest = 0;
    copy_stones(h->stones[0], b);
}

void
gb_history_push(gb_stone_history *h, const gb_board *b)
{
    h->latest = (int8_t)((h->latest + 1) % GB_HISTORY);
    if (h->count < GB_HISTORY)
        h->count++;
    copy_stones(h->stones[h->latest], b);
}

/* The stone array of position t-k, or NULL if the record does not reach back so far. */
static const int8_t *
past(const gb_stone_history *h, int k)
{
    return k < h->count ? h->stones[(h->latest - k + GB_HISTORY) % GB_HISTORY] : NULL;
}

/* One writer per element type; the loops are the same, so a macro would hide nothing
 * but the type, and two short functions read better. */
int
gb_features_write_f32(const gb_board *const *boards,
                      const gb_stone_history *const *histories, int64_t n, int set,
                      float *out, int64_t stride_b, int64_t stride_c)
{
    int planes = gb_features_count(set);
    if (planes == 0)
        return GB_ERR_SIZE;
    for (int64_t i = 0; i < n; i++) {
        const gb_board *b = boards[i];
        const int points = b->size * b->size;
        const int8_t own = b->to_play, opp = (int8_t)-b->to_play;
        float *base = out + i * stride_b;
        for (int k = 0; k < GB_HISTORY; k++) {
            const int8_t *s = past(histories[i], k);
            float *mine = base + k * stride_c, *theirs = base + (k + GB_HISTORY) * stride_c;
            if (s == NULL) {
                /* All-bits-zero is 0.0f in IEEE 754. */
                memset(mine, 0, (size_t)points * sizeof *mine);
                memset(theirs, 0, (size_t)points * sizeof *theirs);
                continue;
            }
            for (int p = 0; p < points; p++) {
                mine[p] = (float)(s[p] == own);
                theirs[p] = (float)(s[p] == opp);
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
                     const gb_stone_history *const *histories, int64_t n, int set,
                     uint8_t *out, int64_t stride_b, int64_t stride_c)
{
    int planes = gb_features_count(set);
    if (planes == 0)
        return GB_ERR_SIZE;
    for (int64_t i = 0; i < n; i++) {
        const gb_board *b = boards[i];
        const int points = b->size * b->size;
        const int8_t own = b->to_play, opp = (int8_t)-b->to_play;
        uint8_t *base = out + i * stride_b;
        for (int k = 0; k < GB_HISTORY; k++) {
            const int8_t *s = past(histories[i], k);
            uint8_t *mine = base + k * stride_c;
            uint8_t *theirs = base + (k + GB_HISTORY) * stride_c;
            if (s == NULL) {
                memset(mine, 0, (size_t)points);
                memset(theirs, 0, (size_t)points);
                continue;
            }
            for (int p = 0; p < points; p++) {
                mine[p] = (uint8_t)(s[p] == own);
                theirs[p] = (uint8_t)(s[p] == opp);
            }
        }
        uint8_t *turn = base + 2 * GB_HISTORY * stride_c;
        memset(turn, own == GB_BLACK, (size_t)points);
        if (set == GB_FEATURES_LZ18)
            memset(turn + stride_c, own == GB_WHITE, (size_t)points);
    }
    return GB_OK;
}
