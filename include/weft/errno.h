/* Weft error codes.
 *
 * Every fallible Weft function returns an int: 0 on success, else a negative
 * WEFT_E* code. Where a POSIX errno exists the code is its negation, so
 * -WEFT_EAGAIN == EAGAIN. Weft never reports errors through errno: errno
 * belongs to the kernel thread, and user-level threads migrate.
 */
#ifndef WEFT_ERRNO_H
#define WEFT_ERRNO_H

#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_OK        0
#define WEFT_EINVAL    (-EINVAL)     /* an argument is invalid */
#define WEFT_ENOMEM    (-ENOMEM)     /* out of memory (heap or stack mapping) */
#define WEFT_EAGAIN    (-EAGAIN)     /* resource temporarily unavailable; try again */
#define WEFT_EBUSY     (-EBUSY)      /* object in use (e.g. destroying a locked mutex) */
#define WEFT_EDEADLK   (-EDEADLK)    /* the operation would deadlock (join self, relock) */
#define WEFT_EPERM     (-EPERM)      /* caller does not own the object */
#define WEFT_ESRCH     (-ESRCH)      /* no such thread (already joined or detached) */
#define WEFT_ETIMEDOUT (-ETIMEDOUT)  /* the deadline passed first */
#define WEFT_ECANCELED (-ECANCELED)  /* the wait was cancelled (e.g. source unregistered) */
#define WEFT_ENOSYS    (-ENOSYS)     /* not supported on this build or platform */
#define WEFT_ESTATE    (-4096)       /* runtime not initialised, or already finalised */

/* Human-readable text for a WEFT_E* code (or 0). Never NULL; unknown codes
 * give "unknown error". Context: any, including signal handlers. Blocks: no. */
const char *weft_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_ERRNO_H */
