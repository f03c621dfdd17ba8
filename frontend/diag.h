#ifndef SOLAR_FRONTEND_DIAG_H
#define SOLAR_FRONTEND_DIAG_H
/* The diagnostics moved to diag/diag.h (issue 13 item 5); this name stays so that code written
 * against it still builds.  New code includes diag/diag.h. */
#include "../diag/diag.h"
#endif
