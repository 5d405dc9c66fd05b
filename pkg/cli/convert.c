#include "cli/convert.h"

#include "api/convert.h"
#include "cli/load.h"
#include "json/json.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#include <string.h>

#define USAGE "usage: turnstilectl convert --to v1beta1|v1beta2 -f FILE [-o json|yaml]\n"

/* Prints one converted document (or its error); returns 0 or 1. */
static int convert_one(const cJSON *doc, const char *to, int yaml, FILE *out, FILE *err)
{
    struct ts_buf b = TS_BUF_INIT;
    struct ts_err e = {0};
    cJSON *obj = cJSON_Duplicate(doc, 1);
    int rc = ts_convert_kueue(obj, to, &e) != 0;

    if (rc) {
        cJSON_Delete(obj);
        obj = cJSON_CreateObject();
        cJSON_AddStringToObject(obj, "error", e.msg);
        if (yaml)
            fprintf(err, "turnstilectl convert: %s\n", e.msg);
    }
    if (yaml && !rc) {
        if (ts_yaml_encode(obj, 0, &b, NULL) == 0)
            fprintf(out, "---\n%s", b.ptr);
    } else if (!yaml && ts_json_print(obj, TS_JSON_COMPACT, &b, NULL) == 0) {
        fprintf(out, "%s\n", b.ptr);
    }
    ts_buf_release(&b);
    cJSON_Delete(obj);
    return rc;
}

int ts_cli_convert(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    const char *file = NULL, *to = NULL;
    int yaml = 0, rc = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "-f") && v && !file)
            file = argv[++i];
        else if (!strcmp(a, "--to") && v && !strcmp(v, "v1beta1"))
            to = TS_KUEUE_V1BETA1, i++;
        else if (!strcmp(a, "--to") && v && !strcmp(v, "v1beta2"))
            to = TS_KUEUE_V1BETA2, i++;
        else if (!strcmp(a, "-o") && v && (!strcmp(v, "json") || !strcmp(v, "yaml")))
            yaml = !strcmp(argv[++i], "yaml");
        else {
            fprintf(err, "turnstilectl convert: bad argument '%s'\n" USAGE, a);
            return 2;
        }
    }
    if (!file || !to) {
        fputs("turnstilectl convert: --to and -f are required\n" USAGE, err);
        return 2;
    }
    if (ts_cli_read_stream(file, &st, &e) != 0) {
        fprintf(err, "turnstilectl convert: %s\n", e.msg);
        return 1;
    }
    for (size_t i = 0; i < st.n; i++)
        rc |= convert_one(st.docs[i].root, to, yaml, out, err);
    ts_yaml_stream_release(&st);
    return rc;
}
