/* The shared-memory segments of an MPI job, measured from inside it (see
 * mpi_segments.h for who calls what).
 *
 * What is counted. Each library's segments are recognised by name in
 * /proc/self/maps:
 *   Weft     memfd mappings "/memfd:weft-mpi-shm (deleted)": each rank
 *            makes one segment at MPI_Init and maps every local peer's
 *            (mpi_shim/transport/shm_setup.c), so a rank of an n-rank job
 *            on one host maps n segments, one of them its own;
 *   Open MPI vader's files /dev/shm/vader_segment.<host>.<job>.<rank>,
 *            one per rank, each also mapped by every local peer.
 * A segment is counted once however many pieces map it (by inode). Its
 * size is the file's (stat of its path, or of /proc/self/map_files/<range>
 * for a memfd, which the kernel allows with CAP_SYS_ADMIN only); failing
 * that, the mapping's length, whole pages. One rank's shared memory is
 * one segment: the others it maps are its peers'.
 *
 * Weft's formula. mpi_shim/transport/shm.h, wmpi_shm_segment_bytes(): a
 * segment is a control block (struct shm_ctl: a 64-byte line of sizes, a
 * line for the sleep flag, a line counting collective announcements), one
 * ring per local rank, each a 128-byte header (struct shm_ring: the
 * producer's line, the consumer's line) and the ring's bytes, and 32
 * collective slots of 4224 B (transport/shm_slots.h: two counter lines
 * and 4 KiB of data):
 *   nlocal x (ring + 128 B) + 192 B + 132 KiB.
 * The ring's size is read from the running job, in the segment's first
 * line (shm_ctl: magic "WSM1", nslots, ring_bytes); bench/ may not
 * include mpi_shim's headers, so that layout is repeated here, checked by
 * the magic. Without it the ring is taken as RING_BYTES in shm.c, 256 KiB
 * (128 KiB in the transport's first version). ms_print compares the
 * measured size with the formula (rounded up to pages when only the
 * mapping's length was read) and says so if they differ.
 */
#include "mpi_segments.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEFT_CTL_BYTES  192LL          /* struct shm_ctl */
#define WEFT_SLOTS_BYTES (32LL * 4224) /* WMPI_SHM_SLOTS x wmpi_shm_slot */
#define WEFT_RING_HEAD  128LL          /* struct shm_ring, without data */
#define WEFT_RING_BYTES (256LL * 1024) /* RING_BYTES in shm.c */
#define WEFT_SHM_MAGIC  0x57534d31u    /* SHM_MAGIC in shm.h: "WSM1" */
#define MAX_SEGS 64
#define LINE_LEN 640

static const struct {
    const char *lib, *needle;
} kinds[] = {{"weft", "/memfd:weft-mpi"}, {"vader", "/vader_segment."}};

/* ---------------------------------------------------------- scanning */

typedef struct scan {
    int kind; /* index in kinds[], -1: none found */
    int count, exact;
    long long bytes, ring;
    unsigned long inodes[MAX_SEGS];
} scan;

/* The first line of a Weft segment, as shm.h lays it out. */
typedef struct weft_ctl {
    uint32_t magic, nslots;
    uint64_t ring_bytes;
} weft_ctl;

/* Weft's ring size from the segment mapped at lo (it is ours to read:
 * mapped in this process); 0 if the header is not what we know. */
static long long weft_ring(unsigned long lo)
{
    weft_ctl c;
    memcpy(&c, (const void *)(uintptr_t)lo, sizeof c);
    return c.magic == WEFT_SHM_MAGIC ? (long long)c.ring_bytes : 0;
}

static int kind_of(const char *path)
{
    for (int k = 0; k < BENCH_COUNT(kinds); k++)
        if (strstr(path, kinds[k].needle))
            return k;
    return -1;
}

/* The segment's size: its file's, else the mapping's length. */
static long long size_of(unsigned long lo, unsigned long hi, char *path,
                         int *exact)
{
    char link[64];
    struct stat st;
    char *deleted = strstr(path, " (deleted)");
    if (deleted)
        *deleted = '\0';
    snprintf(link, sizeof link, "/proc/self/map_files/%lx-%lx", lo, hi);
    *exact = 1;
    if (path[0] == '/' && strncmp(path, "/memfd:", 7) != 0 &&
        stat(path, &st) == 0)
        return (long long)st.st_size;
    if (stat(link, &st) == 0)
        return (long long)st.st_size;
    *exact = 0;
    return (long long)(hi - lo);
}

static void scan_line(const char *line, scan *s)
{
    unsigned long lo, hi, inode;
    char path[LINE_LEN] = "";
    int exact, k, i;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %lu %639[^\n]", &lo, &hi, &inode,
               path) != 4 || (k = kind_of(path)) < 0)
        return;
    for (i = 0; i < s->count && s->inodes[i] != inode; i++)
        ;
    long long bytes = size_of(lo, hi, path, &exact);
    if (i == s->count && s->count < MAX_SEGS)
        s->inodes[s->count++] = inode;
    if (bytes > s->bytes)
        s->bytes = bytes, s->exact = exact;
    if (k == 0 && s->ring == 0 && strstr(line, " rw") &&
        hi - lo >= sizeof(weft_ctl))
        s->ring = weft_ring(lo);
    s->kind = k;
}

void ms_emit(FILE *f, const char *variant, int np)
{
    char line[LINE_LEN];
    scan s;
    memset(&s, 0, sizeof s);
    s.kind = -1;
    FILE *m = fopen("/proc/self/maps", "r");
    while (m && fgets(line, sizeof line, m))
        scan_line(line, &s);
    if (m)
        fclose(m);
    fprintf(f, "segments %s %d %s %d %lld %d %lld\n", variant, np,
            s.kind < 0 ? "none" : kinds[s.kind].lib, s.count, s.bytes,
            s.exact, s.ring);
    fflush(f);
}

/* ------------------------------------------------------------ driver */

long long ms_weft_formula(int nlocal, long long ring)
{
    return (long long)nlocal * ((ring > 0 ? ring : WEFT_RING_BYTES) +
                                WEFT_RING_HEAD) + WEFT_CTL_BYTES + WEFT_SLOTS_BYTES;
}

int ms_parse(const char *line, ms_table *t)
{
    ms_entry e;
    if (sscanf(line, "segments %39s %d %15s %d %lld %d %lld", e.variant,
               &e.np, e.lib, &e.count, &e.bytes, &e.exact, &e.ring) != 7)
        return 0;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->e[i].variant, e.variant) == 0 && t->e[i].np == e.np) {
            t->varied |= t->e[i].count != e.count || t->e[i].bytes != e.bytes;
            return 1;
        }
    if (t->n < MS_MAX_ENTRIES)
        t->e[t->n++] = e;
    return 1;
}

static long long page_round(long long bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        page = 4096;
    return (bytes + page - 1) / page * page;
}

/* "matches n x (ring + 128 B) + 192 B + 132 KiB = X B" for a Weft entry,
 * in buf. */
static const char *versus_formula(char *buf, size_t size, const ms_entry *e)
{
    long long ring = e->ring > 0 ? e->ring : WEFT_RING_BYTES;
    long long want = ms_weft_formula(e->np, ring);
    long long cmp = e->exact ? want : page_round(want);
    snprintf(buf, size, "%s %d x (%lld KiB + 128 B) + 192 B + 132 KiB = %lld B%s%s",
             e->bytes == cmp ? "matches" : "DIFFERS from", e->np, ring / 1024,
             want, e->exact ? "" : ", in whole pages",
             e->ring > 0 ? "" : " (ring size assumed, not read)");
    return buf;
}

static void print_entry(const ms_entry *e, FILE *f)
{
    char why[160] = "";
    if (e->count == 0) {
        fprintf(f, "  %-12s np%-3d %s\n", e->variant, e->np,
                "no shared-memory segment mapped (its pairs use TCP)");
        return;
    }
    if (strcmp(e->lib, "weft") == 0)
        versus_formula(why, sizeof why, e);
    fprintf(f, "  %-12s np%-3d %4d %-6s %10lld B %9.1f KiB%s  %s\n",
            e->variant, e->np, e->count, e->lib, e->bytes,
            (double)e->bytes / 1024, e->exact ? "" : " (pages)", why);
}

/* Rank of an entry in the printed order: job size, then `order`. */
static int place(const ms_entry *e, const char *const *order, int norder)
{
    int v = 0;
    while (v < norder && strcmp(e->variant, order[v]) != 0)
        v++;
    return e->np * (norder + 1) + v;
}

void ms_print(const ms_table *t, const char *const *order, int norder,
              const char *bench, FILE *f)
{
    char cname[BENCH_NAME_MAX];
    int done[MS_MAX_ENTRIES] = {0};
    if (t->n == 0)
        return;
    fprintf(f, "\nshared memory per rank, measured: rank 0's /proc/self/maps "
            "after MPI_Init (each rank makes one segment and maps its local "
            "peers'; per rank = one segment)\n  %-12s %-5s %4s %-6s %12s\n",
            "variant", "ranks", "maps", "kind", "one segment");
    for (int k = 0; k < t->n; k++) { /* selection: n is small */
        int best = -1;
        for (int i = 0; i < t->n; i++)
            if (!done[i] && (best < 0 || place(&t->e[i], order, norder) <
                                         place(&t->e[best], order, norder)))
                best = i;
        done[best] = 1;
        print_entry(&t->e[best], f);
    }
    fprintf(f, "  (Weft's formula: mpi_shim/transport/shm.h "
            "wmpi_shm_segment_bytes, nlocal x (ring + 128 B of indexes) + "
            "192 B of control + 132 KiB of collective slots, the ring's size "
            "read from the segment's header; Open MPI 4.1's vader: "
            "btl_vader_segment_size, 4 MiB by default)\n");
    if (t->varied)
        fprintf(f, "  (!) launches of one variant and job size mapped "
                "different segments: the first is shown\n");
    for (int i = 0; i < t->n; i++) {
        if (t->e[i].count == 0)
            continue;
        snprintf(cname, sizeof cname, "shm_segment_np%d", t->e[i].np);
        bench_print_result(f, bench, cname, t->e[i].variant, "bytes",
                           (double)t->e[i].bytes, "B");
    }
}
