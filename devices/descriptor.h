/* descriptor.h - what the two descriptor readers share: a device's (device.c) and a
 * system's (system.c).  Both read a file of at most 16 MiB, parse it once (devices/json.h),
 * report errors at JSON paths in a context of the file (solar_diag_new_file), and read every
 * number as a figure {value, status, source}.
 */
#ifndef SOLAR_DESCRIPTOR_H
#define SOLAR_DESCRIPTOR_H

#include <stddef.h>

#include "device.h"

struct cJSON;

/* Frees a figure's source and marks it absent. */
void solar_figure_clear(solar_figure *f);
/* *to becomes a copy of *from that owns its own source. */
void solar_figure_copy(solar_figure *to, const solar_figure *from);

/* A figure {value, status, source} at JSON path `path` of the file whose context is fd
 * (every error reported there); JSON null clears it.  Writes into out when it is not NULL and
 * the figure is valid (its value a number > 0). */
void solar_figure_walk(solar_diag *fd, const struct cJSON *item, const char *path,
		       solar_figure *out);

/* Reports, as `unknown WHAT 'k' (did you mean ...)`, every key of obj not in allowed. */
void solar_descriptor_check_keys(solar_diag *fd, const struct cJSON *obj, const char *path,
				 const char *what, const char *const *allowed, int count);

/* The text of a regular file (NUL-terminated, *len bytes), or NULL with why. */
SOLAR_GIVE char *solar_descriptor_read(const char *path, size_t *len, char *why, size_t nwhy);

/* `solar: no device 'x'; try 'solar device list' (did you mean 'y'?)` on diag. */
void solar_descriptor_not_found(const char *ref, solar_diag *diag);

#endif
