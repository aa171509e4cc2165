/* bench/ab_fake: a stand-in benchmark for the smoke test of bench/ab
 * (ab_smoke.cmake). It prints its `result:` lines at once, with values
 * that the environment and its build set, so the ratios ab must report
 * are known in advance:
 *   rtt        10 us, times 2 when WEFT_DISABLE names "fake";
 *   throughput 1000 ops_per_s, times AB_FAKE_SCALE (default 1);
 *   both times AB_FAKE_BUILD_SCALE, a compile definition (ab_fake_old: 4);
 *   an openmpi variant that nothing changes (--variant weft drops it).
 * It also prints the WEFT_DISABLE it sees (a plain line). AB_FAKE_FAIL set
 * makes it exit with status 3 after its lines; AB_FAKE_SILENT set makes
 * it print no result line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AB_FAKE_BUILD_SCALE
#define AB_FAKE_BUILD_SCALE 1
#endif

/* Whether the comma-separated list names `name`. */
static int names(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(void)
{
    const char *disable = getenv("WEFT_DISABLE");
    const char *scale = getenv("AB_FAKE_SCALE");
    double build = AB_FAKE_BUILD_SCALE;
    double rtt = 10 * build * (names(disable, "fake") ? 2 : 1);
    double throughput = 1000 * build * (scale ? atof(scale) : 1);

    printf("ab_fake: WEFT_DISABLE=%s\n", disable ? disable : "(unset)");
    if (!getenv("AB_FAKE_SILENT")) {
        printf("result: bench=fake case=N=1 variant=weft metric=rtt value=%g unit=us\n", rtt);
        printf("result: bench=fake case=N=1 variant=weft metric=throughput "
               "value=%g unit=ops_per_s\n", throughput);
        printf("result: bench=fake case=N=1 variant=openmpi metric=rtt value=50 unit=us\n");
    }
    return getenv("AB_FAKE_FAIL") ? 3 : 0;
}
