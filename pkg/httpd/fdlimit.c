/* fdlimit.c - file-limit sizing of the HTTP servers (fdlimit.h). */
#include "httpd/fdlimit.h"

#include "util/log.h"

#include <sys/resource.h>

#define RESERVE 1024
#define FLOOR   256

void ts_httpd_raise_file_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rlim_t was = rl.rlim_cur;

        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            ts_log_debug("httpd", "open file limit raised from %llu to %llu",
                         (unsigned long long)was, (unsigned long long)rl.rlim_cur);
    }
}

unsigned ts_httpd_conn_budget(unsigned max)
{
    struct rlimit rl;
    rlim_t n;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return max;
    n = rl.rlim_cur > RESERVE + FLOOR ? rl.rlim_cur - RESERVE : FLOOR;
    return n > max ? max : n < FLOOR ? FLOOR : (unsigned)n;
}
