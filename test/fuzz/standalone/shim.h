/* shim.h: what the standalone harnesses need from shim.c */
#ifndef SHIM_H
#define SHIM_H

#include <setjmp.h>

extern sigjmp_buf *shim_error_jmp;
extern char shim_last_error[512];
extern void shim_free_all(void);

/* shim_state.c: the key type pipeline_agg is called with, its aggregate context */
extern Oid	shim_key_type;
extern MemoryContext shim_agg_context;

/*
 * The stand-in key type a stored name denotes (the server never looks a
 * stored name up: a resuming call compares it with its own type's name).
 */
extern Oid	shim_key_type_from_name(const char *name, int code);

#endif
