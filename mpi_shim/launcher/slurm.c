/* mpirun inside a Slurm allocation (salloc, sbatch, srun): the hosts and
 * their slots come from the allocation, and ranks on its other nodes start
 * through srun, as Open MPI's mpirun does there.
 *
 * The allocation is SLURM_JOB_NODELIST (a host list in Slurm's compressed
 * form: "n[1-3,07-09],gpu2") and SLURM_TASKS_PER_NODE (the tasks of each
 * node in that order, runs compressed: "2(x3),1"). They become a --host
 * list ("n1:2,n2:2,n3:2,gpu2:1", hosts.c), used only when the command line
 * names no hosts. The launch agent for the other nodes is
 * WL_SLURM_AGENT, a one-task srun step on that node that overlaps the
 * job's steps, unless --launch-agent or WEFT_MPIRUN_RSH says otherwise;
 * the node mpirun runs on is local (hosts.c) and started by fork/exec.
 *
 * Rejected: asking `scontrol show hostnames` (one more process, and a
 * mpirun that fails where scontrol is not on PATH).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

#define MAX_EXPANDED 100000 /* hosts one list may name */

/* ----------------------------------------------------------- growing text */

struct text {
    char *s;
    size_t len, cap;
};

static int text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p)
            return -ENOMEM;
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 0;
}

/* ------------------------------------------------------------- host lists */

struct names {
    char **v;
    int n;
};

static int names_add(struct names *out, const char *s, size_t n)
{
    if (out->n >= MAX_EXPANDED)
        return -E2BIG;
    char **v = realloc(out->v, (size_t)(out->n + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    out->v = v;
    if (!(v[out->n] = strndup(s, n)))
        return -ENOMEM;
    out->n++;
    return 0;
}

/* One range "lo" or "lo-hi" of a bracket; width: digits of lo (zero
 * padding kept, as Slurm does). */
static int parse_range(const char *s, size_t n, long *lo, long *hi, int *width)
{
    char buf[32], *end;

    if (n == 0 || n >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!isdigit((unsigned char)buf[0]))
        return -EINVAL;
    *lo = strtol(buf, &end, 10);
    *width = (int)(end - buf);
    *hi = *lo;
    if (*end == '-' && isdigit((unsigned char)end[1]))
        *hi = strtol(end + 1, &end, 10);
    return *end || *hi < *lo || *hi - *lo >= MAX_EXPANDED ? -EINVAL : 0;
}

static int expand(const char *s, size_t n, struct text *prefix, struct names *out);

/* prefix + each number of the bracket [inner], then the rest expanded. */
static int expand_bracket(const char *inner, size_t nin, const char *rest, size_t nrest,
                          struct text *prefix, struct names *out)
{
    size_t keep = prefix->len;
    int err = nin ? 0 : -EINVAL;

    for (size_t i = 0; !err && i < nin;) {
        size_t j = i;
        long lo, hi;
        int width;
        while (j < nin && inner[j] != ',')
            j++;
        err = parse_range(inner + i, j - i, &lo, &hi, &width);
        for (long v = lo; !err && v <= hi; v++) {
            char num[32];
            int len = snprintf(num, sizeof num, "%0*ld", width, v);
            err = text_add(prefix, num, (size_t)len);
            if (!err)
                err = expand(rest, nrest, prefix, out);
            prefix->len = keep;
            if (prefix->s)
                prefix->s[keep] = '\0';
        }
        i = j + 1;
    }
    return err;
}

/* One host expression (no top-level comma), after `prefix`. */
static int expand(const char *s, size_t n, struct text *prefix, struct names *out)
{
    const char *open = memchr(s, '[', n);
    size_t keep = prefix->len;
    int err;

    if (!open) {
        err = text_add(prefix, s, n);
        if (!err)
            err = prefix->len ? names_add(out, prefix->s, prefix->len) : -EINVAL;
    } else {
        const char *close = memchr(open, ']', n - (size_t)(open - s));
        if (!close)
            return -EINVAL;
        err = text_add(prefix, s, (size_t)(open - s));
        if (!err)
            err = expand_bracket(open + 1, (size_t)(close - open - 1), close + 1,
                                 n - (size_t)(close + 1 - s), prefix, out);
    }
    prefix->len = keep;
    if (prefix->s)
        prefix->s[keep] = '\0';
    return err;
}

int wl_slurm_expand_hosts(const char *list, char ***names, int *n)
{
    struct names out = { NULL, 0 };
    struct text prefix = { NULL, 0, 0 };
    int depth = 0, err = 0;
    const char *start = list;

    for (const char *p = list;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        if ((*p == ',' && depth == 0) || !*p) {
            err = p > start ? expand(start, (size_t)(p - start), &prefix, &out) : -EINVAL;
            start = p + 1;
        }
        if (err || !*p)
            break;
    }
    free(prefix.s);
    if (!err && depth)
        err = -EINVAL;
    if (err) {
        wl_slurm_free_hosts(out.v, out.n);
        out.v = NULL;
        out.n = 0;
    }
    *names = out.v;
    *n = out.n;
    return err;
}

void wl_slurm_free_hosts(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ------------------------------------------------------------ tasks per node */

int wl_slurm_tasks(const char *spec, int *slots, int n)
{
    int k = 0;
    const char *p = spec;

    while (*p) {
        char *end;
        long count = strtol(p, &end, 10), times = 1;
        if (end == p || count < 0 || count > 100000)
            return -EINVAL;
        p = end;
        if (!strncmp(p, "(x", 2)) {
            times = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || times < 1)
                return -EINVAL;
            p = end + 1;
        }
        for (long t = 0; t < times; t++) {
            if (k >= n)
                return -EINVAL;
            slots[k++] = (int)count;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return -EINVAL;
    }
    return k == n ? 0 : -EINVAL;
}

/* ----------------------------------------------------------- the allocation */

int wl_slurm_in_allocation(void)
{
    const char *id = getenv("SLURM_JOB_ID"), *nodes = getenv("SLURM_JOB_NODELIST");

    return id && *id && nodes && *nodes;
}

/* "name:slots,..." for the --host parser, from the two variables. */
static int host_list(char **names, const int *slots, int n, char **out)
{
    struct text t = { NULL, 0, 0 };
    int err = 0;

    for (int i = 0; !err && i < n; i++) {
        char num[16];
        int len = snprintf(num, sizeof num, ":%d", slots[i]);
        if (i)
            err = text_add(&t, ",", 1);
        if (!err)
            err = text_add(&t, names[i], strlen(names[i]));
        if (!err && slots[i] > 0)
            err = text_add(&t, num, (size_t)len);
    }
    if (err)
        free(t.s);
    *out = err ? NULL : t.s;
    return err;
}

int wl_slurm_host_list(char **out)
{
    const char *nodes = getenv("SLURM_JOB_NODELIST");
    const char *tasks = getenv("SLURM_TASKS_PER_NODE");
    char **names;
    int n, err, *slots;

    *out = NULL;
    if ((err = wl_slurm_expand_hosts(nodes, &names, &n)) != 0) {
        wl_say("cannot read the Slurm allocation's SLURM_JOB_NODELIST=%s", nodes);
        return err;
    }
    if (!(slots = calloc((size_t)n, sizeof *slots))) {
        wl_slurm_free_hosts(names, n);
        return -ENOMEM;
    }
    if (tasks && *tasks && wl_slurm_tasks(tasks, slots, n) != 0) {
        wl_say("cannot read the Slurm allocation's SLURM_TASKS_PER_NODE=%s for %d node(s)",
               tasks, n);
        err = -EINVAL;
    }
    if (!err)
        err = host_list(names, slots, n, out);
    free(slots);
    wl_slurm_free_hosts(names, n);
    return err;
}
