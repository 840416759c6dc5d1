/* keyset.c: see keyset.h. */
#include "keyset.h"

#include <string.h>

void
gb_keyset_init(gb_keyset *set, uint64_t *slots, int32_t capacity)
{
    memset(slots, 0, (size_t)capacity * sizeof *slots);
    set->slots = slots;
    set->mask = capacity - 1;
    set->count = 0;
    set->has_zero = false;
    set->most_stones = 0;
    set->extra = NULL;
    set->n_extra = 0;
}

static inline int32_t
home(const gb_keyset *set, uint64_t key)
{
    return (int32_t)(key & (uint64_t)set->mask);
}

bool
gb_keyset_insert(gb_keyset *set, uint64_t key, int stones)
{
    if (stones > set->most_stones)
        set->most_stones = (int16_t)stones;
    if (key == 0) {
        if (set->has_zero)
            return false;
        set->has_zero = true;
        set->count++;
        return true;
    }
    int32_t i = home(set, key);
    for (; set->slots[i] != 0; i = (i + 1) & set->mask) {
        if (set->slots[i] == key)
            return false;
    }
    set->slots[i] = key;
    set->count++;
    return true;
}

void
gb_keyset_remove_last(gb_keyset *set, uint64_t key)
{
    if (key == 0) {
        set->has_zero = false;
        set->count--;
        return;
    }
    for (int32_t i = home(set, key);; i = (i + 1) & set->mask) {
        if (set->slots[i] == key) {
            set->slots[i] = 0;
            set->count--;
            return;
        }
    }
}
