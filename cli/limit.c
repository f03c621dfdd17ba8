/* limit.c - the wall-clock limit of every command (SOLAR_TIME_LIMIT), armed by main before
 * the command runs and paused around what is not solar's own work.
 *
 * Leaf of the command line: it knows the launcher (validate/proc.c), nothing of the commands.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "validate/validate.h" /* solar_proc_limit_* */

/* The time limit: exact polyhedral analysis of a hostile program (thousands of kernels over
 * one tensor) can take super-linear time that ISL's operation budget does not catch, so every
 * command runs under a wall-clock limit, SOLAR_TIME_LIMIT seconds (default 120, 0 for none),
 * and ends with a clear error, exit 2, after the child then running is stopped and the
 * temporaries removed (validate/proc.c).  The limit is for solar's own work: validate pauses
 * it while the reference and the AIR program run (they have their own --timeout), translate
 * while its translator says it validates (the control pipe, validate/proc.c). */
static char limit_msg[400]; /* written before the timer is armed: the handler only writes it */
static long armed_s;        /* the limit armed, seconds; 0: none */

double solar_cli_time_limit_s(void)
{
	return (double)armed_s;
}

static void time_limit_hit(int sig)
{
	(void)sig;
	solar_proc_cleanup(); /* the child stopped, the old outputs as they were */
	if (write(STDERR_FILENO, limit_msg, strlen(limit_msg)) < 0) {
		/* nothing more can be done in a signal handler */
	}
	_exit(SOLAR_EXIT_USAGE); /* a limit of the environment, not an error in the input */
}

/* Arms the limit; what: what ran past it ("the analysis", "the translation"), why: what the
 * message adds about the cause. */
void solar_cli_arm_time_limit(const char *what, const char *why)
{
	const char *env = getenv("SOLAR_TIME_LIMIT");
	long seconds = 120;
	if (env && *env) {
		char *end;
		seconds = strtol(env, &end, 10);
		if (*end || seconds < 0) {
			solar_diag_tool_warning(solar_cli_diag(),
						"SOLAR_TIME_LIMIT must be a number of seconds, not "
						"'%s'; using 120",
						env);
			seconds = 120;
		}
	}
	armed_s = seconds;
	if (!seconds)
		return;
	snprintf(limit_msg, sizeof limit_msg,
		 "solar: error: %s exceeded its time limit (SOLAR_TIME_LIMIT seconds, default 120) "
		 "and was stopped%s\n",
		 what, why);
	signal(SIGALRM, time_limit_hit);
	solar_proc_limit_arm(seconds);
}

/* The pause itself is the process launcher's (validate/proc.c), so that search/ can pause the
 * limit around the translator it runs, as the commands do around theirs. */
void solar_cli_time_limit_pause(void) { solar_proc_limit_pause(); }

void solar_cli_time_limit_resume(void) { solar_proc_limit_resume(); }
