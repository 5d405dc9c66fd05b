#include "util/parse.h"

#include "util/err.h"

#include <string.h>

int ts_parse_i64(const char *s, size_t len, int64_t *out)
{
    uint64_t v = 0;
    uint64_t limit = (uint64_t)INT64_MAX;
    size_t i = 0;
    int neg = 0;

    if (len && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        if (neg)
            limit++;
        i++;
    }
    if (i == len)
        return TS_EINVAL;
    for (; i < len; i++) {
        unsigned d;

        if (s[i] < '0' || s[i] > '9')
            return TS_EINVAL;
        d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return TS_EOVERFLOW;
        v = v * 10 + d;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

int ts_parse_i64_c(const char *s, int64_t *out)
{
    return ts_parse_i64(s, strlen(s), out);
}
