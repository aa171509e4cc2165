/* bench/osu_like, collective latency: names, sizes and the plan, shared by
 * the driver and the MPI program (see osu_like_coll.c for the method).
 *
 * Sizes: powers of 8 from 8 B to 1 MiB and 1 KiB (the largest size of
 * the "<= 1 KiB" goals; 1 MiB is the largest size the goals cover);
 * --quick: 8 B, 1 KiB and 64 KiB. Rank counts: 2, 4 and 8.
 */
#include "osu_like_coll.h"

#include <stdio.h>

static const int full_sizes[] = {8, 64, 512, 1024, 4096, 32768, 262144,
                                 1048576};
static const int quick_sizes[] = {8, 1024, 65536};
static const int no_size[] = {0};
static const int nps[OLC_NNPS] = {2, 4, 8};

static const char *const coll_names[OLC_NCOLLS] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};

const char *olc_coll_name(olc_coll c)
{
    return c < OLC_NCOLLS ? coll_names[c] : "?";
}

int olc_coll_parse(const char *name)
{
    return bench_name_index(coll_names, OLC_NCOLLS, name);
}

int olc_sizes(olc_coll c, int quick, const int **sizes)
{
    if (c == OLC_BARRIER) {
        *sizes = no_size;
        return 1;
    }
    *sizes = quick ? quick_sizes : full_sizes;
    return quick ? BENCH_COUNT(quick_sizes) : BENCH_COUNT(full_sizes);
}

int olc_np(int index)
{
    return index >= 0 && index < OLC_NNPS ? nps[index] : 0;
}

const char *olc_case(char *buf, size_t size, olc_coll c, int bytes, int np)
{
    snprintf(buf, size, "%s_%d_np%d", olc_coll_name(c), bytes, np);
    return buf;
}

const char *olc_variant_name(olc_variant v)
{
    static const char *const names[OLC_NVARIANTS] = {"weft", "openmpi",
                                                     "openmpi_tcp", "weft_msg"};
    return v < OLC_NVARIANTS ? names[v] : "?";
}

olc_plan olc_make_plan(int quick, int repeats)
{
    olc_plan p;
    p.quick = quick;
    p.repeats = repeats;
    p.colls = OLC_ALL_COLLS;
    p.target_ns = quick ? 3000000 : 20000000;
    p.budget_ns = quick ? 4000000000LL : 8000000000LL;
    return p;
}
