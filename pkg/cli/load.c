#include "cli/load.h"

#include "api/object.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#include <stdlib.h>
#include <string.h>

int ts_cli_read_stream(const char *file, struct ts_yaml_stream *st, struct ts_err *e)
{
    struct ts_buf b = TS_BUF_INIT;
    char chunk[65536];
    size_t n;
    int rc;

    if (strcmp(file, "-"))
        return ts_yaml_decode_file(file, st, e);
    while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
        ts_buf_add(&b, chunk, n);
    rc = ts_yaml_decode(b.ptr, b.len, "<stdin>", st, e);
    ts_buf_release(&b);
    return rc;
}

static int is_job(const cJSON *doc)
{
    enum ts_kind k = ts_object_kind(doc);

    return k == TS_KIND_JOB || TS_KIND_IS_KUBEFLOW(k) || TS_KIND_IS_RAY(k);
}

/* Adds the documents of one file that are (jobs = 1) or are not jobs;
 * returns the number of rejected ones.  Jobs go last, as in a cluster where
 * the job controller retries until the queues and classes they name exist. */
static int add_docs(struct ts_sim *sim, const char *file, struct ts_yaml_stream *st, int jobs,
                    ts_time now, FILE *err)
{
    struct ts_err e = {0};
    int bad = 0;

    for (size_t i = 0; i < st->n; i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        int line = st->docs[i].line;

        if (is_job(st->docs[i].root) != jobs)
            continue;
        ts_err_clear(&e);
        if (ts_sim_add_errs(sim, st->docs[i].root, now, &errs, &e)) {
            if (errs.n)
                line = ts_yaml_doc_line(&st->docs[i], errs.items[0].field);
            fprintf(err, "error: %s:%d: document %zu: %s\n", file, line, i + 1, e.msg);
            bad++;
        }
        ts_field_errors_release(&errs);
    }
    return bad;
}

int ts_cli_load(struct ts_sim *sim, const char *const *files, size_t n, ts_time now, FILE *err)
{
    struct ts_yaml_stream *st = ts_xcalloc(n ? n : 1, sizeof(*st));
    int bad = 0, rc = 0;

    for (size_t i = 0; i < n && !rc; i++) {
        struct ts_err e = {0};

        if (ts_cli_read_stream(files[i], &st[i], &e)) {
            fprintf(err, "error: %s\n", e.msg);
            rc = -1;
        }
    }
    for (int jobs = 0; jobs < 2 && !rc; jobs++) {
        for (size_t i = 0; i < n; i++)
            bad += add_docs(sim, files[i], &st[i], jobs, now, err);
    }
    for (size_t i = 0; i < n; i++)
        ts_yaml_stream_release(&st[i]);
    free(st);
    return rc ? rc : bad;
}
