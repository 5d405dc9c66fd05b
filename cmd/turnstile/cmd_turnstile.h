/* cmd_turnstile.h - the modes of the turnstile binary. */
#ifndef TS_CMD_TURNSTILE_H
#define TS_CMD_TURNSTILE_H

/* The controller manager (every mode but --webhook-only).  Returns the
 * process exit code. */
int ts__turnstile_controller_main(int argc, char **argv);

#endif
