#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ts_strerror(int code)
{
    switch (code) {
    case TS_OK:
        return "success";
#define XX(name, val, text)                                                                        \
    case TS_##name:                                                                                \
        return text;
        TS_ERRNO_MAP(XX)
#undef XX
    }
    return "unknown error";
}

const char *ts_err_name(int code)
{
    switch (code) {
    case TS_OK:
        return "OK";
#define XX(name, val, text)                                                                        \
    case TS_##name:                                                                                \
        return #name;
        TS_ERRNO_MAP(XX)
#undef XX
    }
    return "UNKNOWN";
}

int ts_err_set(struct ts_err *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

int ts_err_prefix(struct ts_err *err, const char *fmt, ...)
{
    char prefix[TS_ERR_MSG_MAX];
    char old[TS_ERR_MSG_MAX];
    va_list ap;

    if (!err)
        return 0;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof(old));
    /* truncation keeps the start of the message, which is what we want */
    if (snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old) < 0)
        err->msg[0] = '\0';
    return err->code;
}

void ts_err_clear(struct ts_err *err)
{
    if (!err)
        return;
    err->code = 0;
    err->msg[0] = '\0';
}

int ts_err_retryable(int code)
{
    switch (code) {
    case TS_EIO:
    case TS_ETIMEDOUT:
    case TS_ECONFLICT:
    case TS_EGONE:
    case TS_ETOOMANY:
    case TS_EUNAVAILABLE:
    case TS_EINTERNAL:
        return 1;
    default:
        return 0;
    }
}
