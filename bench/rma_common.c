/* bench/rma: the names both the driver and the MPI program use (rma.h). */
#include "rma.h"

static const struct {
    const char *name;
    int bytes, latency;
} perf_cases[RMA_NPERF] = {
    [RMA_PUT_LAT] = {"put_lat_8B", 8, 1},
    [RMA_GET_LAT] = {"get_lat_8B", 8, 1},
    [RMA_PUT_BW_64K] = {"put_bw_64KiB", 64 << 10, 0},
    [RMA_PUT_BW_1M] = {"put_bw_1MiB", 1 << 20, 0},
};

const char *rma_perf_case_name(rma_perf_case c)
{
    return perf_cases[c].name;
}

int rma_perf_case_bytes(rma_perf_case c)
{
    return perf_cases[c].bytes;
}

int rma_perf_case_is_latency(rma_perf_case c)
{
    return perf_cases[c].latency;
}

const char *rma_variant_name(rma_variant v)
{
    static const char *const names[RMA_NVARIANTS] = {"weft", "openmpi",
                                                     "openmpi_tcp"};
    return names[v];
}
