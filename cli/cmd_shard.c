/* cmd_shard.c - `solar shard FILE --mesh AXIS=N,... [--split AXIS=NAME,...] [--zero]
 * [--sequence-parallel] [--microbatches M] [--pp-cut even|cost|N0,N1,...] [-o OUT.air]`
 * (docs/shard.md): the one rank's AIR 1.2 program of a one-GPU program (analysis/shard.c;
 * the pp axis's stages, analysis/pipeline.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/shard.h"
#include "cli.h"
#include "output.h"

#define MAX_AXES 8
#define MAX_NAMES 32

/* The usual sizes of a strategy, where --split does not name them (docs/shard.md). */
static const char *const dp_names[] = {"BATCH", "B", "TOKENS", "batch_size", "BATCH_SIZE", NULL};
static const char *const tp_names[] = {"HEADS", "KV_HEADS", "INTER", "N_HEADS", "N_KV_HEADS",
				       "HIDDEN_INNER", "VOCAB", NULL};

static bool has_size(const solar_program *p, const char *name)
{
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i].name, name))
			return true;
	for (int i = 0; i < p->nconsts; i++)
		if (!strcmp(p->consts[i].name, name))
			return true;
	return false;
}

static bool is_name(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* --mesh dp=8,tp=8 into axes (names and sizes); 0, or a usage error. */
static int parse_mesh(const char *text, solar_shard_axis *axes, int *naxes, char *store)
{
	*naxes = 0;
	strcpy(store, text);
	for (char *tok = strtok(store, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		char *end = NULL;
		errno = 0;
		long long n = eq ? strtoll(eq + 1, &end, 10) : 0;
		if (!eq || !is_name(tok, (size_t)(eq - tok)) || !end || *end || end == eq + 1 ||
		    errno || n < 1 || n > (1 << 24))
			return solar_cli_usage("shard", "--mesh expects AXIS=N,... (dp=8,tp=8; N from 1 "
						"to 16777216), not '%s'",
					       text);
		*eq = 0;
		for (int a = 0; a < *naxes; a++)
			if (!strcmp(axes[a].axis, tok))
				return solar_cli_usage("shard", "--mesh names an axis twice: '%s'",
						       text);
		if (*naxes == MAX_AXES)
			return solar_cli_usage("shard", "--mesh has more than 8 axes: '%s'", text);
		axes[(*naxes)++] = (solar_shard_axis){.axis = tok, .size = n};
	}
	if (!*naxes)
		return solar_cli_usage("shard", "--mesh expects AXIS=N,..., not '%s'", text);
	return SOLAR_EXIT_OK;
}

/* --pp-cut even|cost|N0,N1,... into cut (the layers of each stage in *layers, malloc'd) for a
 * pp axis of P stages: P numbers of at least one layer each (their sum is the program's to
 * check, analysis/pipeline.c); 0, or a usage error. */
static int parse_pp_cut(const char *text, int64_t P, solar_pp_cut *cut, int64_t **layers)
{
	*cut = (solar_pp_cut){.rule = SOLAR_PP_CUT_COST, .text = text};
	if (!strcmp(text, "cost") || !strcmp(text, "even")) {
		cut->rule = text[0] == 'e' ? SOLAR_PP_CUT_EVEN : SOLAR_PP_CUT_COST;
		return SOLAR_EXIT_OK;
	}
	int n = 1;
	for (const char *c = text; *c; c++)
		n += *c == ',';
	int64_t *x = *layers = solar_xcalloc((size_t)n, sizeof *x);
	const char *c = text;
	for (int s = 0; s < n; s++) {
		char *end = NULL;
		errno = 0;
		long long v = *c >= '0' && *c <= '9' ? strtoll(c, &end, 10) : -1;
		if (!end || end == c || (*end && *end != ',') || errno || v > (1 << 24))
			return solar_cli_usage("shard",
					       "--pp-cut expects even, cost or the layers of each "
					       "stage (N0,N1,..., each from 1 to 16777216), not '%s'",
					       text);
		x[s] = v;
		c = end + (*end == ',');
	}
	char msg[1200];
	if (n != P) {
		snprintf(msg, sizeof msg, "--pp-cut %.1000s lists %d stages, the mesh has pp=%lld",
			 text, n, (long long)P);
		return solar_cli_usage("shard", "%s", msg);
	}
	for (int s = 0; s < n; s++)
		if (x[s] < 1) {
			snprintf(msg, sizeof msg,
				 "--pp-cut %.1000s: stage %d has no layers, each needs one at least",
				 text, s);
			return solar_cli_usage("shard", "%s", msg);
		}
	*cut = (solar_pp_cut){SOLAR_PP_CUT_LAYERS, x, n, text};
	return SOLAR_EXIT_OK;
}

/* The command as run, with the sizes each axis splits, for the output's header (cut at
 * size bytes). */
static void command_line(const solar_opts *o, const solar_shard_axis *axes, int naxes,
			 char *cmdline, size_t size)
{
	int n = snprintf(cmdline, size, "solar shard %s --mesh %s", o->files[0], o->mesh);
	for (int a = 0; a < naxes && n > 0 && (size_t)n < size; a++) {
		if (!axes[a].nnames)
			continue;
		n += snprintf(cmdline + n, size - (size_t)n, " --split %s=", axes[a].axis);
		for (int i = 0; i < axes[a].nnames && (size_t)n < size; i++)
			n += snprintf(cmdline + n, size - (size_t)n, "%s%s", i ? "," : "",
				      axes[a].names[i]);
	}
	if (o->zero && n > 0 && (size_t)n < size)
		n += snprintf(cmdline + n, size - (size_t)n, " --zero");
	if (o->sequence_parallel && n > 0 && (size_t)n < size)
		n += snprintf(cmdline + n, size - (size_t)n, " --sequence-parallel");
	if (o->microbatches && n > 0 && (size_t)n < size)
		n += snprintf(cmdline + n, size - (size_t)n, " --microbatches %d", o->microbatches);
	if (o->pp_cut && n > 0 && (size_t)n < size)
		snprintf(cmdline + n, size - (size_t)n, " --pp-cut %s", o->pp_cut);
}

/* The options that need an axis of the mesh (--zero dp, --sequence-parallel tp,
 * --microbatches and --pp-cut pp), and --pp-cut read into cut; 0, or a usage error. */
static int check_strategies(const solar_opts *o, const solar_shard_axis *axes, int naxes,
			    solar_pp_cut *cut, int64_t **layers)
{
	int pp = -1;
	bool dp = false, tp = false;
	for (int a = 0; a < naxes; a++) {
		dp |= !strcmp(axes[a].axis, "dp");
		pp = !strcmp(axes[a].axis, "pp") ? a : pp;
		tp |= !strcmp(axes[a].axis, "tp");
	}
	if (o->zero && !dp)
		return solar_cli_usage("shard",
				       "--zero shards the optimizer's state over dp: --mesh has no dp "
				       "axis (--mesh dp=N,...): '%s'",
				       o->mesh);
	if (o->sequence_parallel && !tp)
		return solar_cli_usage("shard",
				       "--sequence-parallel splits the sequence over tp: --mesh has no "
				       "tp axis (--mesh tp=N,...): '%s'",
				       o->mesh);
	if (o->microbatches && pp < 0)
		return solar_cli_usage("shard",
				       "--microbatches run through pipeline stages: --mesh has no pp "
				       "axis (--mesh pp=N,...): '%s'",
				       o->mesh);
	if (o->pp_cut && pp < 0)
		return solar_cli_usage("shard",
				       "--pp-cut cuts the layers into pipeline stages: --mesh has no pp "
				       "axis (--mesh pp=N,...): '%s'",
				       o->mesh);
	return o->pp_cut ? parse_pp_cut(o->pp_cut, axes[pp].size, cut, layers) : SOLAR_EXIT_OK;
}

int solar_cmd_shard(const solar_opts *o)
{
	if (o->nfiles != 1 || !o->mesh)
		return solar_cli_usage("shard", "%s",
				       o->nfiles != 1 ? "shard needs exactly one FILE"
						      : "shard needs --mesh AXIS=N,... (dp=8,tp=8)");
	solar_shard_axis axes[MAX_AXES];
	const char *names[MAX_AXES][MAX_NAMES];
	char *mesh_store = solar_xstrdup(o->mesh);
	char **split_store = solar_xcalloc((size_t)o->nsplits + 1, sizeof *split_store);
	int naxes = 0, rc = parse_mesh(o->mesh, axes, &naxes, mesh_store);
	solar_loaded l = {0};
	char *text = NULL;
	solar_pp_cut pp_cut = {SOLAR_PP_CUT_COST, NULL, 0, NULL};
	int64_t *pp_layers = NULL;
	for (int a = 0; a < naxes; a++)
		axes[a].names = names[a];
	for (int i = 0; rc == SOLAR_EXIT_OK && i < o->nsplits; i++) {
		split_store[i] = solar_xstrdup(o->splits[i]);
		char *eq = strchr(split_store[i], '=');
		int a = 0;
		if (eq)
			*eq = 0;
		while (eq && a < naxes && strcmp(axes[a].axis, split_store[i]))
			a++;
		if (!eq || a == naxes) {
			rc = solar_cli_usage("shard",
					     eq ? "--split %s: the mesh has no such axis (--mesh names "
						  "them)"
						: "--split expects AXIS=NAME,... (tp=HEADS,INTER), not '%s'",
					     o->splits[i]);
			break;
		}
		if (!strcmp(axes[a].axis, "pp")) {
			rc = solar_cli_usage(
			    "shard",
			    "--split %s: pp splits no sizes, it cuts the layers into "
			    "stages",
			    o->splits[i]);
			break;
		}
		for (char *tok = strtok(eq + 1, ","); tok; tok = strtok(NULL, ",")) {
			if (!is_name(tok, strlen(tok)) || axes[a].nnames == MAX_NAMES) {
				rc = solar_cli_usage("shard", "--split expects AXIS=NAME,... (at most "
							      "32 names), not '%s'",
						     o->splits[i]);
				break;
			}
			names[a][axes[a].nnames++] = tok;
		}
	}
	if (rc == SOLAR_EXIT_OK)
		rc = check_strategies(o, axes, naxes, &pp_cut, &pp_layers);
	if (rc == SOLAR_EXIT_OK)
		rc = solar_cli_load(o->files[0], o, &l);
	if (rc != SOLAR_EXIT_OK)
		goto done;
	if (l.prog->nmesh) {
		solar_diag_error(l.diag, l.prog->mesh[0].span,
				 "the program has a mesh already: solar shard takes a one-GPU "
				 "program");
		solar_diag_finish(l.diag);
		rc = SOLAR_EXIT_ERRORS;
		goto done;
	}
	for (int a = 0; a < naxes; a++)
		for (int i = 0; i < axes[a].nnames; i++)
			if (!has_size(l.prog, names[a][i])) {
				solar_diag_tool_error(solar_cli_diag(),
						      "--split %s=%s: %s has no param or const '%s'",
						      axes[a].axis, names[a][i], o->files[0],
						      names[a][i]);
				rc = SOLAR_EXIT_USAGE;
				goto done;
			}
	/* the strategies' usual sizes where --split names none */
	for (int a = 0; a < naxes; a++) {
		if (axes[a].nnames || !strcmp(axes[a].axis, "pp"))
			continue;
		const char *const *usual = !strcmp(axes[a].axis, "dp") ? dp_names
					   : !strcmp(axes[a].axis, "tp") ? tp_names
									 : NULL;
		for (int i = 0; usual && usual[i]; i++)
			if (has_size(l.prog, usual[i])) {
				names[a][axes[a].nnames++] = usual[i];
				if (usual == dp_names)
					break; /* one batch */
			}
		if (!axes[a].nnames) {
			solar_diag_tool_error(
			    solar_cli_diag(),
			    "shard: %s splits nothing: %s has %s; name its sizes with --split "
			    "%s=NAME,...",
			    axes[a].axis, o->files[0],
			    usual ? "none of the strategy's usual sizes" : "no usual sizes for this axis",
			    axes[a].axis);
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
	}
	char cmdline[1024];
	command_line(o, axes, naxes, cmdline, sizeof cmdline);
	solar_shard_opts so = {.zero = o->zero,
			       .sequence_parallel = o->sequence_parallel,
			       .microbatches = o->microbatches ? o->microbatches : 1,
			       .pp_cut = pp_cut};
	text = solar_shard(l.prog, axes, naxes, &so, cmdline, l.diag, solar_cli_diag());
	solar_diag_finish(l.diag);
	if (!text) {
		rc = SOLAR_EXIT_ERRORS;
		goto done;
	}
	FILE *out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	fputs(text, out);
	solar_out_close(o, out);
done:
	free(pp_layers);
	free(text);
	solar_cli_unload(&l);
	free(mesh_store);
	for (int i = 0; i < o->nsplits; i++)
		free(split_store[i]);
	free(split_store);
	return rc;
}
