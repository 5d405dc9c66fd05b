#include "engine/amount.h"

#include "engine/quota.h"

#include <string.h>

static int is_cpu(const char *resource)
{
    return strcmp(resource, "cpu") == 0;
}

static int is_binary(const char *resource)
{
    return strcmp(resource, "memory") == 0 || strcmp(resource, "ephemeral-storage") == 0 ||
           strncmp(resource, "hugepages-", 10) == 0;
}

int64_t ts_amount_of(const char *resource, const struct ts_quantity *q)
{
    int64_t v;
    int rc = is_cpu(resource) ? ts_quantity_milli_value(q, &v) : ts_quantity_value(q, &v);

    if (rc)
        return ts_quantity_sign(q) < 0 ? INT64_MIN : TS_AMOUNT_UNLIMITED;
    return v;
}

double ts_amount_natural(const char *resource, int64_t amount)
{
    return is_cpu(resource) ? (double)amount / 1000.0 : (double)amount;
}

struct ts_quantity ts_amount_quantity(const char *resource, int64_t amount)
{
    if (is_cpu(resource))
        return ts_quantity_from_milli(amount);
    return ts_quantity_from_int(amount, is_binary(resource) ? TS_QUANTITY_BINARY_SI
                                                            : TS_QUANTITY_DECIMAL_SI);
}

char *ts_amount_format(const char *resource, int64_t amount, char *buf, size_t len)
{
    struct ts_quantity q = ts_amount_quantity(resource, amount);

    return ts_quantity_format(&q, buf, len);
}
