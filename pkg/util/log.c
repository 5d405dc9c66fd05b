#include "util/log.h"

#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum ts_log_level ts__log_level = TS_LOG_INFO;

static const char level_char[] = {'D', 'I', 'W', 'E'};

void ts_log_set_level(enum ts_log_level level)
{
    ts__log_level = level;
}

int ts_log_parse_level(const char *s, enum ts_log_level *out)
{
    static const char *const names[] = {"debug", "info", "warn", "error", "off"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (enum ts_log_level)i;
            return 0;
        }
    }
    return TS_EINVAL;
}

static void vlog(enum ts_log_level level, const char *component, int with_errno, const char *fmt,
                 va_list ap)
{
    char line[2048];
    char stamp[32];
    struct timespec ts;
    struct tm tm;
    int saved = errno;
    int n;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    n = snprintf(line, sizeof(line), "%s.%03ldZ %c %s: ", stamp, ts.tv_nsec / 1000000L,
                 level_char[level < TS_LOG_OFF ? level : TS_LOG_ERROR], component);
    if (n < 0 || (size_t)n >= sizeof(line))
        n = 0;
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    if (with_errno) {
        size_t len = strlen(line);

        snprintf(line + len, sizeof(line) - len, ": %s", strerror(saved));
    }
    fprintf(stderr, "%s\n", line);
}

void ts__log(enum ts_log_level level, const char *component, int with_errno, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(level, component, with_errno, fmt, ap);
    va_end(ap);
}

void ts_fatal(const char *component, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(TS_LOG_ERROR, component, 0, fmt, ap);
    va_end(ap);
    exit(1);
}

void ts__bug(const char *file, int line, const char *cond)
{
    fprintf(stderr, "BUG: %s:%d: %s\n", file, line, cond);
    abort();
}
