/*
 * Ctrl-C and SIGTERM during a long call (an update, a test suite): the
 * first one sets the flag the library polls (weir_run_options.cancel), a
 * second one ends the process. A signal handler can only reach a static
 * object, so the flag (and whether a guard is up) is the one piece of
 * process-wide state in the CLI.
 */
#include <signal.h>
#include <string.h>

#include "cli.h"

static volatile int interrupted;
static bool catching;

static void on_signal(int sig)
{
    interrupted = 1;
    signal(sig, SIG_DFL); /* a second Ctrl-C ends the process */
}

volatile int *interrupt_catch(interrupt_guard *g)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    catching = true;
    sigaction(SIGINT, &sa, &g->old_int);
    sigaction(SIGTERM, &sa, &g->old_term);
    return &interrupted;
}

void interrupt_release(interrupt_guard *g)
{
    catching = false;
    sigaction(SIGINT, &g->old_int, NULL);
    sigaction(SIGTERM, &g->old_term, NULL);
}

bool interrupt_pending(void)
{
    return catching && interrupted;
}
