/*
 * load.h - reading Kueue objects, Jobs and Kubeflow jobs from YAML files (or
 * "-" for standard input) into a simulator, reporting each rejected
 * document as "file:line: document N: <message naming object and field>".
 * Jobs are added after everything else, as in a cluster where the job
 * controller retries until the queues and classes they name exist.
 */
#ifndef TS_CLI_LOAD_H
#define TS_CLI_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "sim/sim.h"
#include "yaml/yaml.h"

/* Returns the number of rejected documents, or -1 when a file could not be
 * read or parsed (message on err). */
int ts_cli_load(struct ts_sim *sim, const char *const *files, size_t n, ts_time now, FILE *err);

/* Decodes the YAML stream of `file` ("-": standard input) into st.
 * Returns the codes of ts_yaml_decode_file().  Ownership: st owns the
 * documents (ts_yaml_stream_release()). */
int ts_cli_read_stream(const char *file, struct ts_yaml_stream *st, struct ts_err *e);

#endif
