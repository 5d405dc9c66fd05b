/*
 * opt.h - optional scalars for Kubernetes pointer fields (*int32, *bool,
 * *resource.Quantity): `set` distinguishes "absent" from a zero value,
 * which Kueue's semantics depend on (borrowingLimit unset = unlimited,
 * borrowingLimit 0 = no borrowing).
 */
#ifndef TS_API_OPT_H
#define TS_API_OPT_H

#include <stdint.h>

#include "resource/quantity.h"

struct ts_opt_i32 {
    int set;
    int32_t v;
};

struct ts_opt_i64 {
    int set;
    int64_t v;
};

struct ts_opt_bool {
    int set;
    int v;
};

struct ts_opt_quantity {
    int set;
    struct ts_quantity q;
};

#endif
