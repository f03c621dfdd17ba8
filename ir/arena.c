/* arena.c - bump allocator: chunks linked in a list, freed in one go.
 *
 * Every IR node, string and list of a program comes from here, so an error in the middle
 * of parsing leaks nothing: the caller frees the arena.
 */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
	struct chunk *next;
	size_t size, used;
	max_align_t data[];
} chunk;

struct solar_arena {
	chunk *head;
	size_t total;
};

solar_arena *solar_arena_new(void)
{
	solar_arena *a = solar_xmalloc(sizeof *a);
	a->head = NULL;
	a->total = 0;
	return a;
}

void solar_arena_free(solar_arena *a)
{
	if (!a)
		return;
	for (chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *solar_arena_alloc(solar_arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	size = (size + align - 1) / align * align;
	if (!a->head || a->head->size - a->head->used < size) {
		size_t cap = size > 65536 ? size : 65536;
		chunk *c = solar_xmalloc(sizeof *c + cap);
		c->size = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)a->head->data + a->head->used;
	a->head->used += size;
	a->total += size;
	memset(p, 0, size);
	return p;
}

char *solar_arena_strndup(solar_arena *a, const char *s, size_t n)
{
	char *p = solar_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *solar_arena_strdup(solar_arena *a, const char *s)
{
	return solar_arena_strndup(a, s, strlen(s));
}

void *solar_arena_memdup(solar_arena *a, const void *p, size_t size)
{
	void *q = solar_arena_alloc(a, size);
	if (size)
		memcpy(q, p, size);
	return q;
}

size_t solar_arena_used(const solar_arena *a)
{
	return a->total;
}

void solar_ptrvec_push(solar_ptrvec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 8;
		void **items = solar_xrealloc(v->items, (size_t)cap * sizeof *items);
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = p;
}

void **solar_ptrvec_freeze(solar_ptrvec *v, solar_arena *a)
{
	void **out = solar_arena_memdup(a, v->items, (size_t)v->n * sizeof *v->items);
	free(v->items);
	v->items = NULL;
	v->cap = 0;
	return out;
}
