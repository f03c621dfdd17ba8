/* arena.h - bump allocation for everything a program owns.
 *
 * The IR, its strings and its lists live in one arena and are freed together with
 * solar_arena_free.  Allocation never fails silently: on exhaustion of the system
 * allocator the process reports it and exits (there is nothing sensible to continue with).
 */
#ifndef SOLAR_ARENA_H
#define SOLAR_ARENA_H

#include <stddef.h>

#include "../diag/alloc.h" /* SOLAR_GIVE, SOLAR_TAKE, SOLAR_KEEP */

typedef struct solar_arena solar_arena;

SOLAR_GIVE solar_arena *solar_arena_new(void);
void solar_arena_free(SOLAR_TAKE solar_arena *a);
/* Zeroed, max-aligned memory that lives as long as the arena. */
void *solar_arena_alloc(SOLAR_KEEP solar_arena *a, size_t size);
char *solar_arena_strndup(SOLAR_KEEP solar_arena *a, const char *s, size_t n);
char *solar_arena_strdup(SOLAR_KEEP solar_arena *a, const char *s);
/* Copies n elements of size `size` into the arena (for freezing growable arrays). */
void *solar_arena_memdup(SOLAR_KEEP solar_arena *a, const void *p, size_t size);
/* Bytes handed out so far (for limits on hostile input). */
size_t solar_arena_used(const solar_arena *a);

/* A growable array of pointers, malloc-backed while being built; freeze into the arena. */
typedef struct {
	void **items;
	int n, cap;
} solar_ptrvec;

void solar_ptrvec_push(solar_ptrvec *v, void *p);
/* Moves the items into the arena, frees the vector's buffer and returns the array. */
void **solar_ptrvec_freeze(solar_ptrvec *v, solar_arena *a);

#endif
