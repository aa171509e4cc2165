/* --report-bindings: which CPUs each rank may run on, printed by mpirun
 * when the rank joins, in Open MPI's form:
 *   [host:pid] MCW rank R bound to CPUs 0-1
 *
 * Ranks bind themselves in MPI_Init, before they connect to mpirun
 * (mpi_shim/engine/core/bind.c, WEFT_MPI_BIND, which --bind-to sets), and
 * Weft's runtime then pins each worker thread to one CPU of that share
 * (WEFT_BIND). So the rank's binding is the union of its threads' CPU
 * sets, read from /proc/PID/task/TID/status (Cpus_allowed_list), not the
 * main thread's alone, which is worker 0's single CPU. Workers still
 * starting when the rank joins may be missed; they only narrow, never
 * widen, the set the process was given.
 *
 * A remote rank's /proc is on its host: its line says so.
 *
 * Rejected: having each rank print its own binding (ranks started by
 * another launcher would print it too, and it needs the MPI engine).
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* Add a "0-3,8,10-11" list to set. */
static void add_list(cpu_set_t *set, const char *list)
{
    while (*list >= '0' && *list <= '9') {
        char *end;
        long lo = strtol(list, &end, 10), hi = lo;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        list = end + (*end == ',');
    }
}

static void add_task(cpu_set_t *set, int pid, const char *tid)
{
    char path[300], line[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%s/status", pid, tid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Cpus_allowed_list:", 18)) {
            add_list(set, line + 18 + strspn(line + 18, " \t"));
            break;
        }
    if (f)
        fclose(f);
}

/* set as "0-3,8": consecutive CPUs joined into ranges. */
static void format_list(const cpu_set_t *set, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        if (hi == c)
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", c, hi);
    }
}

void wl_report_binding(const struct wl_rank *r)
{
    char path[64], cpus[1024] = "";
    cpu_set_t set;
    CPU_ZERO(&set);
    snprintf(path, sizeof path, "/proc/%d/task", (int)r->rpid);
    DIR *d = r->host->local ? opendir(path) : NULL;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.')
            add_task(&set, (int)r->rpid, e->d_name);
    if (d)
        closedir(d);
    if (CPU_COUNT(&set) > 0)
        format_list(&set, cpus, sizeof cpus);
    fprintf(stderr, "[%s:%d] MCW rank %d bound to CPUs %s\n", r->host->name, (int)r->rpid,
            r->rank, cpus[0] ? cpus : "(unknown: not on mpirun's host)");
}
