/* alphago_planes.h: the writer of the AlphaGo 2016 plane sets (alphago48, alphago49),
 * which gb_features_write_f32/u8 call for them (planes.h has the contract). */
#ifndef GB_ALPHAGO_PLANES_H
#define GB_ALPHAGO_PLANES_H

#include <stdbool.h>
#include <stdint.h>

#include "planes.h"

/* gb_features_write_f32 (floats) or gb_features_write_u8 (!floats) for an alphago set:
 * out holds float or uint8_t values. */
void gb_alphago_planes_write(const gb_board *const *boards,
                             const gb_stone_history *const *histories,
                             const gb_legal_source *legal, int64_t count, int set,
                             gb_board *scratch, void *out, int64_t stride_b, bool floats);

#endif /* GB_ALPHAGO_PLANES_H */
