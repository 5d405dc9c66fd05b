/*
 * expfmt.h - the lexical pieces of the Prometheus text exposition format
 * 0.0.4: sample values and `le` bounds printed as Go's client_golang prints
 * them, and escaping of label values and HELP text.
 *
 * Pure functions: no state, no allocation beyond the caller's buffer.
 * Thread rule: safe from any thread.  They use snprintf/strtod, which
 * follow LC_NUMERIC; Turnstile never calls setlocale(), so that is "C".
 */
#ifndef TS_EXPFMT_H
#define TS_EXPFMT_H

#include <stddef.h>

#include "util/buf.h"

/* Enough for any double: sign, 17 digits, point, "e-308", NUL. */
#define TS_METRICS_FLOAT_MAX 32

/* Writes v as client_golang's writeFloat does (strconv 'g', shortest
 * round-trip digits): "0", "1", "0.5", "123456", "1e+06", "1.5e-05",
 * "+Inf", "-Inf", "NaN".  Exponent form is used when the decimal exponent
 * is < -4 or >= 6, as Go's %g with shortest precision does.  `out` must
 * hold TS_METRICS_FLOAT_MAX bytes; returns the length written. */
size_t ts_metrics_fmt_float(double v, char out[TS_METRICS_FLOAT_MAX]);

/* Appends s escaped for a label value: backslash, double quote and
 * newline become \\, \" and \n.  Returns 0 or TS_EOVERFLOW (b's cap). */
int ts_metrics_escape_label(struct ts_buf *b, const char *s);

/* Appends s escaped for a HELP line: backslash and newline become \\ and
 * \n (quotes stay).  Returns 0 or TS_EOVERFLOW. */
int ts_metrics_escape_help(struct ts_buf *b, const char *s);

#endif
