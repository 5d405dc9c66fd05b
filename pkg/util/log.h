/*
 * log.h - leveled, one-line key=value logging to stderr (klog-like).
 *
 * The logger is the only global mutable state in Turnstile.  The level is
 * checked before the message is formatted, so disabled debug lines cost a
 * comparison.  Thread rule: safe from any thread (each line is one write).
 */
#ifndef TS_LOG_H
#define TS_LOG_H

enum ts_log_level {
    TS_LOG_DEBUG = 0,
    TS_LOG_INFO,
    TS_LOG_WARN,
    TS_LOG_ERROR,
    TS_LOG_OFF,
};

extern enum ts_log_level ts__log_level;

/* Sets the minimum level printed (default TS_LOG_INFO). */
void ts_log_set_level(enum ts_log_level level);
/* Parses "debug|info|warn|error|off"; returns 0 or TS_EINVAL. */
int ts_log_parse_level(const char *s, enum ts_log_level *out);

/* Formats and writes one line: `<time> <L> <component>: <msg>`.
 * with_errno appends ": <strerror(errno)>".  Use the macros below. */
void ts__log(enum ts_log_level level, const char *component, int with_errno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define TS__LOG(lvl, comp, en, ...)                                                                \
    do {                                                                                           \
        if ((lvl) >= ts__log_level)                                                                \
            ts__log((lvl), (comp), (en), __VA_ARGS__);                                             \
    } while (0)

#define ts_log_debug(comp, ...) TS__LOG(TS_LOG_DEBUG, comp, 0, __VA_ARGS__)
#define ts_log_info(comp, ...)  TS__LOG(TS_LOG_INFO, comp, 0, __VA_ARGS__)
#define ts_log_warn(comp, ...)  TS__LOG(TS_LOG_WARN, comp, 0, __VA_ARGS__)
#define ts_log_error(comp, ...) TS__LOG(TS_LOG_ERROR, comp, 0, __VA_ARGS__)
#define ts_log_errno(comp, ...) TS__LOG(TS_LOG_ERROR, comp, 1, __VA_ARGS__)

/* Logs at error level and exits with status 1. */
void ts_fatal(const char *component, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Aborts with file:line when an internal invariant is broken.  Never used to
 * check input (input errors are returned as TS_E* codes). */
void ts__bug(const char *file, int line, const char *cond) __attribute__((noreturn));
#define TS_BUG_ON(cond)                                                                            \
    do {                                                                                           \
        if (cond)                                                                                  \
            ts__bug(__FILE__, __LINE__, #cond);                                                    \
    } while (0)

#endif
