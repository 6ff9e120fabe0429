/* tests/blocked_host.h - the CPU engine of the blocked level-3 routines
 * (src/gpu/tb_blocked.h): the GEMM and the three diagonal-block steps of
 * kernels/tb_blocks.h as plain loops on host pointers, every element type
 * through one code (elements read into double complex, written back in
 * their type). It counts what it is given, so that tests can check how a
 * call was cut. */
#ifndef TB_BLOCKED_HOST_H
#define TB_BLOCKED_HOST_H

#include "tb_blocked.h"

typedef struct blk_host {
    /* flops as tb_call_flops counts them (complex types: 4 times): GEMMs
     * 2 m n k (k 0 when alpha is 0), triangular steps n n m */
    double gemm_flops, tri_flops;
    long gemms, merges, fulls, tris;
    long scratch_live;        /* allocations not yet freed                  */
    size_t scratch_max;       /* the largest asked for                      */
    int fail_scratch;         /* 1: scratch() returns NULL                  */
} blk_host;

/* The engine with ctx h (counts zeroed by the caller). */
tb_l3_engine blk_host_engine(blk_host *h);

#endif
