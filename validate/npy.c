/* npy.c - reading and writing NumPy .npy files (format versions 1.0 to 3.0).
 *
 * solar's own copy, for the CUDA backend's host side and the tests; the generated C program
 * carries the same logic in its runtime (rt.c).  Only little-endian, C-order arrays of the
 * plain numeric types and bool: what validate/harness.py writes with numpy.save.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "../diag/alloc.h"

static const struct {
	const char *descr;
	int size;
} types[SOLAR_NPY_COUNT] = {
	{"<f8", 8}, {"<f4", 4}, {"<f2", 2}, {"<i8", 8}, {"<i4", 4}, {"<i2", 2},
	{"|i1", 1}, {"<u8", 8}, {"<u4", 4}, {"<u2", 2}, {"|u1", 1}, {"|b1", 1},
};

const char *solar_npy_descr(solar_npy_type t)
{
	return types[t].descr;
}

int solar_npy_size(solar_npy_type t)
{
	return types[t].size;
}

bool solar_npy_is_float(solar_npy_type t)
{
	return t <= SOLAR_NPY_F2;
}

solar_npy_type solar_npy_out_type(solar_dtype t, bool *widened)
{
	*widened = false;
	switch (t) {
	case SOLAR_DT_F64:
		return SOLAR_NPY_F8;
	case SOLAR_DT_F16:
		return SOLAR_NPY_F2;
	case SOLAR_DT_I64:
		return SOLAR_NPY_I8;
	case SOLAR_DT_I32:
		return SOLAR_NPY_I4;
	case SOLAR_DT_I8:
		return SOLAR_NPY_I1;
	case SOLAR_DT_U8:
		return SOLAR_NPY_U1;
	case SOLAR_DT_BOOL:
		return SOLAR_NPY_B1;
	case SOLAR_DT_F32:
		return SOLAR_NPY_F4;
	default: /* bf16, f8e4m3, f8e5m2 */
		*widened = true;
		return SOLAR_NPY_F4;
	}
}

static int fail(solar_diag *diag, const char *path, const char *why)
{
	solar_diag_tool_error(diag, "%s: %s", path, why);
	return -1;
}

int solar_npy_read(const char *path, solar_npy *out, solar_diag *diag)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(diag, path, strerror(errno));
	unsigned char pre[12];
	char *hdr = NULL;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
		fclose(f);
		return fail(diag, path, "not a .npy file");
	}
	size_t hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] >= 2) {
		if (fread(pre + 10, 1, 2, f) != 2)
			goto truncated;
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > (1u << 20))
		goto bad_header;
	hdr = solar_xmalloc(hlen + 1);
	if (fread(hdr, 1, hlen, f) != hlen)
		goto truncated;
	hdr[hlen] = '\0';

	const char *d = strstr(hdr, "'descr'");
	const char *q = d ? strchr(d + 7, '\'') : NULL;
	int type = -1;
	if (q && (q[1] == '<' || q[1] == '|' || q[1] == '=') && q[2] && q[3] && q[4] == '\'')
		for (int t = 0; t < SOLAR_NPY_COUNT; t++)
			if (!strncmp(q + 2, types[t].descr + 1, 2))
				type = t;
	if (type < 0) {
		free(hdr);
		fclose(f);
		return fail(diag, path,
			    "unsupported element type (expected a little-endian float, "
			    "integer or bool type)");
	}
	out->type = (solar_npy_type)type;
	const char *fo = strstr(hdr, "'fortran_order'");
	if (fo && !strncmp(fo + strlen("'fortran_order'"), ": True", 6)) {
		free(hdr);
		fclose(f);
		return fail(diag, path, "Fortran-order arrays are not supported");
	}
	const char *sh = strstr(hdr, "'shape'");
	const char *c = sh ? strchr(sh, '(') : NULL;
	if (!c)
		goto bad_header;
	c++;
	out->count = 1;
	for (;;) {
		while (*c == ' ' || *c == ',')
			c++;
		if (*c == ')')
			break;
		char *end;
		long long v = strtoll(c, &end, 10);
		if (end == c || v < 0 || out->rank >= 32)
			goto bad_header;
		out->shape[out->rank++] = v;
		if (v && out->count > INT64_MAX / v)
			goto bad_header;
		out->count *= v;
		c = end;
	}
	size_t bytes = (size_t)out->count * (size_t)types[type].size;
	out->data = solar_xmalloc(
	    bytes ? bytes : 1); /* the header may claim any size: an error, not exit */
	if (!out->data || fread(out->data, 1, bytes, f) != bytes)
		goto truncated;
	free(hdr);
	fclose(f);
	return 0;

bad_header:
	free(hdr);
	fclose(f);
	solar_npy_free(out);
	return fail(diag, path, "malformed .npy header");
truncated:
	free(hdr);
	fclose(f);
	solar_npy_free(out);
	return fail(diag, path, "truncated .npy file");
}

int solar_npy_write(const char *path, solar_npy_type type, int rank, const int64_t *shape,
		    const void *data, solar_diag *diag)
{
	char hdr[2048];
	int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
			 types[type].descr);
	size_t count = 1;
	for (int k = 0; k < rank && n < (int)sizeof hdr - 64; k++) {
		n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld%s", (long long)shape[k],
			      rank == 1 ? "," : k + 1 < rank ? ", " : "");
		count *= (size_t)shape[k];
	}
	n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
	int pad = (64 - (10 + n + 1) % 64) % 64;
	FILE *f = fopen(path, "wb");
	if (!f)
		return fail(diag, path, strerror(errno));
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
	pre[8] = (unsigned char)((n + pad + 1) & 0xff);
	pre[9] = (unsigned char)((n + pad + 1) >> 8);
	fwrite(pre, 1, 10, f);
	fwrite(hdr, 1, (size_t)n, f);
	for (int i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	size_t wrote = count ? fwrite(data, (size_t)types[type].size, count, f) : 0;
	if (fclose(f) || wrote != count)
		return fail(diag, path, "cannot write the file");
	return 0;
}

void solar_npy_free(solar_npy *a)
{
	free(a->data);
	a->data = NULL;
}
