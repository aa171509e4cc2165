/* Where a preemption may land: the code ranges a thread must not be
 * switched out of.
 *
 * The preemption handler switches the interrupted thread out from inside
 * the signal handler. That is safe only if the interrupted code holds no
 * lock that the next thread on this worker could need. Two kinds of code
 * may hold such locks without Weft knowing:
 *   - libweft itself, between reading "my worker" and marking the worker
 *     busy (wf_rt_enter), and in every runtime path;
 *   - the C library and the loader (malloc arenas, stdio, dl locks), the
 *     C++ and unwinder runtimes, and the sanitizer runtimes: their locks
 *     belong to the kernel thread, so a second user thread on the same
 *     worker would deadlock on them.
 * At start-up we record the executable segments of those objects; the
 * handler compares the interrupted PC against them (a few compares, no
 * locks: async-signal-safe). A tick that lands there is deferred: it
 * becomes a pending preemption, taken at the next runtime exit or the next
 * tick (ARIADNE's passive delay). User code, including libraries such as
 * libm or the application's own, is preempted at once.
 *
 * Objects loaded later with dlopen() are not covered; their code counts as
 * user code.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "sched/sched_internal.h"

#define MAX_RANGES 64

typedef struct pc_range {
    uintptr_t lo, hi;
} pc_range;

static pc_range ranges[MAX_RANGES];
static int nranges;
static uintptr_t weft_base;

static const char *const unsafe_objects[] = {
    "/libc.so",     "/ld-linux",   "/ld64.so",    "/libpthread.so",
    "/libgcc_s.so", "/libstdc++.so", "/libasan.so", "/libubsan.so",
    "/libtsan.so",  "/liblsan.so", "/libhwloc.so", "/librt.so",
    "/libdl.so",
};

static int is_unsafe_object(const struct dl_phdr_info *info)
{
    const char *name = info->dlpi_name;
    if (!name || !*name)
        return 0; /* the executable: user code, even if libweft is in it */
    if (info->dlpi_addr == weft_base)
        return 1;
    for (size_t i = 0; i < sizeof unsafe_objects / sizeof *unsafe_objects; i++)
        if (strstr(name, unsafe_objects[i]))
            return 1;
    return 0;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!is_unsafe_object(info))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges].lo = lo;
        ranges[nranges].hi = lo + ph->p_memsz;
        nranges++;
    }
    return 0;
}

int wf_safepc_init(void)
{
    Dl_info self;
    nranges = 0;
    if (dladdr((void *)&wf_safepc_init, &self) && self.dli_fbase)
        weft_base = (uintptr_t)self.dli_fbase;
    dl_iterate_phdr(collect, NULL);
    /* If libweft is linked into the executable statically, its code is not
     * told apart from user code: then in_rt alone guards the runtime. */
    return nranges;
}

int wf_safepc_allows(const void *pc)
{
    uintptr_t p = (uintptr_t)pc;
    for (int i = 0; i < nranges; i++)
        if (p >= ranges[i].lo && p < ranges[i].hi)
            return 0;
    return 1;
}
