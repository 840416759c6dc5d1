/* zobrist.c: the key table, computed by the compiler from splitmix64 with a fixed seed.
 *
 * Every key is a constant expression, so the table lives in read-only data, is identical
 * in every build and needs no init call (and no thread-safe once-flag). */
#include "zobrist.h"

#define GB_ZOBRIST_SEED UINT64_C(0x676f626f61726431) /* "goboard1" */
#define GB_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's output function applied to seed + (i + 1) * golden ratio. */
#define GB_MIX1(z) (((z) ^ ((z) >> 30)) * UINT64_C(0xbf58476d1ce4e5b9))
#define GB_MIX2(z) (((z) ^ ((z) >> 27)) * UINT64_C(0x94d049bb133111eb))
#define GB_MIX3(z) ((z) ^ ((z) >> 31))
#define GB_KEY(i) GB_MIX3(GB_MIX2(GB_MIX1(GB_ZOBRIST_SEED + ((uint64_t)(i) + 1) * GB_GOLDEN)))

#define GB_K1(i) GB_KEY(i),
#define GB_K2(i) GB_K1(i) GB_K1((i) + 1)
#define GB_K4(i) GB_K2(i) GB_K2((i) + 2)
#define GB_K8(i) GB_K4(i) GB_K4((i) + 4)
#define GB_K16(i) GB_K8(i) GB_K8((i) + 8)
#define GB_K32(i) GB_K16(i) GB_K16((i) + 16)
#define GB_K64(i) GB_K32(i) GB_K32((i) + 32)
#define GB_K128(i) GB_K64(i) GB_K64((i) + 64)
#define GB_K256(i) GB_K128(i) GB_K128((i) + 128)
#define GB_K512(i) GB_K256(i) GB_K256((i) + 256)

const uint64_t gb_zobrist_keys[GB_ZOBRIST_KEYS] = {
    GB_K512(0) GB_K512(512) GB_K512(1024)
};
