/* check.c: the invariant checker (recounts a board from scratch) and error messages.
 * Slow on purpose: it shares no bookkeeping with board.c, so it can catch its bugs. */
#include <stdbool.h>
#include <string.h>

#include "board.h"
#include "zobrist.h"

static int
check_layout(const gb_board *b)
{
    if (b->size < GB_MIN_SIZE || b->size > GB_MAX_SIZE || b->stride != b->size + 1)
        return GB_ERR_CHECK_LAYOUT;
    if (b->adj[0] != -b->stride || b->adj[1] != -1 || b->adj[2] != 1 ||
        b->adj[3] != b->stride)
        return GB_ERR_CHECK_LAYOUT;
    int on_board = 0;
    for (int v = 0; v < GB_ARR_SIZE; v++) {
        int row = v / b->stride - 1, col = v % b->stride - 1;
        bool inside = row >= 0 && row < b->size && col >= 0 && col < b->size;
        if (inside != (b->color[v] != GB_WALL))
            return GB_ERR_CHECK_LAYOUT;
        if (b->color[v] == GB_EMPTY || b->color[v] == GB_WALL) {
            if (b->head[v] != GB_NULL_LOC)
                return GB_ERR_CHECK_HEAD;
        } else if (b->color[v] != GB_BLACK && b->color[v] != GB_WHITE) {
            return GB_ERR_CHECK_LAYOUT;
        }
        on_board += inside;
    }
    return on_board == b->size * b->size ? GB_OK : GB_ERR_CHECK_LAYOUT;
}

static int
check_empty_list(const gb_board *b)
{
    int empties = 0;
    for (int v = 0; v < GB_ARR_SIZE; v++)
        empties += b->color[v] == GB_EMPTY;
    if (b->num_empty != empties)
        return GB_ERR_CHECK_EMPTY_LIST;
    for (int i = 0; i < b->num_empty; i++) {
        gb_loc v = b->empty[i];
        if (v <= 0 || v >= GB_ARR_SIZE || b->color[v] != GB_EMPTY || b->empty_idx[v] != i)
            return GB_ERR_CHECK_EMPTY_LIST;
    }
    for (int v = 0; v < GB_ARR_SIZE; v++) {
        if (b->color[v] == GB_WALL)
            continue;
        int count = 0;
        for (int d = 0; d < 4; d++)
            count += b->color[v + b->adj[d]] == GB_EMPTY;
        if (b->nempty[v] != count)
            return GB_ERR_CHECK_NEIGHBOURS;
    }
    return GB_OK;
}

/* Flood-fills the string at v, compares it with the circular list and the head data. */
static int
check_string(const gb_board *b, gb_loc v, bool *done)
{
    gb_loc stack[GB_MAX_POINTS];
    bool in_string[GB_ARR_SIZE], is_liberty[GB_ARR_SIZE];
    memset(in_string, 0, sizeof in_string);
    memset(is_liberty, 0, sizeof is_liberty);
    gb_color c = b->color[v];
    gb_loc h = b->head[v];
    if (h <= 0 || h >= GB_ARR_SIZE || b->color[h] != c || b->head[h] != h)
        return GB_ERR_CHECK_HEAD;
    int top = 0, count = 0, libs = 0;
    stack[top++] = v;
    in_string[v] = true;
    while (top > 0) {
        gb_loc s = stack[--top];
        count++;
        done[s] = true;
        if (b->head[s] != h)
            return GB_ERR_CHECK_HEAD;
        for (int d = 0; d < 4; d++) {
            gb_loc n = (gb_loc)(s + b->adj[d]);
            if (b->color[n] == c && !in_string[n]) {
                in_string[n] = true;
                stack[top++] = n;
            } else if (b->color[n] == GB_EMPTY && !is_liberty[n]) {
                is_liberty[n] = true;
                libs++;
            }
        }
    }
    if (b->stones[h] != count)
        return GB_ERR_CHECK_STONES;
    if (b->libs[h] != libs || libs == 0)
        return GB_ERR_CHECK_LIBERTIES;
    /* The circular list must visit exactly the flooded stones, each once. */
    int walked = 0;
    gb_loc s = h;
    do {
        if (s <= 0 || s >= GB_ARR_SIZE || !in_string[s] || walked > count)
            return GB_ERR_CHECK_LIST;
        in_string[s] = false;
        walked++;
        s = b->next[s];
    } while (s != h);
    return walked == count ? GB_OK : GB_ERR_CHECK_LIST;
}

int
gb_board_check(const gb_board *b)
{
    int rc = check_layout(b);
    if (rc == GB_OK)
        rc = check_empty_list(b);
    if (rc != GB_OK)
        return rc;
    bool done[GB_ARR_SIZE];
    memset(done, 0, sizeof done);
    uint64_t hash = 0;
    for (int v = 0; v < GB_ARR_SIZE; v++) {
        gb_color c = b->color[v];
        if (c != GB_BLACK && c != GB_WHITE)
            continue;
        hash ^= gb_zobrist_stone(c, v);
        if (!done[v] && (rc = check_string(b, v, done)) != GB_OK)
            return rc;
    }
    if (hash != b->hash)
        return GB_ERR_CHECK_HASH;
    if (b->ko_loc != GB_NULL_LOC &&
        (b->ko_loc < 0 || b->ko_loc >= GB_ARR_SIZE || b->color[b->ko_loc] != GB_EMPTY))
        return GB_ERR_CHECK_KO;
    if ((b->to_play != GB_BLACK && b->to_play != GB_WHITE) || b->passes < 0 ||
        b->move_number < 0 || b->captures[0] < 0 || b->captures[1] < 0 ||
        (b->resigned != GB_EMPTY && b->resigned != GB_BLACK && b->resigned != GB_WHITE))
        return GB_ERR_CHECK_STATE;
    return GB_OK;
}

const char *
gb_strerror(int code)
{
    switch (code) {
    case GB_OK: return "ok";
    case GB_ERR_OFF_BOARD: return "off-board";
    case GB_ERR_OCCUPIED: return "occupied";
    case GB_ERR_KO: return "ko";
    case GB_ERR_SUICIDE: return "suicide";
    case GB_ERR_SUPERKO: return "superko";
    case GB_ERR_GAME_OVER: return "game over";
    case GB_ERR_SIZE: return "board size out of range";
    case GB_ERR_BAD_COLOR: return "colour must be black, white or empty";
    case GB_ERR_NO_LIBERTY: return "a string has no liberty";
    case GB_ERR_SLOT:
        return "slot outside the pool or the parent's game, a root as child, or a child "
               "repeated or also a parent or an ancestor of one";
    case GB_ERR_EMPTY_SLOT: return "a slot holds no position";
    case GB_ERR_CHECK_LAYOUT: return "invariant broken: walls or board layout";
    case GB_ERR_CHECK_EMPTY_LIST: return "invariant broken: empty-point list";
    case GB_ERR_CHECK_HEAD: return "invariant broken: string head";
    case GB_ERR_CHECK_LIST: return "invariant broken: string list";
    case GB_ERR_CHECK_STONES: return "invariant broken: string stone count";
    case GB_ERR_CHECK_LIBERTIES: return "invariant broken: string liberty count";
    case GB_ERR_CHECK_HASH: return "invariant broken: Zobrist hash";
    case GB_ERR_CHECK_KO: return "invariant broken: ko point";
    case GB_ERR_CHECK_STATE: return "invariant broken: game state";
    case GB_ERR_CHECK_NEIGHBOURS: return "invariant broken: empty-neighbour count";
    default: return "unknown error";
    }
}
