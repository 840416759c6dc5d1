/* pool.c: search-tree positions (see pool.h). */
#include "pool.h"

#include <string.h>

#include "playout.h"
#include "zobrist.h"

gb_keyset
gb_pool_history(const gb_pool *p, int64_t slot, uint64_t *path)
{
    gb_keyset h = p->record[gb_pool_game(p, slot)];
    int32_t n = 0;
    for (int64_t s = slot; s >= 0; s = p->parent[s]) {
        path[n++] = p->key[s];
        int stones = gb_board_stone_count(&p->boards[s]);
        if (stones > h.most_stones)
            h.most_stones = (int16_t)stones;
    }
    h.extra = path;
    h.n_extra = n;
    return h;
}

int
gb_pool_check_slots(const gb_pool *p, const int64_t *slots, int64_t n, int64_t *failed)
{
    const int64_t total = (int64_t)p->games * p->slots_per_root;
    for (int64_t i = 0; i < n; i++) {
        if (slots[i] < 0 || slots[i] >= total || !p->valid[slots[i]]) {
            *failed = i;
            return slots[i] < 0 || slots[i] >= total ? GB_ERR_SLOT : GB_ERR_EMPTY_SLOT;
        }
    }
    return GB_OK;
}

/* Marks the children with a fresh epoch; fails on a bad or repeated child. */
static int
stamp_children(gb_pool *p, const int64_t *parents, const int64_t *children, int64_t n,
               int64_t *failed)
{
    const int64_t total = (int64_t)p->games * p->slots_per_root;
    if (++p->epoch == 0) { /* wrapped: old stamps could collide */
        memset(p->stamp, 0, (size_t)total * sizeof *p->stamp);
        p->epoch = 1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t c = children[i], par = parents[i];
        bool bad = c < 0 || c >= total || par < 0 || par >= total ||
                   gb_pool_game(p, c) != gb_pool_game(p, par) ||
                   c % p->slots_per_root == 0 || p->stamp[c] == p->epoch;
        if (bad) {
            *failed = i;
            return GB_ERR_SLOT;
        }
        p->stamp[c] = p->epoch;
    }
    return GB_OK;
}

/* True if `slot` or one of its ancestors is a child of the current call: writing that
 * child would put a cycle in the parent links (and every walk up the tree would loop). */
static bool
path_has_child(const gb_pool *p, int64_t slot)
{
    for (int64_t s = slot; s >= 0; s = p->parent[s]) {
        if (p->stamp[s] == p->epoch)
            return true;
    }
    return false;
}

int
gb_pool_expand(gb_pool *p, const int64_t *parents, const int32_t *points,
               const int64_t *children, int64_t n, uint64_t *path, int64_t *failed)
{
    int rc = stamp_children(p, parents, children, n, failed);
    for (int64_t i = 0; i < n && rc == GB_OK; i++) {
        const gb_board *b = &p->boards[parents[i]];
        int area = b->size * b->size;
        if (path_has_child(p, parents[i])) {
            rc = GB_ERR_SLOT;
        } else if (!p->valid[parents[i]]) {
            rc = GB_ERR_EMPTY_SLOT;
        } else if (points[i] < 0 || points[i] > area) {
            rc = GB_ERR_OFF_BOARD;
        } else {
            gb_loc loc = points[i] == area ? GB_PASS_LOC : gb_board_loc(b, points[i]);
            gb_keyset h = gb_pool_history(p, parents[i], path);
            rc = gb_board_legality(b, loc, &p->rules[gb_pool_game(p, parents[i])], &h);
        }
        if (rc != GB_OK)
            *failed = i;
    }
    if (rc != GB_OK)
        return rc;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = children[i];
        gb_board *b = &p->boards[c];
        memcpy(b, &p->boards[parents[i]], sizeof *b);
        int area = b->size * b->size;
        gb_board_play_unchecked(b, points[i] == area ? GB_PASS_LOC
                                                     : gb_board_loc(b, points[i]));
        p->parent[c] = (int32_t)parents[i];
        p->move[c] = (int16_t)points[i];
        p->key[c] = gb_board_superko_key(b, p->rules[gb_pool_game(p, c)].ko);
        p->valid[c] = 1;
    }
    return GB_OK;
}

void
gb_pool_legal_masks(const gb_pool *p, const int64_t *slots, int64_t n, uint8_t *out,
                    uint64_t *path)
{
    for (int64_t i = 0; i < n; i++) {
        const gb_board *b = &p->boards[slots[i]];
        gb_keyset h = gb_pool_history(p, slots[i], path);
        int width = b->size * b->size + 1;
        gb_board_legal_mask(b, &p->rules[gb_pool_game(p, slots[i])], &h, out + i * width);
    }
}

void
gb_pool_eye_masks(const gb_pool *p, const int64_t *slots, int64_t n, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        const gb_board *b = &p->boards[slots[i]];
        int area = b->size * b->size;
        uint8_t *row = out + i * (area + 1);
        for (int point = 0; point < area; point++) {
            gb_loc loc = gb_board_loc(b, point);
            row[point] =
                b->color[loc] == GB_EMPTY && gb_board_is_true_eye(b, loc, b->to_play);
        }
        row[area] = 0;
    }
}

/* Slots of the positions t, t-1, ... of `slot` up the tree (at most GB_HISTORY); the
 * last one is the root when fewer were found. */
static int
tree_positions(const gb_pool *p, int64_t slot, int64_t *out)
{
    int n = 0;
    for (int64_t s = slot; s >= 0 && n < GB_HISTORY; s = p->parent[s])
        out[n++] = s;
    return n;
}

void
gb_pool_stone_history(const gb_pool *p, int64_t slot, gb_stone_history *out)
{
    int64_t up[GB_HISTORY];
    int n = tree_positions(p, slot, up);
    const gb_stone_history *record = &p->past[gb_pool_game(p, slot)];
    size_t bytes = (size_t)((p->boards[slot].size + 1) * p->boards[slot].stride);
    /* Oldest first, so the ring ends with `slot` at `latest`. Entry 0 of the record is
     * the root itself, already among the tree positions. */
    int from_record = 0;
    if (n < GB_HISTORY && p->parent[up[n - 1]] < 0)
        from_record = record->count - 1 < GB_HISTORY - n ? record->count - 1 : GB_HISTORY - n;
    out->count = 0;
    out->latest = GB_HISTORY - 1;
    for (int k = from_record; k >= 1; k--) {
        int ring = (record->latest - k) & (GB_HISTORY - 1);
        memcpy(out->color[out->count], record->color[ring], bytes);
        out->hash[out->count++] = record->hash[ring];
    }
    for (int k = n - 1; k >= 0; k--) {
        memcpy(out->color[out->count], p->boards[up[k]].color, bytes);
        out->hash[out->count++] = p->boards[up[k]].hash;
    }
    out->latest = (int8_t)(out->count - 1);
}

static inline uint64_t
rotl(uint64_t x, int r)
{
    return r == 0 ? x : (x << r) | (x >> (64 - r));
}

uint64_t
gb_pool_eval_key(const gb_pool *p, int64_t slot)
{
    int64_t up[GB_HISTORY];
    int n = tree_positions(p, slot, up);
    uint64_t key = gb_board_situation_hash(&p->boards[slot]);
    for (int k = 1; k < n; k++)
        key ^= rotl(p->boards[up[k]].hash, 8 * k + 1);
    const gb_stone_history *record = &p->past[gb_pool_game(p, slot)];
    if (n < GB_HISTORY && p->parent[up[n - 1]] < 0) {
        for (int k = n, r = 1; k < GB_HISTORY && r < record->count; k++, r++)
            key ^= rotl(record->hash[(record->latest - r) & (GB_HISTORY - 1)], 8 * k + 1);
    }
    return key;
}

int32_t
gb_pool_reroot(gb_pool *p, int32_t g, int64_t new_root, int32_t *mapping)
{
    const int64_t base = (int64_t)g * p->slots_per_root;
    const int32_t m = p->slots_per_root;
    /* The path from the old root down to the new one joins the game's stone record;
     * only its last GB_HISTORY positions can matter. */
    int64_t path[GB_HISTORY];
    int depth = 0;
    for (int64_t s = new_root; s != base && s >= 0 && depth < GB_HISTORY; s = p->parent[s])
        path[depth++] = s;
    for (int k = depth - 1; k >= 0; k--)
        gb_history_push(&p->past[g], &p->boards[path[k]]);

    /* Keep a slot if new_root is among its ancestors (walks are short: tree depth). */
    int32_t kept = 0;
    for (int32_t off = 0; off < m; off++) {
        mapping[off] = -1;
        if (!p->valid[base + off])
            continue;
        int64_t s = base + off;
        while (s >= 0 && s != new_root)
            s = p->parent[s];
        if (s == new_root)
            mapping[off] = kept++;
    }
    /* Compact in slot order: a slot only moves down, onto one already moved or dropped. */
    for (int32_t off = 0; off < m; off++) {
        int32_t to = mapping[off];
        int64_t src = base + off, dst = base + (to < 0 ? 0 : to);
        if (to < 0)
            continue;
        if (dst != src)
            memcpy(&p->boards[dst], &p->boards[src], sizeof p->boards[dst]);
        int32_t par = p->parent[src];
        p->parent[dst] = src == new_root || par < 0 ? -1 : (int32_t)(base + mapping[par - base]);
        p->move[dst] = src == new_root ? -1 : p->move[src];
        p->key[dst] = p->key[src];
        p->valid[dst] = 1;
    }
    for (int32_t off = kept; off < m; off++) {
        p->valid[base + off] = 0;
        p->parent[base + off] = -1;
    }
    return kept;
}
