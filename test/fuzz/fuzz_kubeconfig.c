/* Fuzz target: kubeconfig parsing (ts_kubeconfig_load_files) on any file
 * content.  The loader reads files, so each input is written to one
 * private temporary file first.  Properties: a configuration that loads
 * has a server without a trailing '/', a context name and a namespace,
 * and ownership holds (release frees everything). */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include "kube/kubeconfig.h"

static char path[64];

static void remove_file(void)
{
    unlink(path);
}

static int write_input(const uint8_t *data, size_t size)
{
    FILE *f;
    size_t n;

    if (!path[0]) {
        int fd;

        snprintf(path, sizeof(path), "/tmp/ts-fuzz-kubeconfig-XXXXXX");
        if ((fd = mkstemp(path)) < 0)
            abort();
        close(fd);
        atexit(remove_file);
    }
    if (!(f = fopen(path, "wb")))
        abort();
    n = fwrite(data, 1, size, f);
    return fclose(f) != 0 || n != size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *files[1] = {path};
    struct ts_kubeconfig c;
    struct ts_err err;

    if (size > TS_FUZZ_MAX_INPUT || write_input(data, size))
        return 0;
    if (ts_kubeconfig_load_files(files, 1, NULL, &c, &err) == 0) {
        size_t n = strlen(c.server);

        TS_FUZZ_CHECK(n > 0 && c.server[n - 1] != '/');
        TS_FUZZ_CHECK(c.context && c.namespace && c.namespace[0]);
    }
    ts_kubeconfig_release(&c);
    return 0;
}
