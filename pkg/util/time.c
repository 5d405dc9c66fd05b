#include "util/time.h"

#include "util/err.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), no timegm needed. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Parses ".ddd" fractional seconds into nanoseconds; returns bytes read. */
static size_t parse_frac(const char *s, int64_t *nanos)
{
    size_t i = 1;
    int64_t scale = 100000000;

    *nanos = 0;
    if (s[0] != '.')
        return 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        *nanos += (s[i] - '0') * scale;
        scale /= 10;
    }
    return i > 1 ? i : 0;
}

int ts_time_parse(const char *s, ts_time *out)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0;
    int64_t nanos, offset = 0, secs;
    size_t pos;

    if (strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
        digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || digits(s + 11, 2, &h) ||
        s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &sec))
        return TS_EPARSE;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return TS_EPARSE;
    pos = 19 + parse_frac(s + 19, &nanos);
    if ((s[pos] == 'Z' || s[pos] == 'z') && s[pos + 1] == '\0') {
        offset = 0;
    } else if ((s[pos] == '+' || s[pos] == '-') && strlen(s + pos) == 6 &&
               !digits(s + pos + 1, 2, &oh) && s[pos + 3] == ':' && !digits(s + pos + 4, 2, &om)) {
        offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    } else {
        return TS_EPARSE;
    }
    secs = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) - offset;
    /* nanoseconds in int64 reach 1677..2262; RFC 3339 years go 0000..9999 */
    if (secs <= INT64_MIN / TS_TIME_SECOND || secs >= INT64_MAX / TS_TIME_SECOND)
        return TS_EOVERFLOW;
    *out = secs * TS_TIME_SECOND + nanos;
    return 0;
}

static char *format(ts_time t, char *buf, size_t len, int micro)
{
    time_t secs = (time_t)(t / TS_TIME_SECOND);
    int64_t frac = t % TS_TIME_SECOND;
    struct tm tm;
    char base[32];

    if (frac < 0) {
        frac += TS_TIME_SECOND;
        secs--;
    }
    gmtime_r(&secs, &tm);
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro)
        snprintf(buf, len, "%s.%06ldZ", base, (long)(frac / 1000));
    else
        snprintf(buf, len, "%sZ", base);
    return buf;
}

char *ts_time_format(ts_time t, char *buf, size_t len)
{
    return format(t, buf, len, 0);
}

char *ts_time_format_micro(ts_time t, char *buf, size_t len)
{
    return format(t, buf, len, 1);
}
