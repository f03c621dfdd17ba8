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
