/* emit.h - the part of code generation that C and CUDA share (emit.c).
 *
 * Statements, loops, conditions and expressions come out the same in both languages: the
 * C backend puts a kernel's block in a function, the CUDA backend puts the body of a launch's
 * innermost parallel loop inside a thread loop.  Names in generated code: tensors t_<name>,
 * iterators i_<name>, locals end in '_' (o_, v_, r_), runtime helpers start with rt_.
 */
#ifndef SOLAR_EMIT_H
#define SOLAR_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "validate.h"

typedef struct {
	const solar_program *p;
	FILE *out;
	int indent;
	/* the statement being emitted: its real type ("float" or "double") and the suffix of
	 * its libm functions ("f" or "") */
	const char *real, *fsuf;
} solar_emit;

/* A line at the current indentation. */
void solar_emit_line(solar_emit *e, const char *fmt, ...) SOLAR_PRINTF(2, 3);

/* The C type a tensor's elements are stored in ("uint16_t" for bf16 and f16). */
const char *solar_emit_storage(solar_dtype t);
/* An expression of the storage type that marks an element as never written. */
const char *solar_emit_poison(solar_dtype t);
/* An expression converting `src`, a double (src_float) or an int64 value, to the storage of
 * dtype t, rounding as a store does. */
void solar_emit_from_value(FILE *out, solar_dtype t, bool src_float, const char *src);
/* An expression converting an element `src` (storage of dtype t) to the .npy output type. */
void solar_emit_to_output(FILE *out, solar_dtype t, const char *src);

/* An affine expression (index, bound) as int64 C. */
void solar_emit_affine(solar_emit *e, const solar_expr *x);
/* An `if` condition. */
void solar_emit_cond(solar_emit *e, const solar_expr *x);
/* Whether an affine expression involves an iterator. */
bool solar_emit_uses_iter(const solar_expr *x);

/* Nodes and blocks, sequential, at the current indentation. */
void solar_emit_block(solar_emit *e, const solar_block *b);
void solar_emit_node(solar_emit *e, const solar_node *n);

#endif
