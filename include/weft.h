/* Weft: user-level (M:N) threads whose scheduler is also the I/O event server.
 * Umbrella header: include this one. */
#ifndef WEFT_H
#define WEFT_H

#include <weft/errno.h>
#include <weft/thread.h>
#include <weft/sync.h>
#include <weft/timer.h>
#include <weft/io.h>
#include <weft/signal.h>
#include <weft/cont.h>

#endif /* WEFT_H */
