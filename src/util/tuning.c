/* WEFT_DISABLE: the names of heuristics to turn off, for measuring what
 * each one gains (tuning.h). Read by weft_init, before any thread of the
 * runtime asks; readers need no lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/errno.h>
#include <weft/thread.h>

#include "util/tuning.h"

static const struct {
    const char *name;
    enum wf_heuristic bit;
} names[] = {
    { "spin", WF_H_SPIN },
    { "shared-yield", WF_H_SHARED_YIELD },
    { "server-nice", WF_H_SERVER_NICE },
    { "kernel-slice", WF_H_KERNEL_SLICE },
    { "tick-yield", WF_H_TICK_YIELD },
    { "short-runs", WF_H_SHORT_RUNS },
    { "wait-test", WF_H_WAIT_TEST },
};

#define NNAMES (sizeof names / sizeof names[0])

static unsigned disabled; /* atomic */

static int lookup(const char *s, size_t len, unsigned *bit)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (strlen(names[i].name) == len && !strncmp(s, names[i].name, len)) {
            *bit = names[i].bit;
            return 0;
        }
    return -1;
}

static void complain(const char *s, size_t len)
{
    fprintf(stderr, "weft: WEFT_DISABLE: unknown heuristic \"%.*s\" (known:", (int)len, s);
    for (size_t i = 0; i < NNAMES; i++)
        fprintf(stderr, "%s %s", i ? "," : "", names[i].name);
    fputs(")\n", stderr);
}

int wf_tuning_init(void)
{
    const char *s = getenv("WEFT_DISABLE");
    unsigned bits = 0;
    int err = 0;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        unsigned bit;
        if (len > 0 && lookup(s, len, &bit) == 0)
            bits |= bit;
        else if (len > 0) {
            complain(s, len);
            err = WEFT_EINVAL;
        }
        s += len + (s[len] == ',');
    }
    __atomic_store_n(&disabled, err ? 0u : bits, __ATOMIC_RELAXED);
    return err;
}

int wf_tuning_on(enum wf_heuristic h)
{
    return !(__atomic_load_n(&disabled, __ATOMIC_RELAXED) & (unsigned)h);
}

int weft_heuristic_on(const char *name)
{
    unsigned bit;
    return !name || lookup(name, strlen(name), &bit) != 0 || wf_tuning_on((enum wf_heuristic)bit);
}
