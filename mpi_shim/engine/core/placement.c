/* Placement: which ranks of the job run on the same single CPU.
 *
 * Design. When ranks outnumber a host's CPUs, bind.c gives each rank one
 * CPU and neighbouring ranks share it. A message between two ranks on one
 * CPU costs a yield (the receiver runs as soon as the sender waits); one
 * between CPUs costs a wake-up on another CPU. Collectives that know this
 * keep most rounds on one CPU (coll_cpus.c). At MPI_Init every
 * rank publishes (host, CPU) through the launcher (wmpi_boot_allgather):
 * the host is the kernel's boot id (ranks in different network namespaces
 * of one machine still share its CPUs), the CPU is the one CPU the process
 * may run on, or none when its affinity holds several (it then shares no
 * CPU in a way we can name). Reading the affinity rather than asking
 * bind.c also covers ranks bound by whoever started them.
 * Ranks with equal (host, CPU) get the same slot number; a rank with no
 * single CPU gets -1. Every rank computes the same table from the same
 * gathered bytes, so collectives that choose by it agree.
 *
 * Cost: one more exchange through the launcher at MPI_Init.
 *
 * Locking: the table is written once in MPI_Init, before any collective,
 * and only read after.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/internal.h"

#define HOST_LEN 40 /* a boot id's text (36 characters), its newline, NUL */

typedef struct place_card {
    char host[HOST_LEN]; /* the boot id's text */
    int32_t cpu; /* -1: not bound to one CPU */
} place_card;

static int *slot_of; /* [world size], or NULL (singleton, or no memory) */

static void host_of(char host[HOST_LEN])
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    memset(host, 0, HOST_LEN);
    if (f) {
        if (!fgets(host, HOST_LEN, f))
            memset(host, 0, HOST_LEN);
        fclose(f);
    }
}

static int32_t single_cpu(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    return -1;
}

/* Slot numbers: the index of the first rank with the same card. */
static void number_slots(const place_card *cards, int n)
{
    for (int r = 0; r < n; r++) {
        slot_of[r] = -1;
        for (int q = 0; q <= r && cards[r].cpu >= 0; q++)
            if (cards[q].cpu == cards[r].cpu &&
                memcmp(cards[q].host, cards[r].host, sizeof cards[r].host) == 0) {
                slot_of[r] = q;
                break;
            }
    }
}

int wmpi_placement_init(wmpi_boot *b)
{
    place_card mine, *all;
    int err;

    if (b->size <= 1)
        return 0;
    memset(&mine, 0, sizeof mine);
    host_of(mine.host);
    mine.cpu = single_cpu();
    all = calloc((size_t)b->size, sizeof *all);
    slot_of = calloc((size_t)b->size, sizeof *slot_of);
    if (!all || !slot_of) {
        free(all);
        free(slot_of);
        slot_of = NULL;
        return WEFT_ENOMEM;
    }
    err = wmpi_boot_allgather(b, &mine, sizeof mine, all);
    if (!err)
        number_slots(all, b->size);
    free(all);
    if (err)
        wmpi_placement_fini();
    return err;
}

int wmpi_placement_slot(int world_rank)
{
    return slot_of ? slot_of[world_rank] : -1;
}

void wmpi_placement_fini(void)
{
    free(slot_of);
    slot_of = NULL;
}
