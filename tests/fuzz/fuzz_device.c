/* fuzz_device.c - libFuzzer target for the device loader: load, --set, write, reload.
 *
 * The input is a descriptor (JSON), optionally preceded by one line `PATH=VALUE`, the
 * override `--set PATH=VALUE` would apply (solar_device_set).  A "base" is resolved in
 * devices/, so chains onto the shipped descriptors run too.  Every descriptor that loads is
 * held to the writer's promise (devices/device.h, `solar device show`): the fully resolved
 * JSON it writes loads again, with no diagnostic, to the same figures (written again, the
 * text is the same byte for byte).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "devices/device.h"
#include "fuzz.h"

static char *written(const solar_device *d)
{
	char *text = NULL;
	size_t len;
	FILE *mem = open_memstream(&text, &len);
	FUZZ_REQUIRE(mem, "open_memstream");
	FUZZ_REQUIRE(solar_device_write_json(d, mem) == 0, "the writer failed");
	fclose(mem);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *text = fuzz_text(data, size), *json = text, *set = NULL;
	/* A base may name any file; one that never ends (a FIFO, a terminal) would hang a read,
	 * which is the user's own doing, not a loader bug. */
	if (strstr(text, "/dev/") || strstr(text, "/proc/")) {
		free(text);
		return 0;
	}
	char *nl = strchr(text, '\n');
	if (text[0] != '{' && nl && memchr(text, '=', (size_t)(nl - text))) {
		*nl = '\0';
		set = text;
		json = nl + 1;
	}
	solar_device *d =
	    solar_device_load_string(json, "fuzz.json", SOLAR_SOURCE_DIR "/devices", fuzz_diag());
	if (d && set) {
		char *eq = strchr(set, '=');
		*eq = '\0';
		char *end;
		double value = strtod(eq + 1, &end);
		if (*end)
			value = -1; /* still run the error path */
		solar_device_set(d, set, value, fuzz_diag());
	}
	if (d) {
		char *first = written(d);
		char *errors = NULL;
		size_t nerrors;
		FILE *err = open_memstream(&errors, &nerrors);
		FUZZ_REQUIRE(err, "open_memstream");
		solar_diag *dg = solar_diag_new_tool(err);
		solar_device *again = solar_device_load_string(first, "written.json", NULL, dg);
		solar_diag_free(dg);
		fclose(err);
		FUZZ_REQUIRE(again && !errors[0], "the written descriptor %s:\n%s---\n%s",
			     again ? "loads with diagnostics" : "does not load", errors, first);
		char *second = written(again);
		FUZZ_REQUIRE(!strcmp(first, second),
			     "written, loaded and written again, the descriptor changed:\n%s---\n%s",
			     first, second);
		free(second);
		free(errors);
		free(first);
		solar_device_free(again);
	}
	solar_device_free(d);
	free(text);
	return 0;
}
