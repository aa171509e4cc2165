/* bench/clam, names: the strategies' names, the arrival processes' labels,
 * and the `--case` spec that tells a receiver child what to run. */
#include "clam.h"

#include <stdio.h>
#include <string.h>

static const char *const strategy_names[CLAM_NSTRATEGIES] = {
    "none", "unread", "polling", "signal", "blocker",
    "default", "SPR", "SNR", "SANR", "SINR", "SAINR"};

const char *clam_strategy_name(clam_strategy s)
{
    return s < CLAM_NSTRATEGIES ? strategy_names[s] : "?";
}

int clam_strategy_parse(const char *name, clam_strategy *out)
{
    for (int s = 0; s < CLAM_NSTRATEGIES; s++)
        if (strcmp(name, strategy_names[s]) == 0) {
            *out = (clam_strategy)s;
            return 0;
        }
    return -1;
}

int clam_strategy_is_paper(clam_strategy s)
{
    return s >= CLAM_FIRST_PAPER && s < CLAM_NSTRATEGIES;
}

const char *clam_arrival_label(char *buf, size_t size, const clam_arrival *a)
{
    if (a->kind == CLAM_POISSON)
        snprintf(buf, size, "poisson_ia=%lldus",
                 (long long)(a->mean_ns / 1000));
    else
        snprintf(buf, size, "markov_rho=%g", a->rho);
    return buf;
}

int clam_spec_format(char *buf, size_t size, const clam_spec *s)
{
    int n = snprintf(buf, size, "recv,%s,%d,%lld,%lld,%d",
                     clam_strategy_name(s->strategy), s->threads,
                     (long long)s->warm_us, (long long)s->window_us, s->udp_fd);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int clam_spec_parse(const char *text, clam_spec *s)
{
    char name[32];
    long long warm, window;
    if (sscanf(text, "recv,%31[^,],%d,%lld,%lld,%d", name, &s->threads, &warm,
               &window, &s->udp_fd) != 5 ||
        clam_strategy_parse(name, &s->strategy) != 0)
        return -1;
    s->warm_us = warm;
    s->window_us = window;
    return s->threads >= 0 && warm >= 0 && window > 0 && s->udp_fd >= 0 ? 0
                                                                        : -1;
}
