/* output.c - formatting shared by the subcommands. */
#include "output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"

FILE *solar_out_open(const solar_opts *o)
{
	if (!o->out)
		return stdout;
	FILE *f = fopen(o->out, "w");
	if (!f)
		fprintf(stderr, "solar: cannot write %s\n", o->out);
	return f;
}

void solar_out_close(const solar_opts *o, FILE *f)
{
	if (f && f != stdout)
		fclose(f);
}

void solar_out_header(FILE *out, const char *file, const solar_program *p)
{
	const char *base = strrchr(file, '/');
	fprintf(out, "%s", base ? base + 1 : file);
	for (int i = 0; i < p->nparams; i++)
		fprintf(out, "%s%s=%lld", i ? " " : "  ", p->params[i].name,
			(long long)p->params[i].value);
	fputs("\n", out);
}

void solar_out_stmt(FILE *out, const solar_program *p, const solar_stmt *s)
{
	const solar_tensor *t = &p->tensors[s->tensor];
	fputs(t->name, out);
	if (t->rank) {
		fputs("[", out);
		for (int i = 0; i < t->rank; i++) {
			if (i)
				fputs(", ", out);
			solar_ir_print_expr(p, s->index[i], out);
		}
		fputs("]", out);
	}
	fprintf(out, " %s ", solar_assign_text(s->op));
	solar_ir_print_expr(p, s->value, out);
}

char *solar_out_stmt_str(const solar_program *p, const solar_stmt *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	solar_out_stmt(f, p, s);
	fclose(f);
	return text;
}

cJSON *solar_json_count(isl_val *v)
{
	if (!v)
		return cJSON_CreateNumber(0);
	if (isl_val_abs_eq(v, v) && isl_val_get_d(v) <= 9007199254740992.0)
		return cJSON_CreateNumber(isl_val_get_d(v));
	char *s = solar_val_str(v);
	cJSON *j = cJSON_CreateString(s);
	free(s);
	return j;
}

cJSON *solar_json_program(const char *file, const solar_program *p)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "program", file);
	cJSON *ps = cJSON_AddObjectToObject(j, "params");
	for (int i = 0; i < p->nparams; i++)
		cJSON_AddNumberToObject(ps, p->params[i].name, (double)p->params[i].value);
	return j;
}

void solar_json_print(FILE *out, cJSON *j)
{
	char *s = cJSON_Print(j);
	fprintf(out, "%s\n", s);
	free(s);
	cJSON_Delete(j);
}

const char *solar_fmt_si(char *buf, size_t n, double v)
{
	static const char *prefix[] = {"", " k", " M", " G", " T", " P", " E"};
	int k = 0;
	while (fabs(v) >= 999.5 && k < 6) {
		v /= 1000;
		k++;
	}
	if (k == 0 && v == floor(v))
		snprintf(buf, n, "%.0f ", v);
	else if (k == 0)
		snprintf(buf, n, "%.3g ", v);
	else
		snprintf(buf, n, "%.3g%s", v, prefix[k]);
	return buf;
}

const char *solar_fmt_time(char *buf, size_t n, double s)
{
	if (s <= 0)
		snprintf(buf, n, "0 s");
	else if (s < 1e-6)
		snprintf(buf, n, "%.3g ns", s * 1e9);
	else if (s < 1e-3)
		snprintf(buf, n, "%.3g us", s * 1e6);
	else if (s < 1)
		snprintf(buf, n, "%.3g ms", s * 1e3);
	else
		snprintf(buf, n, "%.3g s", s);
	return buf;
}
