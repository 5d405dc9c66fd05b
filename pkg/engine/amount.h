/*
 * amount.h - conversion between Kubernetes quantities and the engine's
 * int64 amounts, as Kueue does it (pkg/resources/requests.go
 * ResourceValue(), ResourceQuantity()): cpu in milli-units, every other
 * resource in base units rounded up; quotas at or beyond the int64 range
 * are TS_AMOUNT_UNLIMITED.  And back, with the format Kueue prints (cpu
 * decimal "1500m", memory and hugepages binary "600Mi", the rest
 * decimal).
 */
#ifndef TS_ENGINE_AMOUNT_H
#define TS_ENGINE_AMOUNT_H

#include <stdint.h>

#include "resource/quantity.h"

/* The amount of `q` for resource `name`, saturating at
 * TS_AMOUNT_UNLIMITED (and at INT64_MIN for huge negatives). */
int64_t ts_amount_of(const char *resource, const struct ts_quantity *q);

/* `amount` in natural units, as Kueue's resource gauges report it: cpu in
 * cores (1500 -> 1.5), everything else as is. */
double ts_amount_natural(const char *resource, int64_t amount);

/* The quantity Kueue reports for `amount` of `resource`. */
struct ts_quantity ts_amount_quantity(const char *resource, int64_t amount);

/* Formats like ts_quantity_format() into buf (>= TS_QUANTITY_STR_MAX). */
char *ts_amount_format(const char *resource, int64_t amount, char *buf, size_t len);

#endif
