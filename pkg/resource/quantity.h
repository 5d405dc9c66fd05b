/*
 * quantity.h - Kubernetes resource.Quantity: parse, exact arithmetic,
 * canonical formatting.
 *
 * A quantity is value × 10^scale with a 64-bit value and a decimal scale,
 * plus the format family of the text it came from (Kubernetes keeps the
 * family: "1536Mi" stays binary, "500m" decimal, "1e3" exponent).  Like
 * Kubernetes, precision below nano (10^-9) is rounded up on parse.  All
 * arithmetic is exact integer arithmetic; a result that does not fit is
 * reported as TS_EOVERFLOW, never wrapped, never approximated with floats.
 *
 * Representable range.  Kubernetes switches to arbitrary precision (inf.Dec)
 * past int64; we keep the fixed struct below and report TS_EOVERFLOW instead:
 *   - magnitude below 10^TS_QUANTITY_MAX_ORDER (10^27, i.e. up to
 *     "999999999E"), enough for Kubernetes' own examples such as "12E";
 *   - precision 1n (parse rounds finer digits up, away from zero);
 *   - the significant digits (value with its trailing zeros moved into
 *     scale) must fit int64: any 18 digits, 19 digits up to
 *     9223372036854775807.  So "9223372036854775807" and "7Ei" parse, while
 *     "8Ei" (2^63) and "1n" + "1E" (28 digits) are TS_EOVERFLOW.
 * Parse and arithmetic return normalised quantities (trailing zeros of
 * value moved into scale, zero is {0, 0}), so equal results have equal
 * value and scale; ts_quantity_from_int()/_from_milli() keep the scale they
 * document.  Other functions accept any struct with scale >= -9, normalised
 * or not.
 *
 * Value type: kept on the stack, no ownership, no cleanup.
 * Thread rule: no shared state; every function is reentrant.
 */
#ifndef TS_QUANTITY_H
#define TS_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

enum ts_quantity_format {
    TS_QUANTITY_DECIMAL_SI = 0, /* 1, 500m, 1k, 5G */
    TS_QUANTITY_BINARY_SI,      /* 1Ki, 1536Mi */
    TS_QUANTITY_DECIMAL_EXP,    /* 1e3, 5E-3 */
};

struct ts_quantity {
    int64_t value;
    int32_t scale; /* base-10 exponent, >= -9 */
    enum ts_quantity_format format;
};

/* |q| < 10^TS_QUANTITY_MAX_ORDER for every representable quantity. */
#define TS_QUANTITY_MAX_ORDER 27

/* Largest text ts_quantity_format() writes, NUL included. */
#define TS_QUANTITY_STR_MAX 48

/* Parses any form Kubernetes accepts: [+-]digits[.digits][suffix] with
 * suffix one of n u m "" k M G T P E | Ki Mi Gi Ti Pi Ei | e<int> E<int>.
 * The accepted language is the apiserver's quantity pattern without
 * its exponent-with-fraction quirk:
 *   [+-]? (digits ("." digits*)? | "." digits+) (suffix)?
 * so "5.", ".5", "+1Ki", "1E" (exa) and "1e+3" parse; "", ".", "Mi", "1e",
 * "1K", "1ki", " 1" and "1 " do not.
 * A binary value below 1 becomes decimal SI, as in Kubernetes.
 * Returns 0, TS_EPARSE (message quotes the input, e.g.
 * "quantities must match the regular expression ...: '1.2.3'") or
 * TS_EOVERFLOW (outside the representable range above).  *out is written
 * only on success. */
int ts_quantity_parse(struct ts_str s, struct ts_quantity *out, struct ts_err *err);
/* Convenience for NUL-terminated input. */
int ts_quantity_parse_c(const char *s, struct ts_quantity *out, struct ts_err *err);

/* A quantity of `value` base units (scale 0) in the given format family. */
struct ts_quantity ts_quantity_from_int(int64_t value, enum ts_quantity_format format);
/* A quantity of `milli` thousandths (e.g. CPU millicores), decimal SI. */
struct ts_quantity ts_quantity_from_milli(int64_t milli);

/* Writes the canonical Kubernetes form ("1536Mi", "500m", "1", "1e3") into
 * buf (at least TS_QUANTITY_STR_MAX bytes; a shorter buf gets a truncated,
 * NUL-terminated prefix); returns buf.  As Kubernetes does, a binary
 * quantity below 1024 in magnitude or not whole is written in decimal SI
 * ("512", "500m"), and the exponent of the decimal forms is lowered to a
 * multiple of 3 ("1.5k" -> "1500", "1e4" -> "10e3").  Beyond the largest
 * suffix the mantissa grows ("1e21" decimal SI -> "1000E", binary values
 * past 1024Ei stay in Ei) where Kubernetes would print a bare number. */
char *ts_quantity_format(const struct ts_quantity *q, char *buf, size_t len);

/* -1, 0, 1 as a <, ==, > b numerically (format ignored). Exact. */
int ts_quantity_cmp(const struct ts_quantity *a, const struct ts_quantity *b);
/* Sign of q: -1, 0, 1. */
int ts_quantity_sign(const struct ts_quantity *q);
int ts_quantity_is_zero(const struct ts_quantity *q);

/* *out = a + b, a - b, q * factor.  The result keeps a's (q's) format, or
 * b's when a is zero (Kubernetes' rule, so summing into an empty total
 * keeps "Gi").  out may alias an operand.
 * Return 0 or TS_EOVERFLOW (out untouched). */
int ts_quantity_add(const struct ts_quantity *a, const struct ts_quantity *b,
                    struct ts_quantity *out);
int ts_quantity_sub(const struct ts_quantity *a, const struct ts_quantity *b,
                    struct ts_quantity *out);
int ts_quantity_mul(const struct ts_quantity *q, int64_t factor, struct ts_quantity *out);
/* Pointers to the smaller / larger of a and b (a on ties). Borrowed. */
const struct ts_quantity *ts_quantity_min(const struct ts_quantity *a, const struct ts_quantity *b);
const struct ts_quantity *ts_quantity_max(const struct ts_quantity *a, const struct ts_quantity *b);

/* Integer views (base units, thousandths), rounded away from zero as
 * Kubernetes' Value()/MilliValue() do for int64 quantities ("1.5" -> 2,
 * "-1.5" -> -2, "1n" -> 1).  Return 0 or TS_EOVERFLOW (*out untouched). */
int ts_quantity_value(const struct ts_quantity *q, int64_t *out);
int ts_quantity_milli_value(const struct ts_quantity *q, int64_t *out);

#endif
