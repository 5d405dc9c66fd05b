/*
 * time.h - RFC 3339 timestamps as Kubernetes writes them (metav1.Time:
 * second precision, "2026-11-21T10:00:00Z"; metav1.MicroTime:
 * "2026-11-21T10:00:00.123456Z").
 *
 * Times are int64 nanoseconds since the Unix epoch (ts_time); 0 means
 * "unset".  Nothing here reads a clock: callers pass the time in.
 */
#ifndef TS_TIME_H
#define TS_TIME_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t ts_time;

#define TS_TIME_SECOND  INT64_C(1000000000)
#define TS_TIME_STR_MAX 40

/* Parses RFC 3339 ("2006-01-02T15:04:05Z", fractional seconds and
 * "+hh:mm" offsets accepted).  Returns 0, TS_EPARSE, or TS_EOVERFLOW for a
 * valid time outside what ts_time holds (years 1678 to 2261 are safe). */
int ts_time_parse(const char *s, ts_time *out);

/* Formats as metav1.Time (seconds, UTC, "Z") into buf (>= TS_TIME_STR_MAX
 * bytes); returns buf.  Sub-second parts are truncated as Kubernetes does. */
char *ts_time_format(ts_time t, char *buf, size_t len);

/* Formats as metav1.MicroTime (6 fractional digits). */
char *ts_time_format_micro(ts_time t, char *buf, size_t len);

#endif
