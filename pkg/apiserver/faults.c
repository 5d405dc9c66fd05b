/*
 * faults.c - the --faults spec, its PRNG and its decisions (faults.h).
 * Pure: the same spec and the same sequence of calls give the same
 * faults, whatever the clock or the machine.
 */
#include "apiserver/faults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/apiserver.h"
#include "util/parse.h"

static const char *const names[TS_FAULT__N] = {
    "",     "write-409", "write-429",  "write-500", "write-503", "latency",
    "gone", "cut",       "watch-drop", "pause",     "write-cut", "watch-lag",
};

const char *ts_faults_name(int kind)
{
    return kind > 0 && kind < TS_FAULT__N ? names[kind] : "";
}

static int parse_prob(const char *v, double *out)
{
    char *end;
    double p = strtod(v, &end);

    if (end == v || *end || !(p >= 0 && p <= 1))
        return -1;
    *out = p;
    return 0;
}

/* "A-B" or "A"; A may borrow B's unit ("0-20ms"). */
static int parse_range(const char *v, int64_t *lo, int64_t *hi)
{
    const char *dash = strchr(v, '-');
    char a[64];
    size_t alen = dash ? (size_t)(dash - v) : strlen(v);
    const char *unit;

    if (!dash)
        return ts_apiserver_parse_duration(v, lo) ? -1 : (*hi = *lo, 0);
    if (ts_apiserver_parse_duration(dash + 1, hi))
        return -1;
    for (unit = dash + 1; *unit && (strchr("0123456789.", *unit)); unit++)
        ;
    if (alen + strlen(unit) >= sizeof(a))
        return -1;
    memcpy(a, v, alen);
    a[alen] = '\0';
    if (ts_apiserver_parse_duration(a, lo)) {
        memcpy(a + alen, unit, strlen(unit) + 1);
        if (ts_apiserver_parse_duration(a, lo))
            return -1;
    }
    return *lo <= *hi ? 0 : -1;
}

/* "D@T" or "D@T+E". */
static int parse_pause(const char *v, struct ts_faults_spec *o)
{
    char d[64], t[64];
    const char *at = strchr(v, '@'), *plus = at ? strchr(at, '+') : NULL;
    size_t dl = at ? (size_t)(at - v) : 0, tl;

    if (!at || dl >= sizeof(d))
        return -1;
    tl = plus ? (size_t)(plus - at - 1) : strlen(at + 1);
    if (tl >= sizeof(t))
        return -1;
    memcpy(d, v, dl);
    d[dl] = '\0';
    memcpy(t, at + 1, tl);
    t[tl] = '\0';
    if (ts_apiserver_parse_duration(d, &o->pause_len) ||
        ts_apiserver_parse_duration(t, &o->pause_at) || o->pause_len <= 0)
        return -1;
    if (plus &&
        (ts_apiserver_parse_duration(plus + 1, &o->pause_every) || o->pause_every <= o->pause_len))
        return -1;
    return 0;
}

static int parse_one(const char *key, const char *v, struct ts_faults_spec *o)
{
    int64_t n;

    for (int k = TS_FAULT_WRITE_409; k < TS_FAULT__N; k++)
        if (k != TS_FAULT_LATENCY && k != TS_FAULT_PAUSE && k != TS_FAULT_WATCH_LAG &&
            !strcmp(key, names[k]))
            return parse_prob(v, &o->p[k]);
    if (!strcmp(key, "seed"))
        return ts_parse_i64_c(v, &n) || n < 0 ? -1 : (o->seed = (uint64_t)n, 0);
    if (!strcmp(key, "retry-after"))
        return ts_parse_i64_c(v, &n) || n < 0 || n > 3600 ? -1 : (o->retry_after = n, 0);
    if (!strcmp(key, "watch-drop-after"))
        return ts_parse_i64_c(v, &n) || n <= 0 ? -1 : (o->watch_drop_after = n, 0);
    if (!strcmp(key, "watch-lag"))
        return ts_apiserver_parse_duration(v, &o->watch_lag) || o->watch_lag < 0 ? -1 : 0;
    if (!strcmp(key, "latency"))
        return parse_range(v, &o->lat_min, &o->lat_max);
    if (!strcmp(key, "pause"))
        return parse_pause(v, o);
    return -2;
}

int ts_faults_parse(const char *spec, struct ts_faults_spec *out, struct ts_err *err)
{
    const char *p = spec ? spec : "";

    memset(out, 0, sizeof(*out));
    out->seed = 1;
    out->retry_after = 1;
    while (*p) {
        const char *end = strchr(p, ','), *eq;
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[128];
        int rc;

        if (len >= sizeof(item))
            return ts_err_set(err, TS_EINVAL, "--faults: item '%.40s...' is too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (end ? 1 : 0);
        if (!len)
            continue;
        if (!(eq = strchr(item, '=')))
            return ts_err_set(err, TS_EINVAL, "--faults: '%s': want KEY=VALUE", item);
        item[eq - item] = '\0';
        rc = parse_one(item, eq + 1, out);
        if (rc == -2)
            return ts_err_set(err, TS_EINVAL, "--faults: unknown key '%s'", item);
        if (rc)
            return ts_err_set(err, TS_EINVAL, "--faults: bad value '%s' for key '%s'", eq + 1,
                              item);
    }
    return 0;
}

void ts_faults_init(struct ts_faults *f, const struct ts_faults_spec *spec)
{
    memset(f, 0, sizeof(*f));
    f->spec = *spec;
    f->rng = spec->seed ^ 0x9e3779b97f4a7c15ull;
}

/* splitmix64: tiny, seedable with anything, good enough for coin flips. */
static uint64_t next(struct ts_faults *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(struct ts_faults *f)
{
    return (double)(next(f) >> 11) * (1.0 / 9007199254740992.0);
}

/* Draws for kind and counts it when it hits and applies.  Always draws,
 * so whether a kind applies never shifts the sequence of the others. */
static int coin(struct ts_faults *f, int kind, int applies)
{
    int hit = uniform(f) < f->spec.p[kind] && applies;

    f->count[kind] += (uint64_t)hit;
    return hit;
}

void ts_faults_decide(struct ts_faults *f, enum ts_fault_req req, struct ts_fault_decision *d)
{
    static const int writes[] = {TS_FAULT_WRITE_409, TS_FAULT_WRITE_429, TS_FAULT_WRITE_500,
                                 TS_FAULT_WRITE_503};
    const struct ts_faults_spec *s = &f->spec;
    double u = uniform(f), acc = 0;
    uint64_t lat = next(f);

    memset(d, 0, sizeof(*d));
    if (s->lat_max > 0) {
        d->latency = s->lat_min + (int64_t)(lat % (uint64_t)(s->lat_max - s->lat_min + 1));
        f->count[TS_FAULT_LATENCY] += d->latency > 0;
    }
    /* one draw picks at most one write failure: the fractions add up */
    for (size_t i = 0; req == TS_FAULT_REQ_WRITE && i < sizeof(writes) / sizeof(writes[0]); i++) {
        acc += s->p[writes[i]];
        if (u < acc) {
            d->fail = writes[i];
            f->count[writes[i]]++;
            break;
        }
    }
    if (coin(f, TS_FAULT_GONE, req == TS_FAULT_REQ_RESUME))
        d->fail = TS_FAULT_GONE;
    d->cut =
        coin(f, TS_FAULT_CUT, !d->fail && (req == TS_FAULT_REQ_READ || req == TS_FAULT_REQ_WRITE));
    /* drawn only when asked for: older specs keep their sequences */
    if (s->p[TS_FAULT_WRITE_CUT] > 0 &&
        coin(f, TS_FAULT_WRITE_CUT, !d->fail && !d->cut && req == TS_FAULT_REQ_WRITE))
        d->cut = TS_FAULT_CUT_IF_DONE;
}

int ts_faults_watch_drop(struct ts_faults *f, uint64_t sent)
{
    if (f->spec.watch_drop_after > 0 && sent >= (uint64_t)f->spec.watch_drop_after) {
        f->count[TS_FAULT_WATCH_DROP]++;
        return 1;
    }
    return coin(f, TS_FAULT_WATCH_DROP, 1);
}

int64_t ts_faults_pause_left(const struct ts_faults_spec *spec, int64_t since_start)
{
    int64_t t;

    if (spec->pause_len <= 0 || since_start < spec->pause_at)
        return 0;
    t = since_start - spec->pause_at;
    if (spec->pause_every > 0)
        t %= spec->pause_every;
    return t < spec->pause_len ? spec->pause_len - t : 0;
}

void ts_faults_count_pause(struct ts_faults *f)
{
    f->count[TS_FAULT_PAUSE]++;
}

void ts_faults_json(const struct ts_faults *f, struct ts_buf *out)
{
    uint64_t total = 0;

    ts_buf_addf(out, "{\"seed\":%llu,\"injected\":{", (unsigned long long)f->spec.seed);
    for (int k = 1; k < TS_FAULT__N; k++) {
        ts_buf_addf(out, "%s\"%s\":%llu", k > 1 ? "," : "", names[k],
                    (unsigned long long)f->count[k]);
        if (k != TS_FAULT_LATENCY && k != TS_FAULT_WATCH_LAG) /* slow, not failed */
            total += f->count[k];
    }
    ts_buf_addf(out, "},\"total\":%llu}", (unsigned long long)total);
}
