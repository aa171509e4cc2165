/* mpirun's hosts: the --host lists and the --hostfile, their slots, which
 * of them are this machine, and where each rank runs.
 *
 * Syntax, as Open MPI's: --host a,b:2,c (a name alone is one slot; a name
 * given twice adds its slots); a hostfile has one host per line, "name",
 * "name slots=N" or "name:N" (so Hydra's -f files read as well), '#' starts
 * a comment. --host and --hostfile together use both lists, hostfile
 * first. Without either, inside a Slurm allocation the allocation's nodes
 * and tasks per node (slurm.c), else every rank runs here ("localhost",
 * unlimited slots).
 *
 * Placement is by slot: fill the first host's slots, then the next host's,
 * in order. When -n exceeds the slots, placement wraps around the list
 * again (Open MPI's --oversubscribe; we never refuse a job for want of
 * slots: the ranks are threads-heavy processes that share cores anyway).
 *
 * -N / --npernode / -ppn N replaces every host's slots by N (Open MPI's
 * -N, Hydra's -ppn): N ranks per host, and -n defaults to N per host.
 * --map-by node places one rank per host in turn (skipping full hosts
 * until all are full), as Open MPI does.
 *
 * A host is local (started by fork/exec, no launch agent) if it is
 * "localhost", a 127.x.y.z address, "::1", an address of one of this
 * machine's interfaces (getifaddrs), or this machine's host name (in full
 * or up to its first dot). Everything else goes through the launch agent
 * (spawn.c). Names are not resolved: a DNS lookup per host could stall the
 * start for seconds, and a name is what the user's agent understands.
 *
 * Rejected: sorting or deduplicating hosts by address (a name is what the
 * user's agent understands, e.g. a network namespace name, not an address).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

#define MAX_SLOTS 100000

/* Is name, an IPv4 or IPv6 address in numeric form, one of this host's? */
static int is_own_address(const char *name)
{
    unsigned char want[16], have[16];
    int fam = inet_pton(AF_INET, name, want) == 1 ? AF_INET
              : inet_pton(AF_INET6, name, want) == 1 ? AF_INET6 : 0;
    size_t len = fam == AF_INET ? 4 : 16;
    struct ifaddrs *all, *a;
    int found = 0;
    if (!fam || getifaddrs(&all) != 0)
        return 0;
    for (a = all; a && !found; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != fam)
            continue;
        if (fam == AF_INET)
            memcpy(have, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, len);
        else
            memcpy(have, &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr, len);
        found = !memcmp(want, have, len);
    }
    freeifaddrs(all);
    return found;
}

static int is_local(const char *name)
{
    char me[256] = "";
    if (!strcmp(name, "localhost") || !strncmp(name, "127.", 4) || !strcmp(name, "::1"))
        return 1;
    if (is_own_address(name))
        return 1;
    if (gethostname(me, sizeof me - 1) != 0 || !me[0])
        return 0;
    size_t shortlen = strcspn(me, ".");
    return !strcmp(name, me) || (strlen(name) == shortlen && !strncmp(name, me, shortlen));
}

/* Names end up as one word of a remote-exec command: keep them plain. */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._-:@%+[]", *s))
            return 0;
    return 1;
}

static int add_host(struct wl_hosts *h, const char *name, int slots)
{
    if (!valid_name(name)) {
        wl_say("invalid host name '%s'", name);
        return -EINVAL;
    }
    for (int i = 0; i < h->n; i++)
        if (!strcmp(h->v[i].name, name)) {
            h->v[i].slots += slots;
            return 0;
        }
    struct wl_host *v = realloc(h->v, (size_t)(h->n + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    h->v = v;
    v[h->n] = (struct wl_host){ .name = strdup(name), .slots = slots, .local = is_local(name) };
    return v[h->n++].name ? 0 : -ENOMEM;
}

static int parse_slots(const char *s, const char *where, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > MAX_SLOTS) {
        wl_say("%s: invalid slot count '%s'", where, s);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* One "name" or "name:slots" item. */
static int add_item(struct wl_hosts *h, char *item, const char *where)
{
    int slots = 1;
    char *colon = strrchr(item, ':');
    if (colon && item[0] != '[' && strchr(item, ':') == colon) { /* not an IPv6 address */
        *colon = '\0';
        if (parse_slots(colon + 1, where, &slots))
            return -EINVAL;
    }
    return add_host(h, item, slots);
}

static int load_list(struct wl_hosts *h, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int err = copy ? 0 : -ENOMEM;
    for (char *it = copy ? strtok_r(copy, ",", &save) : NULL; it && !err;
         it = strtok_r(NULL, ",", &save))
        err = add_item(h, it, "--host");
    free(copy);
    return err;
}

/* One hostfile line: "name [slots=N] [other=...]" or "name:N". */
static int load_line(struct wl_hosts *h, char *line, const char *where)
{
    line[strcspn(line, "#\r\n")] = '\0';
    char *save = NULL, *name = strtok_r(line, " \t", &save);
    if (!name)
        return 0;
    int slots = 0;
    for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        if (!strncmp(w, "slots=", 6) && parse_slots(w + 6, where, &slots))
            return -EINVAL;
    if (!slots)
        return add_item(h, name, where);
    return add_host(h, name, slots);
}

static int load_file(struct wl_hosts *h, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        wl_say("cannot read hostfile '%s': %s", path, strerror(errno));
        return -errno;
    }
    char line[1024], where[1100];
    int err = 0;
    for (int no = 1; !err && fgets(line, sizeof line, f); no++) {
        snprintf(where, sizeof where, "%s:%d", path, no);
        err = load_line(h, line, where);
    }
    fclose(f);
    if (!err && h->n == 0) {
        wl_say("hostfile '%s' names no host", path);
        err = -EINVAL;
    }
    return err;
}

int wl_hosts_load(const struct wl_opts *o, struct wl_hosts *h)
{
    int err = 0;
    h->v = NULL;
    h->n = 0;
    h->ppn = o->ppn;
    h->by_node = o->map_by_node;
    if (o->hostfile)
        err = load_file(h, o->hostfile);
    if (!err && o->hosts)
        err = load_list(h, o->hosts);
    if (!err && h->n == 0 && wl_slurm_in_allocation()) {
        char *list;
        err = wl_slurm_host_list(&list);
        if (!err)
            err = load_list(h, list);
        free(list);
    }
    if (!err && h->n == 0)
        err = add_host(h, "localhost", 0);
    return err;
}

int wl_hosts_default_np(const struct wl_hosts *h)
{
    int total = 0;
    for (int i = 0; i < h->n; i++)
        total += h->ppn ? h->ppn : h->v[i].slots;
    if (total > 0)
        return total;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)cpus : 1;
}

static void place(struct wl_host *x, struct wl_rank *r)
{
    r->host = x;
    r->local_rank = x->nranks++;
}

/* --map-by node: one rank per host in turn, skipping full hosts; once
 * every host is full, in turn regardless. */
static void place_by_node(struct wl_hosts *h, struct wl_rank *r, int n)
{
    int full = 0, skipped = 0;
    for (int i = 0, k = 0; i < n; k = (k + 1) % h->n) {
        struct wl_host *x = &h->v[k];
        int cap = h->ppn ? h->ppn : x->slots;
        if (!full && cap && x->nranks >= cap) {
            full = ++skipped == h->n;
            continue;
        }
        skipped = 0;
        place(x, &r[i++]);
    }
}

void wl_hosts_place(struct wl_hosts *h, struct wl_rank *r, int n)
{
    int i = 0;
    if (h->by_node) {
        place_by_node(h, r, n);
        return;
    }
    while (i < n)
        for (int k = 0; k < h->n && i < n; k++) {
            int slots = h->ppn ? h->ppn : h->v[k].slots ? h->v[k].slots : n;
            for (int s = 0; s < slots && i < n; s++)
                place(&h->v[k], &r[i++]);
        }
}

int wl_hosts_any_remote(const struct wl_hosts *h)
{
    for (int i = 0; i < h->n; i++)
        if (!h->v[i].local && h->v[i].nranks > 0)
            return 1;
    return 0;
}

void wl_hosts_free(struct wl_hosts *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->v[i].name);
    free(h->v);
    h->v = NULL;
    h->n = 0;
}
