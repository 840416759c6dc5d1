/* keyset.h: a set of 64-bit superko keys (open addressing, linear probing), so a legality
 * check costs O(1) however long the game. The caller owns and sizes the slot array. */
#ifndef GB_KEYSET_H
#define GB_KEYSET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gb_keyset {
    uint64_t *slots; /* mask + 1 entries, a power of two; 0 marks a free slot */
    int32_t mask;    /* capacity - 1 */
    int32_t count;   /* keys held in slots, key 0 included; keep count <= capacity / 2 */
    bool has_zero;   /* key 0 (the empty board's hash) cannot live in a slot */
    /* No position whose key is held (slots or extra) had more stones than this, so a
     * move to a position with more stones repeats none of them: legal-move generation
     * skips the lookups of quiet moves while the game has no capture to undo. */
    int16_t most_stones;
    /* A few more keys searched linearly, not owned: a search path on top of a game's
     * record shares the record's slots without copying them. */
    const uint64_t *extra;
    int32_t n_extra;
} gb_keyset;

/* Empties the set over slots[0..capacity) (capacity a power of two >= 2), no extras,
 * most_stones 0. */
void gb_keyset_init(gb_keyset *set, uint64_t *slots, int32_t capacity);

/* Inline: legal-move generation asks once per empty point. Zobrist keys are uniformly
 * random already, so their low bits index the table. Slots are read four at a time and
 * combined without a branch per slot: whether a slot is free is a coin toss at half
 * load, so a branch on each mispredicted often, while four taken slots in a row without
 * the key (the only case that loops) are rare. Reading past a free slot is harmless:
 * only the slots before the first free one decide. */
static inline bool
gb_keyset_contains(const gb_keyset *set, uint64_t key)
{
    for (int32_t j = 0; j < set->n_extra; j++) {
        if (set->extra[j] == key)
            return true;
    }
    if (key == 0)
        return set->has_zero;
    const uint64_t *slots = set->slots;
    const uint32_t mask = (uint32_t)set->mask;
    for (uint32_t i = (uint32_t)key & mask;; i = (i + 4) & mask) {
        uint64_t s0 = slots[i], s1 = slots[(i + 1) & mask];
        uint64_t s2 = slots[(i + 2) & mask], s3 = slots[(i + 3) & mask];
        bool hit = (s0 == key) |
                   ((s0 != 0) & ((s1 == key) | ((s1 != 0) & ((s2 == key) |
                                                              ((s2 != 0) & (s3 == key))))));
        bool vacant = (s0 == 0) | (s1 == 0) | (s2 == 0) | (s3 == 0);
        if (hit | vacant)
            return hit;
    }
}

/* Hints that gb_keyset_contains(set, key) comes soon: starts loading the key's home
 * slot, so a batch of lookups waits for memory once instead of once per key. */
static inline void
gb_keyset_prefetch(const gb_keyset *set, uint64_t key)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&set->slots[key & (uint64_t)set->mask]);
#else
    (void)set;
    (void)key;
#endif
}

/* Adds key, the key of a position with `stones` stones (most_stones rises to it);
 * returns false if the key was already there. Precondition: count < capacity / 2. */
bool gb_keyset_insert(gb_keyset *set, uint64_t key, int stones);

/* Removes key, which the most recent successful insert added (LIFO order only: with
 * linear probing, only a key inserted later could have probed past its slot).
 * most_stones stays: a bound that is too high only costs lookups. */
void gb_keyset_remove_last(gb_keyset *set, uint64_t key);

#endif /* GB_KEYSET_H */
