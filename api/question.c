/* question.c - the spellings of a question's settings, read and written in one place.
 *
 * A question (api/solar.h) holds its settings as values, never as the strings the user wrote:
 * the command line and a report manifest parse "warm" and "cold" here when they read the
 * option or key, and every output writes the L2 state back through solar_l2_name, so no
 * consumer compares the string.
 */
#include <string.h>

#include "api/solar.h"

const char *solar_l2_name(bool l2_cold)
{
	return l2_cold ? "cold" : "warm";
}

int solar_l2_parse(const char *s, bool *l2_cold)
{
	if (!s || (strcmp(s, "warm") && strcmp(s, "cold")))
		return -1;
	*l2_cold = !strcmp(s, "cold");
	return 0;
}
