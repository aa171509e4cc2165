/* PM2 compatibility (include/weft/pm2_io.h): registration of event classes
 * whose callbacks take no arguments.
 *
 * weft_io_params callbacks take a context pointer; PM2's take nothing.
 * Calling a `void (*)(void)` through a `void (*)(void *)` pointer would be
 * undefined behaviour (and UBSan's -fsanitize=function flags it), so each
 * PM2 handle gets a small heap record holding the user's three functions,
 * passed as ctx to three trampolines with the right types. The record is
 * freed by weft_io_unregister through the handle's destructor.
 *
 * The paper's blocking_system_call has no time-out parameter: the
 * trampoline ignores the server's slice, so unregistering such a handle
 * waits until the user's call returns (documented in the header).
 */
#include <stdlib.h>
#include <weft/pm2_io.h>

#include "io/io.h"

typedef struct pm2_ctx {
    thread_IO_registration_t reg;
} pm2_ctx;

static int pm2_poll(void *ctx)
{
    return ((pm2_ctx *)ctx)->reg.poll();
}

static void pm2_group(void *ctx)
{
    ((pm2_ctx *)ctx)->reg.group();
}

static int pm2_block(void *ctx, int timeout_ms)
{
    (void)timeout_ms;
    return ((pm2_ctx *)ctx)->reg.blocking_system_call();
}

thread_IO_t weft_pm2_io_register(const thread_IO_registration_t *params)
{
    if (!params || !params->poll)
        return WEFT_IO_NULL;
    if (!weft_is_initialized() && weft_init() != 0)
        return WEFT_IO_NULL;
    wf_io_init();
    pm2_ctx *c = malloc(sizeof *c);
    if (!c)
        return WEFT_IO_NULL;
    c->reg = *params;
    weft_io_params p = {
        .name = "pm2",
        .poll = pm2_poll,
        .group = params->group ? pm2_group : NULL,
        .block = params->blocking_system_call ? pm2_block : NULL,
        .frequency = params->frequency,
        .ctx = c,
    };
    weft_io_t h = wf_io_register_handle(&p, free, 0);
    if (!h)
        free(c);
    return h;
}
