/* Machine topology: how many workers by default, and where each one runs.
 *
 * hwloc gives the cores this process may use (its topology is restricted
 * to the allowed CPU set by default, so `taskset` and cgroups are honoured).
 * Default: one worker per core. With WEFT_BIND=core (the default) worker i
 * is pinned to core i mod ncores, so a worker's run queue stays warm in one
 * core's caches; WEFT_BIND=none leaves placement to the kernel (useful when
 * several Weft processes share a machine). Worker 0 is the caller's kernel
 * thread: its original binding is saved and restored by weft_fini().
 * Without hwloc information (error), we fall back to sysconf.
 */
#include <hwloc.h>
#include <unistd.h>

#include "sched/sched_internal.h"

static hwloc_topology_t topo;
static int have_topo;
static hwloc_cpuset_t saved_caller_set;

int wf_topology_init(void)
{
    if (have_topo)
        return 0;
    if (hwloc_topology_init(&topo) != 0)
        return WEFT_ENOMEM;
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
    if (worker_index == 0 && !saved_caller_set) {
        saved_caller_set = hwloc_bitmap_alloc();
        if (saved_caller_set)
            hwloc_get_cpubind(topo, saved_caller_set, HWLOC_CPUBIND_THREAD);
    }
    if (core && core->cpuset)
        hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD);
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
