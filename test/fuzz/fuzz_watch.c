/* Fuzz target: the watch stream parser (newline-delimited JSON events).
 * Property: the stream cut into chunks anywhere (sizes drawn from a hash
 * of the input) yields the same events, in the same order, and the same
 * result code as the stream fed whole. */
#include "fuzz.h"

#include <string.h>

#include "json/json.h"
#include "kube/watch.h"
#include "util/buf.h"

#define MAX_EVENT 4096 /* small, so the size cap is reached too */

static int record(enum ts_watch_type type, cJSON *obj, void *data)
{
    struct ts_buf *log = data;
    char *s = cJSON_PrintUnformatted(obj);

    ts_buf_addf(log, "%s %s\n", ts_watch_type_name(type), s ? s : "?");
    cJSON_free(s);
    cJSON_Delete(obj);
    return 0;
}

/* Feeds data in chunks of 1..max_chunk bytes (max_chunk 0: whole) and
 * logs the events; returns the first nonzero code, as a client stops
 * reading there. */
static int run(const uint8_t *data, size_t size, size_t max_chunk, uint64_t seed,
               struct ts_buf *log)
{
    struct ts_watch_parser p;
    struct ts_err err;
    size_t off = 0;
    int rc = 0;

    ts_watch_parser_init(&p, MAX_EVENT, record, log);
    while (off < size && !rc) {
        size_t n = size - off;

        if (max_chunk) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            n = 1 + (size_t)((seed >> 33) % max_chunk);
            if (n > size - off)
                n = size - off;
        }
        rc = ts_watch_parser_feed(&p, (const char *)data + off, n, &err);
        off += n;
    }
    if (!rc)
        rc = ts_watch_parser_finish(&p, &err);
    ts_watch_parser_release(&p);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ts_buf whole = TS_BUF_INIT, cut = TS_BUF_INIT;
    uint64_t seed = 1469598103934665603ULL;
    int rc_whole, rc_cut;

    if (size > TS_FUZZ_MAX_INPUT)
        return 0;
    for (size_t i = 0; i < size; i++)
        seed = (seed ^ data[i]) * 1099511628211ULL;
    rc_whole = run(data, size, 0, seed, &whole);
    rc_cut = run(data, size, 1 + seed % 64, seed, &cut);
    TS_FUZZ_CHECK(rc_whole == rc_cut);
    TS_FUZZ_CHECK(whole.len == cut.len && memcmp(whole.ptr, cut.ptr, whole.len) == 0);
    ts_buf_release(&whole);
    ts_buf_release(&cut);
    return 0;
}
