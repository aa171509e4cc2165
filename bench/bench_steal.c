/* Hypervisor steal: the time a virtual machine's host ran something else
 * on this machine's virtual CPUs ("steal" in /proc/stat). On the shared
 * 2-vCPU machines where these benchmarks run it comes in waves: a few
 * tenths of a percent for minutes, then 10-35% (measured). A benchmark
 * run inside such a wave compares variants that each lost CPU at other
 * moments; its ratios swing by 2x and more (an 8 B ping-pong ratio of 28
 * once). So each benchmark says how much was stolen while it ran.
 */
#include <stdio.h>

#include "bench_util.h"

#define UNRELIABLE_PERCENT 5.0

void bench_steal_mark(bench_steal *s)
{
    unsigned long long v[8] = { 0 };
    FILE *f = fopen("/proc/stat", "r");
    s->ok = f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                        &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8;
    if (f)
        fclose(f);
    s->steal = v[7];
    s->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}

double bench_steal_percent(const bench_steal *since)
{
    bench_steal now;
    bench_steal_mark(&now);
    if (!since->ok || !now.ok || now.total <= since->total)
        return -1;
    return 100.0 * (double)(now.steal - since->steal) / (double)(now.total - since->total);
}

void bench_print_steal(FILE *f, const char *what, const bench_steal *since)
{
    double p = bench_steal_percent(since);
    if (p < 0)
        return; /* no /proc/stat: not Linux, or hidden */
    fprintf(f, "hypervisor steal during %s: %.1f%% of CPU time%s\n", what, p,
            p > UNRELIABLE_PERCENT ? " - the host was busy: ratios above are unreliable, "
                                     "run again" : "");
}
