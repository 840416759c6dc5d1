/* patterns.c: 3x3 and diamond pattern codes (see patterns.h for their definitions). */
#include "patterns.h"

#include <assert.h>

const int8_t gb_diamond_offsets[GB_DIAMOND][2] = {
    {-2, 0}, {-1, -1}, {-1, 0}, {-1, 1}, {0, -2}, {0, -1},
    {0, 1},  {0, 2},   {1, -1}, {1, 0},  {1, 1},  {2, 0},
};

static const int8_t orth_offsets[4][2] = {{-1, 0}, {0, -1}, {0, 1}, {1, 0}};
static const int8_t diag_offsets[4][2] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}};

/* Transform t of the square: transpose if bit 2, then mirror rows (bit 0), cols (bit 1). */
static void
transform(int t, int r, int c, int *tr, int *tc)
{
    if (t & 4) {
        int x = r;
        r = c;
        c = x;
    }
    *tr = (t & 1) ? -r : r;
    *tc = (t & 2) ? -c : c;
}

static int
find(const int8_t (*offsets)[2], int n, int r, int c)
{
    for (int i = 0; i < n; i++) {
        if (offsets[i][0] == r && offsets[i][1] == c)
            return i;
    }
    return -1;
}

/* perm[t][i]: where transform t sends position i. */
static int8_t orth_perm[8][4], diag_perm[8][4], diamond_perm[8][GB_DIAMOND];
static int32_t pat3_class[GB_PAT3_RAW];
static bool initialised = false;

static int32_t
transform_raw(int t, int32_t raw)
{
    int o[4], d[4], to[4], td[4];
    int32_t hi = raw / 256, lo = raw % 256;
    for (int i = 3; i >= 0; i--) {
        o[i] = hi % 6;
        hi /= 6;
        d[i] = lo % 4;
        lo /= 4;
    }
    for (int i = 0; i < 4; i++) {
        to[orth_perm[t][i]] = o[i];
        td[diag_perm[t][i]] = d[i];
    }
    return (((to[0] * 6 + to[1]) * 6 + to[2]) * 6 + to[3]) * 256 + td[0] * 64 + td[1] * 16 +
           td[2] * 4 + td[3];
}

void
gb_patterns_init(void)
{
    if (initialised)
        return;
    for (int t = 0; t < 8; t++) {
        int r, c;
        for (int i = 0; i < 4; i++) {
            transform(t, orth_offsets[i][0], orth_offsets[i][1], &r, &c);
            orth_perm[t][i] = (int8_t)find(orth_offsets, 4, r, c);
            transform(t, diag_offsets[i][0], diag_offsets[i][1], &r, &c);
            diag_perm[t][i] = (int8_t)find(diag_offsets, 4, r, c);
        }
        for (int i = 0; i < GB_DIAMOND; i++) {
            transform(t, gb_diamond_offsets[i][0], gb_diamond_offsets[i][1], &r, &c);
            diamond_perm[t][i] = (int8_t)find(gb_diamond_offsets, GB_DIAMOND, r, c);
        }
    }
    /* Ascending raw codes: a canonical code is met before every other code of its
     * class (it is the least), so its class number is already known when they come. */
    int32_t classes = 0;
    for (int32_t raw = 0; raw < GB_PAT3_RAW; raw++) {
        int32_t least = raw;
        for (int t = 1; t < 8; t++) {
            int32_t x = transform_raw(t, raw);
            least = x < least ? x : least;
        }
        pat3_class[raw] = least == raw ? classes++ : pat3_class[least];
    }
    assert(classes == GB_PAT3_CLASSES);
    initialised = true;
}

int32_t
gb_pat3_class(int32_t raw)
{
    return pat3_class[raw];
}

static inline int
orth_state(const gb_board *b, gb_loc n, gb_color mover)
{
    gb_color c = b->color[n];
    if (c == GB_EMPTY)
        return 0;
    if (c == GB_WALL)
        return 1;
    return (c == mover ? 2 : 4) + (b->libs[b->head[n]] == 1);
}

static inline int
diag_state(gb_color c, gb_color mover)
{
    if (c == GB_EMPTY)
        return 0;
    if (c == GB_WALL)
        return 1;
    return c == mover ? 2 : 3;
}

int32_t
gb_pat3_raw(const gb_board *b, gb_loc v, gb_color mover)
{
    const int s = b->stride;
    int32_t hi = ((orth_state(b, (gb_loc)(v - s), mover) * 6 +
                   orth_state(b, (gb_loc)(v - 1), mover)) * 6 +
                  orth_state(b, (gb_loc)(v + 1), mover)) * 6 +
                 orth_state(b, (gb_loc)(v + s), mover);
    int32_t lo = diag_state(b->color[v - s - 1], mover) * 64 +
                 diag_state(b->color[v - s + 1], mover) * 16 +
                 diag_state(b->color[v + s - 1], mover) * 4 +
                 diag_state(b->color[v + s + 1], mover);
    return hi * 256 + lo;
}

int
gb_diamond_index(const gb_board *b, gb_loc m, gb_loc v)
{
    int dr = v / b->stride - m / b->stride, dc = v % b->stride - m % b->stride;
    return find(gb_diamond_offsets, GB_DIAMOND, dr, dc);
}

void
gb_response_keys(const gb_board *b, gb_loc m, gb_color mover, uint32_t keys[8])
{
    const int n = b->size;
    int row = m / b->stride - 1, col = m % b->stride - 1;
    uint32_t state[GB_DIAMOND];
    for (int i = 0; i < GB_DIAMOND; i++) {
        int r = row + gb_diamond_offsets[i][0], c = col + gb_diamond_offsets[i][1];
        if (r < 0 || r >= n || c < 0 || c >= n) {
            state[i] = 3;
        } else {
            gb_color x = b->color[(r + 1) * b->stride + c + 1];
            state[i] = x == GB_EMPTY ? 0 : (x == mover ? 1 : 2);
        }
    }
    uint32_t centre = 0;
    if (b->color[m] == GB_BLACK || b->color[m] == GB_WHITE) {
        int libs = b->libs[b->head[m]];
        centre = (uint32_t)(libs < 3 ? libs : 3);
    }
    for (int t = 0; t < 8; t++) {
        uint32_t key = centre << 24;
        for (int i = 0; i < GB_DIAMOND; i++)
            key |= state[i] << (2 * diamond_perm[t][i]);
        keys[t] = key;
    }
}

uint32_t
gb_response_canonical(const uint32_t keys[8], int i)
{
    uint32_t best = UINT32_MAX;
    for (int t = 0; t < 8; t++) {
        uint32_t key = keys[t] | (uint32_t)diamond_perm[t][i] << 26;
        best = key < best ? key : best;
    }
    return best;
}
