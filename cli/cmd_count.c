/* cmd_count.c - `solar count FILE [-D ..] [--json] [--symbolic]`.
 *
 * Prints the exact work and data of a program: per statement (instances, operations per
 * instance and in total by datapath), per kernel and for the whole program (per tensor:
 * distinct elements read and written, elements loaded from and stored to DRAM, bytes).
 * The JSON schema is in docs/json.md.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/symbolic.h"
#include "analysis/analysis.h"
#include "analysis/work.h"
#include "api/detail.h"
#include "cli.h"
#include "output.h"

static void print_ops(FILE *out, const solar_ops *o)
{
	bool any = false;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (!solar_count_is_zero(o->v[u][q])) {
				char *s = solar_count_str(o->v[u][q]);
				fprintf(out, "%s%s %s.%s", any ? ", " : "", s, solar_unit_name(u),
					solar_prec_name(q));
				free(s);
				any = true;
			}
	if (!any)
		fputs("0", out);
}

static void print_mix(FILE *out, const solar_op_mix *m)
{
	bool any = false;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (m->n[u][q]) {
				fprintf(out, "%s%d %s.%s", any ? " + " : "", m->n[u][q],
					solar_unit_name(u), solar_prec_name(q));
				any = true;
			}
	if (!any)
		fputs("0", out);
}

/* Rule "random tensors" (docs/bounds.md): the draws of each rand tensor the scope reads, which
 * the generator makes on the chip (no bytes; no ops in the bound), and the 32-bit words
 * PyTorch's Philox generator takes for them (one per element, two for f64), for comparison. */
static void print_draws(FILE *out, const solar_program *p, const solar_scope_work *s)
{
	for (int i = 0; i < s->ntensors; i++) {
		const solar_tensor *t = &p->tensors[s->tensor[i].tensor];
		if (t->role != SOLAR_ROLE_RAND || solar_count_is_zero(s->tensor[i].read))
			continue;
		char *n = solar_count_str(s->tensor[i].read);
		char *words = solar_count_str_times(s->tensor[i].read, t->dtype == SOLAR_DT_F64 ? 2 : 1);
		fprintf(out,
			"  draws: %s %s %s from rand '%s', made on the chip (no bytes, no ops; "
			"PyTorch's Philox takes %s 32-bit words)\n",
			n, solar_dist_name(t->dist), solar_dtype_name(t->dtype), t->name, words);
		free(words);
		free(n);
	}
}

static void print_scope(FILE *out, const solar_work *w, const solar_scope_work *s)
{
	const solar_program *p = w->prog;
	fputs("  ops: ", out);
	print_ops(out, &s->ops);
	fputs("\n", out);
	int tw = 12; /* the tensor column: as wide as its longest name */
	for (int i = 0; i < s->ntensors; i++)
		if ((int)strlen(p->tensors[s->tensor[i].tensor].name) > tw)
			tw = (int)strlen(p->tensors[s->tensor[i].tensor].name);
	fprintf(out, "  %-*s %-6s %-7s %16s %16s %16s %16s  (elements)\n", tw, "tensor", "role",
		"dtype", "read", "written", "loaded", "stored");
	for (int i = 0; i < s->ntensors; i++) {
		const solar_tensor_data *td = &s->tensor[i];
		int t = td->tensor;
		if (solar_count_is_zero(td->read) && solar_count_is_zero(td->written))
			continue;
		char *r = solar_count_str(td->read), *wr = solar_count_str(td->written);
		char *l = solar_count_str(td->load), *st = solar_count_str(td->store);
		fprintf(out, "  %-*s %-6s %-7s %16s %16s %16s %16s\n", tw, p->tensors[t].name,
			solar_role_name(p->tensors[t].role), solar_dtype_name(p->tensors[t].dtype),
			r, wr, l, st);
		free(r);
		free(wr);
		free(l);
		free(st);
	}
	solar_count *lb = solar_scope_bytes(w, s, SOLAR_DATA_LOAD), *sb = solar_scope_bytes(w, s, SOLAR_DATA_STORE);
	char *ls = solar_count_str(lb), *ss = solar_count_str(sb);
	solar_count *rb = solar_scope_bytes(w, s, SOLAR_DATA_READ), *wb = solar_scope_bytes(w, s, SOLAR_DATA_WRITTEN);
	char *rs = solar_count_str(rb), *ws = solar_count_str(wb);
	fprintf(out, "  bytes: %s read, %s written; DRAM: %s loaded + %s stored\n", rs, ws, ls, ss);
	print_draws(out, p, s);
	free(rs);
	free(ws);
	solar_count_free(rb);
	solar_count_free(wb);
	free(ls);
	free(ss);
	solar_count_free(lb);
	solar_count_free(sb);
}

static void print_text(FILE *out, const solar_opts *o, const solar_work *w)
{
	const solar_program *p = w->prog;
	solar_out_header(out, o->files[0], p, true);
	fputs("\nstatements (instances x ops per instance)\n", out);
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		const solar_stmt_work *sw = &w->stmt[i];
		char *inst = solar_count_str(sw->instances);
		fprintf(out, "  S%d [%s] ", i, p->kernels[s->kernel].name);
		solar_ir_print_stmt(p, s, out);
		fprintf(out, "\n      %s x (", inst);
		print_mix(out, &sw->mix);
		fputs(")", out);
		for (int k = 0; k < sw->nhoisted; k++) { /* work hoisted out of some loops */
			char *n = solar_count_str(sw->hoisted_count[k]);
			fprintf(out, " + %s x (", n);
			print_mix(out, &sw->hoisted[k].mix);
			fputs(") per value of ", out);
			solar_ir_print_expr(p, sw->hoisted[k].key, out);
			free(n);
		}
		if (sw->combines) {
			char *n = solar_count_str(sw->combines);
			fprintf(out, " + %s combines", n);
			free(n);
		}
		fputs(" = ", out);
		print_ops(out, &sw->ops);
		if (sw->contraction)
			fprintf(out, "  [contraction over %d dim%s]", sw->reduction_dims,
				sw->reduction_dims == 1 ? "" : "s");
		fputs("\n", out);
		free(inst);
	}
	for (int k = 0; k < p->nkernels; k++) {
		fprintf(out, "\nkernel %s (elements; loads and stores as if it ran alone)\n",
			p->kernels[k].name);
		print_scope(out, w, &w->kernel[k]);
	}
	fputs("\nprogram as one kernel (compulsory traffic)\n", out);
	print_scope(out, w, &w->total);
	if (p->nassumes)
		fputc('\n', out);
	solar_out_assumptions(out, p, w->assumed);
}

static cJSON *json_ops(const solar_ops *o)
{
	cJSON *j = cJSON_CreateObject();
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (!solar_count_is_zero(o->v[u][q])) {
				char key[64];
				snprintf(key, sizeof key, "%s_%s", solar_unit_name(u),
					 solar_prec_name(q));
				cJSON_AddItemToObject(j, key, solar_json_count(o->v[u][q]));
			}
	return j;
}

static cJSON *json_scope(const solar_work *w, const solar_scope_work *s, const char *name)
{
	const solar_program *p = w->prog;
	cJSON *j = cJSON_CreateObject();
	if (name)
		cJSON_AddStringToObject(j, "name", name);
	cJSON_AddItemToObject(j, "ops", json_ops(&s->ops));
	cJSON *ts = cJSON_AddObjectToObject(j, "tensors");
	for (int i = 0; i < s->ntensors; i++) {
		const solar_tensor_data *td = &s->tensor[i];
		int t = td->tensor;
		if (solar_count_is_zero(td->read) && solar_count_is_zero(td->written))
			continue;
		cJSON *e = cJSON_AddObjectToObject(ts, p->tensors[t].name);
		cJSON_AddItemToObject(e, "read_elements", solar_json_count(td->read));
		cJSON_AddItemToObject(e, "written_elements", solar_json_count(td->written));
		cJSON_AddItemToObject(e, "loaded_elements", solar_json_count(td->load));
		cJSON_AddItemToObject(e, "stored_elements", solar_json_count(td->store));
		/* rule "random tensors": a rand tensor's draws move no bytes */
		unsigned long eb = p->tensors[t].role == SOLAR_ROLE_RAND
				       ? 0
				       : (unsigned long)solar_dtype_bytes(p->tensors[t].dtype);
		cJSON_AddNumberToObject(e, "bytes_per_element", (double)eb);
		const char *keys[] = {"read_bytes", "written_bytes", "loaded_bytes", "stored_bytes"};
		for (solar_data_field f = 0; f < SOLAR_DATA_COUNT; f++) {
			char *b = solar_count_str_times(solar_tensor_data_get(td, f), eb);
			cJSON_AddItemToObject(e, keys[f], solar_json_digits(b));
			free(b);
		}
	}
	solar_count *lb = solar_scope_bytes(w, s, SOLAR_DATA_LOAD), *sb = solar_scope_bytes(w, s, SOLAR_DATA_STORE);
	cJSON_AddItemToObject(j, "loaded_bytes", solar_json_count(lb));
	cJSON_AddItemToObject(j, "stored_bytes", solar_json_count(sb));
	solar_count_free(lb);
	solar_count_free(sb);
	return j;
}

static cJSON *json_count(const solar_opts *o, const solar_work *w)
{
	const solar_program *p = w->prog;
	cJSON *j = solar_json_program(o->files[0], p);
	cJSON_AddStringToObject(j, "math", o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	cJSON *ss = cJSON_AddArrayToObject(j, "statements");
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt_work *sw = &w->stmt[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "id", i);
		cJSON_AddStringToObject(e, "kernel", p->kernels[p->stmts[i]->kernel].name);
		char *text = solar_ir_stmt_text(p, p->stmts[i], false);
		cJSON_AddStringToObject(e, "text", text);
		free(text);
		cJSON_AddItemToObject(e, "instances", solar_json_count(sw->instances));
		cJSON_AddItemToObject(e, "ops", json_ops(&sw->ops));
		cJSON_AddBoolToObject(e, "contraction", sw->contraction);
		if (sw->combines)
			cJSON_AddItemToObject(e, "combines", solar_json_count(sw->combines));
		cJSON_AddItemToArray(ss, e);
	}
	cJSON *ks = cJSON_AddArrayToObject(j, "kernels");
	for (int k = 0; k < p->nkernels; k++)
		cJSON_AddItemToArray(ks, json_scope(w, &w->kernel[k], p->kernels[k].name));
	cJSON_AddItemToObject(j, "total", json_scope(w, &w->total, NULL));
	solar_json_assumptions(j, p, w->assumed);
	return j;
}

int solar_cmd_count(const solar_opts *o)
{
	if (o->nfiles != 1) {
		solar_diag_tool_error(solar_cli_diag(), "count needs exactly one FILE");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	solar_loaded l;
	int rc = solar_cli_load(o->files[0], o, &l);
	if (rc != SOLAR_EXIT_OK)
		return rc;
	FILE *out = solar_out_open(o);
	if (!out) {
		solar_cli_unload(&l);
		return SOLAR_EXIT_USAGE;
	}
	if (o->symbolic) {
		rc = solar_symbolic_report(l.prog, o->math, o->format == SOLAR_FMT_JSON, out, l.diag);
		solar_diag_finish(l.diag);
	} else {
		solar_job job = {.file = o->files[0], .question = solar_cli_question(o)};
		job.question.device_file = NULL; /* counts only: no device */
		solar_result *res = solar_job_run_program(&job, l.prog, l.diag);
		solar_cli_question_free(&job.question);
		const solar_work *w = solar_result_work(res);
		if (!w) {
			solar_diag_finish(l.diag);
			rc = SOLAR_EXIT_ERRORS;
		} else if (o->format == SOLAR_FMT_JSON) {
			solar_json_print(out, solar_json_schema(json_count(o, w), "count"));
		} else {
			print_text(out, o, w);
		}
		solar_result_free(res);
	}
	if (rc == SOLAR_EXIT_OK) /* else the output is discarded: the old -o file stays */
		solar_out_close(o, out);
	solar_cli_unload(&l);
	return rc;
}
