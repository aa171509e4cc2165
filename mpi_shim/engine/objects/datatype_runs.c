/* The byte runs a datatype's elements cover: the map one-sided
 * operations send to a target, which applies the origin's data without
 * knowing the datatype (it may be a derived type the target never built).
 *
 * Design: walk the strided segments of each element in type-map order
 * (the order pack uses, so the k-th packed byte lands in the k-th byte of
 * the runs) and merge a block into the previous run when it starts where
 * that run ends. A contiguous buffer is one run, whatever its count.
 * Trade-off: 16 bytes per run on the wire; a vector of single doubles
 * costs twice its data. Capped at WMPI_MAX_SEGS runs (ENOMEM beyond).
 * Locking: none (types are immutable).
 */
#include <stdlib.h>

#include "engine/objects/datatype_impl.h"

typedef struct runs {
    int64_t *v; /* (offset, length) pairs */
    int64_t n, cap;
} runs;

static int add_run(runs *r, int64_t off, int64_t len)
{
    int64_t *v;

    if (len == 0)
        return 0;
    if (r->n && r->v[2 * r->n - 2] + r->v[2 * r->n - 1] == off) {
        r->v[2 * r->n - 1] += len;
        return 0;
    }
    if (r->n == r->cap) {
        if (r->cap >= WMPI_MAX_SEGS)
            return WEFT_ENOMEM;
        r->cap = r->cap ? 2 * r->cap : 8;
        if (!(v = realloc(r->v, (size_t)r->cap * 2 * sizeof *v)))
            return WEFT_ENOMEM;
        r->v = v;
    }
    r->v[2 * r->n] = off;
    r->v[2 * r->n + 1] = len;
    r->n++;
    return 0;
}

static int add_element(runs *r, const wmpi_seg *s, int64_t nsegs,
                       int64_t base)
{
    int err = 0;

    for (int64_t j = 0; j < nsegs && !err; j++)
        for (int64_t k = 0; k < s[j].count && !err; k++)
            err = add_run(r, base + s[j].disp + k * s[j].stride, s[j].len);
    return err;
}

int wmpi_datatype_runs(const wmpi_datatype *dt, int64_t count,
                       int64_t **out, int64_t *nruns)
{
    wmpi_seg tmp[2];
    int64_t nsegs;
    const wmpi_seg *s = wmpi_datatype_segs(dt, tmp, &nsegs);
    runs r = { NULL, 0, 0 };
    int err = count < 0 ? WEFT_EINVAL : 0;

    for (int64_t i = 0; i < count && !err; i++)
        err = add_element(&r, s, nsegs, i * dt->extent);
    if (err) {
        free(r.v);
        r.v = NULL;
        r.n = 0;
    }
    *out = r.v;
    *nruns = r.n;
    return err;
}
