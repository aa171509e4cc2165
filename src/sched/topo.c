/* Machine topology: how many workers by default, and where each one runs.
 *
 * hwloc gives the cores this process may use: its topology is restricted
 * to the allowed CPU set (cgroups) and to the process's binding at
 * weft_init (HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING), so `taskset`, a
 * launcher's per-rank binding (Open MPI's) and the MPI shim's own (one
 * share of the cores per local rank) are honoured.
 * Default: one worker per core. With WEFT_BIND=core (the default) worker i
 * is pinned to core i mod ncores, so a worker's run queue stays warm in one
 * core's caches; WEFT_BIND=none leaves placement to the kernel (useful when
 * several Weft processes share a machine). Worker 0 is the caller's kernel
 * thread: its original binding is saved and restored by weft_fini().
 * Without hwloc information (error), we fall back to sysconf.
 *
 * Helper kernel threads of the upper layers (the I/O server's threads,
 * the timer service, ...) are created by whichever worker needs them and
 * would inherit its pin - in practice worker 0's core, where the main
 * thread runs. A woken server thread would then wait for that one core
 * even while the others idle (the kernel runs it only at the next tick of
 * a core busy with compute, 4 ms at HZ=250): millisecond wake-up tails.
 * wf_sched_helper_affinity() gives such a thread the CPU set the process
 * had before pinning.
 */
#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include "sched/sched_internal.h"

static hwloc_topology_t topo;
static int have_topo;
static hwloc_cpuset_t saved_caller_set;
/* The CPUs the process may use, for helper threads (never freed: a helper
 * may start at any time, even during weft_fini). */
static cpu_set_t helper_set;
static int have_helper_set; /* atomic */

int wf_topology_init(void)
{
    if (have_topo)
        return 0;
    if (hwloc_topology_init(&topo) != 0)
        return WEFT_ENOMEM;
    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                       HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return WEFT_EAGAIN;
    }
    have_topo = 1;
    return 0;
}

int wf_topology_default_workers(void)
{
    int n = have_topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) : 0;
    if (n <= 0)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

void wf_topology_bind(int worker_index)
{
    if (!have_topo || !wf_g.bind_workers)
        return;
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0)
        return;
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, worker_index % ncores);
    if (worker_index == 0 && !__atomic_load_n(&have_helper_set, __ATOMIC_ACQUIRE) &&
        sched_getaffinity(0, sizeof helper_set, &helper_set) == 0)
        __atomic_store_n(&have_helper_set, 1, __ATOMIC_RELEASE);
    if (worker_index == 0 && !saved_caller_set) {
        saved_caller_set = hwloc_bitmap_alloc();
        if (saved_caller_set)
            hwloc_get_cpubind(topo, saved_caller_set, HWLOC_CPUBIND_THREAD);
    }
    if (core && core->cpuset)
        hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD);
}

void wf_sched_helper_affinity(void)
{
    if (__atomic_load_n(&have_helper_set, __ATOMIC_ACQUIRE))
        sched_setaffinity(0, sizeof helper_set, &helper_set);
}

void wf_topology_unbind_caller(void)
{
    if (!have_topo || !saved_caller_set)
        return;
    hwloc_set_cpubind(topo, saved_caller_set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(saved_caller_set);
    saved_caller_set = NULL;
}

void wf_topology_forget(void)
{
    have_topo = 0; /* after fork: the old topology is abandoned, not freed */
    saved_caller_set = NULL;
}

void wf_topology_fini(void)
{
    if (!have_topo)
        return;
    hwloc_topology_destroy(topo);
    have_topo = 0;
}
