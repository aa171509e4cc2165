/* weft_strerror: text for Weft's error codes (include/weft/errno.h).
 * A fixed table, no locale, no allocation: callable from signal handlers. */
#include <weft/errno.h>

static const struct {
    int code;
    const char *text;
} messages[] = {
    { WEFT_OK, "success" },
    { WEFT_EINVAL, "invalid argument" },
    { WEFT_ENOMEM, "out of memory" },
    { WEFT_EAGAIN, "resource temporarily unavailable" },
    { WEFT_EBUSY, "object in use" },
    { WEFT_EDEADLK, "operation would deadlock" },
    { WEFT_EPERM, "caller does not own the object" },
    { WEFT_ESRCH, "no such thread" },
    { WEFT_ETIMEDOUT, "deadline passed" },
    { WEFT_ECANCELED, "wait cancelled" },
    { WEFT_ENOSYS, "not supported" },
    { WEFT_ESTATE, "runtime not initialised or already finalised" },
};

const char *weft_strerror(int err)
{
    for (unsigned i = 0; i < sizeof messages / sizeof *messages; i++)
        if (messages[i].code == err)
            return messages[i].text;
    return "unknown error";
}
