/* bench_proc.c - the processes of a live benchmark: start the API server
 * and the controller, stop them and read their resource usage, count the
 * API writes in the server's access log. */
#define _GNU_SOURCE /* wait4 */
#include "cli/bench_int.h"

#include "util/hmap.h"
#include "util/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ts__bench_spawn(char *const *argv, const char *out_path, const char *err_path, FILE *err)
{
    pid_t pid = fork();

    if (pid < 0) {
        fprintf(err, "error: fork: %s\n", strerror(errno));
        return -1;
    }
    if (!pid) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
        int er = open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0600);

        /* the servers never outlive an interrupted benchmark */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (out < 0 || er < 0 || dup2(out, 1) < 0 || dup2(er, 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return (int)pid;
}

int ts__bench_stop(int pid, int sig, double timeout_s, struct rusage *ru)
{
    struct rusage dummy;
    struct timespec tick = {0, 20 * 1000 * 1000};
    int status;

    if (pid <= 0)
        return -1;
    kill(pid, sig);
    for (double waited = 0;; waited += 0.02) {
        pid_t r = wait4(pid, &status, WNOHANG, ru ? ru : &dummy);

        if (r == pid)
            return 0;
        if (r < 0)
            return -1;
        if (waited >= timeout_s) {
            kill(pid, SIGKILL);
            return wait4(pid, &status, 0, ru ? ru : &dummy) == pid ? 0 : -1;
        }
        nanosleep(&tick, NULL);
    }
}

const char *ts__bench_bin(const char *bin_dir, const char *name, char *buf, size_t len)
{
    char self[4096];
    ssize_t n;
    char *slash;

    if (bin_dir) {
        snprintf(buf, len, "%s/%s", bin_dir, name);
        return buf;
    }
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    snprintf(buf, len, "%s/%s", n > 0 ? self : ".", name);
    return buf;
}

/* Splits path in place at '/' into at most max non-empty parts. */
static size_t split(char *path, char **parts, size_t max)
{
    size_t n = 0;

    for (char *q = path; *q && n < max;) {
        while (*q == '/')
            *q++ = 0;
        if (!*q)
            break;
        parts[n++] = q;
        while (*q && *q != '/')
            q++;
    }
    return n;
}

/* "method=PUT path=/apis/g/v/namespaces/ns/workloads/x/status code=200"
 * -> "PUT workloads/status"; 0 when the line is not a successful write. */
static int write_key(const char *line, char *key, size_t len)
{
    const char *m = strstr(line, "method="), *p = strstr(line, " path="),
               *c = strstr(line, " code=");
    char method[16], path[1024], *q, *parts[16];
    size_t n, res;

    if (!m || !p || !c || sscanf(m, "method=%15s", method) != 1 ||
        sscanf(p, " path=%1023s", path) != 1 || strncmp(c, " code=2", 7))
        return 0;
    if (strcmp(method, "POST") && strcmp(method, "PUT") && strcmp(method, "PATCH") &&
        strcmp(method, "DELETE"))
        return 0;
    if ((q = strchr(path, '?')))
        *q = 0;
    n = split(path, parts, 16);
    /* /api/v1/[namespaces/NS/]RES[/NAME[/SUB]] or /apis/G/V/... */
    res = n && !strcmp(parts[0], "api") ? 2 : 3;
    if (n > res + 2 && !strcmp(parts[res], "namespaces"))
        res += 2;
    if (res >= n)
        return 0;
    snprintf(key, len, "%s %s%s%s", method, parts[res], n > res + 2 ? "/" : "",
             n > res + 2 ? parts[res + 2] : "");
    return 1;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ts__bench_count_writes(const char *log_path, struct ts_buf *out, size_t *wl_writes)
{
    FILE *f = fopen(log_path, "r");
    struct ts_hmap counts = TS_HMAP_INIT;
    char line[2048], key[256];
    const char **keys;
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    *wl_writes = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (!write_key(line, key, sizeof(key)))
            continue;
        v = ts_hmap_get(&counts, key);
        ts_hmap_put(&counts, key, (void *)((uintptr_t)v + 1));
        if (strstr(key, " workloads"))
            (*wl_writes)++;
    }
    fclose(f);
    keys = ts_xcalloc(counts.n + 1, sizeof(*keys));
    while (ts_hmap_next(&counts, &it, &k, &v))
        keys[n++] = k;
    if (n)
        qsort(keys, n, sizeof(*keys), key_cmp);
    for (size_t i = 0; i < n; i++)
        ts_buf_addf(out, "%s %zu\n", keys[i], (size_t)(uintptr_t)ts_hmap_get(&counts, keys[i]));
    free(keys);
    ts_hmap_release(&counts);
    return 0;
}
