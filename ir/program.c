/* program.c - the end of a program's life.
 *
 * A program owns one arena that holds the program struct itself, its tables, every IR node
 * and string, and its copy of the source; freeing the arena frees all of it at once.
 */
#include "ir.h"

void solar_program_free(solar_program *p)
{
	if (p)
		solar_arena_free(p->arena); /* p itself lives in the arena */
}

bool solar_ir_expr_reads(const solar_expr *e, int t)
{
	if (e->kind == SOLAR_E_ACCESS && e->sym == t)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_expr_reads(e->args[i], t))
			return true;
	return false;
}

bool solar_ir_expr_uses_iter(const solar_expr *e, int iter)
{
	if (e->kind == SOLAR_E_ITER && e->sym == iter)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_expr_uses_iter(e->args[i], iter))
			return true;
	return false;
}
