/* bench_server.h - what the pkg/kube benchmarks share: a
 * turnstile-apiserver child on 127.0.0.1:0 and this process's CPU time.
 * Header-only: each benchmark is one translation unit (see Makefile). */
#ifndef TS_BENCH_SERVER_H
#define TS_BENCH_SERVER_H

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json/json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "util/log.h"

extern char **environ;

/* Starts bin (no access log, warnings only) with its kubeconfig written
 * to dir and loaded into *cfg; plain HTTP if insecure, else HTTPS with a
 * self-signed CA.  Exits on failure.  The caller kills the child. */
static pid_t bench_start_server(const char *bin, const char *dir, int insecure,
                                struct ts_kubeconfig *cfg)
{
    char kc[256], out[256];
    const char *argv[] = {bin,
                          "--listen",
                          "127.0.0.1:0",
                          "--no-access-log",
                          "--log-level",
                          "warn",
                          "--kubeconfig-out",
                          kc,
                          insecure ? "--insecure-http" : NULL,
                          NULL};
    posix_spawn_file_actions_t fa;
    struct ts_err e = {0};
    pid_t pid;

    snprintf(kc, sizeof(kc), "%s/kubeconfig", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawn(&pid, bin, &fa, NULL, (char *const *)(uintptr_t)argv, environ))
        ts_fatal("bench", "cannot start %s", bin);
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 200 && access(kc, R_OK); i++)
        usleep(25000);
    usleep(100000);
    if (ts_kubeconfig_load_files((const char *const[]){kc}, 1, NULL, cfg, &e))
        ts_fatal("bench", "%s", e.msg);
    return pid;
}

/* Stops the child and removes dir; returns main's exit status. */
static int bench_stop_server(pid_t pid, const char *dir)
{
    char cmd[320];

    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}

/* This process's CPU seconds, user and system (the client's: the server
 * is another process). */
static double bench_cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Submits r with the JSON text body as its body; exits on failure. */
static void bench_submit_json(struct ts_kube_client *c, struct ts_kube_req *r, const char *body,
                              ts_kube_done_fn fn, void *data)
{
    cJSON *obj = cJSON_Parse(body);

    r->body = obj;
    if (!obj || ts_kube_submit(c, r, fn, data, NULL, NULL))
        ts_fatal("bench", "submit");
    cJSON_Delete(obj);
}

#endif
