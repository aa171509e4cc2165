/* PM2's I/O interface, under its own names, on Weft's I/O server.
 *
 * Bougé, Danjean and Namyst, "Improving Reactivity to I/O Events in
 * Multithreaded Environments Using a Uniform, Scheduler-Centric API"
 * (Euro-Par 2002): code written against section 2.2 and Figure 1 compiles
 * against this header unchanged, with these notes:
 *   - The callbacks take no arguments, as in the paper. Inside them,
 *     thread_IO_for_each_request(arg) walks the waiting requests of the
 *     handle being served (weft_io_current()), so it needs no handle.
 *   - thread_IO_register accepts the registration by value (the paper's
 *     prototype) or by address (its example, `thread_IO_register(&p)`).
 *     The example's `&MPI_group()` is a typo in the paper (the address of a
 *     call); write `&MPI_group` or `MPI_group`.
 *   - frequency counts Weft scheduler ticks (~1 ms; PM2: time slices).
 *   - blocking_system_call, if not NULL, runs on a blocker kernel thread
 *     and returns the index of a ready request or -1, like poll. It gets
 *     no time-out, so thread_IO_unregister waits until it returns.
 *   - thread_IO_wait returns 0 (the paper's is void), or WEFT_ECANCELED if
 *     the handle is unregistered meanwhile.
 * Everything else (aggregation, strategies, statistics) is weft/io.h's.
 */
#ifndef WEFT_PM2_IO_H
#define WEFT_PM2_IO_H

#include <weft/io.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef weft_io_t thread_IO_t;

typedef struct thread_IO_registration {
    int (*blocking_system_call)(void); /* may be NULL */
    void (*group)(void);               /* may be NULL */
    int (*poll)(void);                 /* required */
    unsigned frequency;                /* ticks between polls; 0: every switch */
} thread_IO_registration_t;

/* Register PM2-style callbacks (copied). Returns the handle, or NULL as
 * weft_io_register does (poll NULL, no memory). Starts the runtime if
 * needed. Context: ULT or external. Blocks: no. */
thread_IO_t weft_pm2_io_register(const thread_IO_registration_t *params);

static inline thread_IO_t weft_pm2_io_register_value(thread_IO_registration_t params)
{
    return weft_pm2_io_register(&params);
}

#ifndef __cplusplus
#define thread_IO_register(params)                                         \
    _Generic((params),                                                     \
        thread_IO_registration_t *: weft_pm2_io_register,                  \
        const thread_IO_registration_t *: weft_pm2_io_register,            \
        default: weft_pm2_io_register_value)(params)
#endif

/* Block the calling thread until the handle's callbacks report `arg`
 * ready (weft_io_wait). */
#define thread_IO_wait(handle, arg) weft_io_wait((handle), (arg))

/* Unregister (not in the paper): waiters get WEFT_ECANCELED. */
#define thread_IO_unregister(handle) weft_io_unregister(handle)

/* For group/poll callbacks: assign each waiting request's arg in turn. */
#define thread_IO_for_each_request(arg) WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), arg)

#ifdef __cplusplus
}
/* C++: the same two forms as overloads. */
static inline thread_IO_t thread_IO_register(const thread_IO_registration_t *params)
{
    return weft_pm2_io_register(params);
}
static inline thread_IO_t thread_IO_register(thread_IO_registration_t params)
{
    return weft_pm2_io_register(&params);
}
#endif
#endif /* WEFT_PM2_IO_H */
