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

#endif
