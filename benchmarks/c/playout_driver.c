/* playout_driver.c: runs random playouts in plain C, for instruction counts.
 *
 *   usage: playout_driver SIZE PLAYOUTS [SEED]
 *
 * Prints the stones placed, so `valgrind --tool=callgrind` totals divided by it give
 * machine instructions per placed stone (benchmarks/callgrind_playouts.sh does this). */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"
#include "playout.h"

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SIZE PLAYOUTS [SEED]\n", argv[0]);
        return 2;
    }
    int size = atoi(argv[1]);
    long n = atol(argv[2]);
    unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    gb_board start, b;
    if (gb_board_init(&start, size) != GB_OK || n <= 0) {
        fprintf(stderr, "bad size or playout count\n");
        return 2;
    }
    long long stones = 0;
    double total = 0;
    for (long i = 0; i < n; i++) {
        gb_rng rng;
        gb_rng_seed(&rng, seed, (uint64_t)i);
        b = start;
        stones += gb_playout(&b, &rng, 3 * size * size);
        total += gb_board_score(&b, 7.5);
    }
    printf("size %d playouts %ld stones %lld mean_score %.3f\n", size, n, stones,
           total / (double)n);
    return 0;
}
