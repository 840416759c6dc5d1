# Declarations mirroring gb_config.h, zobrist.h and board.h, in their order. No logic.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "gb_config.h" nogil:
    enum:
        GB_MAX_SIZE
        GB_MIN_SIZE
        GB_ARR_SIZE
        GB_MAX_POINTS
    ctypedef int16_t gb_loc
    ctypedef int8_t gb_color
    enum:
        GB_EMPTY
        GB_BLACK
        GB_WHITE
        GB_WALL
    enum:
        GB_NULL_LOC
        GB_PASS_LOC
    enum:
        GB_KO_SIMPLE
        GB_KO_POSITIONAL
        GB_KO_SITUATIONAL
    enum:
        GB_OK
        GB_ERR_OFF_BOARD
        GB_ERR_OCCUPIED
        GB_ERR_KO
        GB_ERR_SUICIDE
        GB_ERR_SUPERKO
        GB_ERR_GAME_OVER
        GB_ERR_SIZE
        GB_ERR_BAD_COLOR
        GB_ERR_NO_LIBERTY
        GB_ERR_SLOT
        GB_ERR_EMPTY_SLOT


cdef extern from "zobrist.h" nogil:
    uint64_t gb_zobrist_stone(gb_color c, gb_loc loc)


cdef extern from "keyset.h" nogil:
    ctypedef struct gb_keyset:
        uint64_t *slots
        int32_t mask
        int32_t count
        bint has_zero
        int16_t most_stones
        const uint64_t *extra
        int32_t n_extra

    void gb_keyset_init(gb_keyset *set, uint64_t *slots, int32_t capacity)
    bint gb_keyset_contains(const gb_keyset *set, uint64_t key)
    bint gb_keyset_insert(gb_keyset *set, uint64_t key, int stones)
    void gb_keyset_remove_last(gb_keyset *set, uint64_t key)


cdef extern from "board.h" nogil:
    ctypedef struct gb_rules:
        int8_t ko
        int8_t suicide

    ctypedef struct gb_board:
        int8_t size
        int8_t to_play
        int8_t passes
        int8_t resigned
        gb_loc ko_loc
        gb_loc last_move
        int16_t num_empty
        int16_t captures[2]
        int32_t move_number
        uint64_t hash
        gb_color color[GB_ARR_SIZE]
        gb_loc head[GB_ARR_SIZE]
        gb_loc next[GB_ARR_SIZE]
        int16_t libs[GB_ARR_SIZE]
        int16_t stones[GB_ARR_SIZE]

    gb_loc gb_board_loc(const gb_board *b, int point)
    int gb_board_point(const gb_board *b, gb_loc loc)
    bint gb_board_is_over(const gb_board *b)
    int gb_board_stone_count(const gb_board *b)

    int gb_board_init(gb_board *b, int size)
    int gb_board_setup(gb_board *b, const int8_t *stones, gb_color to_play)

    uint64_t gb_board_superko_key(const gb_board *b, int ko_rule)
    uint64_t gb_board_situation_hash(const gb_board *b)
    int gb_board_legality(const gb_board *b, gb_loc loc, const gb_rules *rules,
                          const gb_keyset *history)
    int gb_board_legal_points(const gb_board *b, const gb_rules *rules,
                              const gb_keyset *history, int16_t *out)
    void gb_board_legal_mask(const gb_board *b, const gb_rules *rules,
                             const gb_keyset *history, uint8_t *out)
    void gb_board_ownership(const gb_board *b, int8_t *out)
    double gb_board_score(const gb_board *b, double komi)

    int gb_board_play(gb_board *b, gb_loc loc, const gb_rules *rules,
                      const gb_keyset *history)
    void gb_board_play_unchecked(gb_board *b, gb_loc loc)
    int gb_board_resign(gb_board *b)
    int gb_board_set_to_play(gb_board *b, gb_color to_play)

    int gb_board_check(const gb_board *b)
    const char *gb_strerror(int code)


cdef extern from "playout.h" nogil:
    ctypedef struct gb_rng:
        uint64_t state

    void gb_rng_seed(gb_rng *rng, uint64_t seed, uint64_t stream)
    bint gb_board_is_true_eye(const gb_board *b, gb_loc loc, gb_color c)
    int gb_playout(gb_board *b, gb_rng *rng, int max_moves)
    void gb_playouts(const gb_board *start, int64_t n, uint64_t seed, int max_moves,
                     double komi, double *scores, int32_t *placed, int32_t *ownership)
    uint64_t gb_perft(const gb_board *b, const gb_rules *rules, gb_keyset *history,
                      int depth)


cdef extern from "ladder.h" nogil:
    enum:
        GB_LADDER_NODES
        GB_LADDER_DEPTH

    void gb_ladder_load(gb_board *scratch, const gb_board *b)
    bint gb_ladder_captures(gb_board *scratch, gb_loc move, gb_loc target)
    bint gb_ladder_escapes(gb_board *scratch, gb_loc move, gb_loc target)


cdef extern from "planes.h" nogil:
    enum:
        GB_HISTORY
        GB_FEATURES_AGZ17
        GB_FEATURES_LZ18
        GB_FEATURES_ALPHAGO48
        GB_FEATURES_ALPHAGO49

    ctypedef struct gb_stone_history:
        int8_t count
        int8_t latest

    ctypedef struct gb_plane_info:
        const char *name
        const char *description

    bint gb_features_need_moves(int set)
    int gb_features_count(int set)
    const gb_plane_info *gb_features_plane(int set, int i)
    void gb_history_reset(gb_stone_history *h, const gb_board *b)
    void gb_history_push(gb_stone_history *h, const gb_board *b)
    ctypedef struct gb_legal_source:
        const uint8_t *const *mask
        const gb_rules *const *rules
        const gb_keyset *const *keys

    int gb_features_write_f32(const gb_board *const *boards,
                              const gb_stone_history *const *histories,
                              const gb_legal_source *legal, int64_t n, int set,
                              gb_board *scratch, float *out, int64_t stride_b)
    int gb_features_write_u8(const gb_board *const *boards,
                             const gb_stone_history *const *histories,
                             const gb_legal_source *legal, int64_t n, int set,
                             gb_board *scratch, uint8_t *out, int64_t stride_b)


cdef extern from "pool.h" nogil:
    ctypedef struct gb_pool:
        gb_board *boards
        int32_t *parent
        int16_t *move
        uint64_t *key
        uint8_t *valid
        uint32_t *stamp
        uint32_t epoch
        int32_t games
        int32_t slots_per_root
        gb_rules *rules
        double *komi
        gb_keyset *record
        gb_stone_history *past

    int gb_pool_check_slots(const gb_pool *p, const int64_t *slots, int64_t n,
                            int64_t *failed)
    gb_keyset gb_pool_history(const gb_pool *p, int64_t slot, uint64_t *path)
    int gb_pool_expand(gb_pool *p, const int64_t *parents, const int32_t *points,
                       const int64_t *children, int64_t n, uint64_t *path,
                       int64_t *failed)
    void gb_pool_legal_masks(const gb_pool *p, const int64_t *slots, int64_t n,
                             uint8_t *out, uint64_t *path)
    void gb_pool_eye_masks(const gb_pool *p, const int64_t *slots, int64_t n,
                           uint8_t *out)
    void gb_pool_stone_history(const gb_pool *p, int64_t slot, gb_stone_history *out)
    uint64_t gb_pool_eval_key(const gb_pool *p, int64_t slot)
    int32_t gb_pool_reroot(gb_pool *p, int32_t g, int64_t new_root, int32_t *mapping)


cdef extern from "patterns.h" nogil:
    enum:
        GB_PAT3_RAW
        GB_PAT3_CLASSES
        GB_RESPONSE_BUCKETS
        GB_DIAMOND


cdef extern from "rollout.h" nogil:
    enum:
        GB_RF_CAPTURE
        GB_RF_SAVE_ATARI
        GB_RF_SELF_ATARI
        GB_RF_NEAR_PREV
        GB_RF_PAT3
        GB_RF_RESPONSE
        GB_RF_COUNT
        GB_RF_MAX_ACTIVE

    ctypedef struct gb_rollout_policy:
        pass

    ctypedef struct gb_rollout:
        gb_board board

    void gb_rollout_policy_set(gb_rollout_policy *p, const float *weights)
    int gb_rollout_features(const gb_board *b, int16_t *points, int32_t *index)
    void gb_rollout_start(gb_rollout *r, const gb_board *b, const gb_rollout_policy *p)
    void gb_rollout_play(gb_rollout *r, const gb_rollout_policy *p, gb_loc loc)
    gb_loc gb_rollout_choose(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng)
    void gb_rollout_probabilities(gb_rollout *r, const gb_rollout_policy *p, float *out)
    int gb_rollout_run(gb_rollout *r, const gb_rollout_policy *p, gb_rng *rng,
                       int max_moves, int16_t *moves, int *played)
    void gb_rollouts(const gb_board *start, const gb_rollout_policy *p, int64_t n,
                     uint64_t seed, int max_moves, double komi, double *scores,
                     int32_t *placed)
    int gb_rollout_check(const gb_rollout *r, const gb_rollout_policy *p, int *where)
