/* fuzz.h: what the two halves of the libFuzzer target share */
#ifndef FUZZ_H
#define FUZZ_H

#include "sp_codec.h"

/* fuzz_spec.c: a row value from a byte, among the edges of float8 */
extern double fuzz_pick(uint8 b);

/* SEGPIPE_FUZZ_EXACT: inputs are the server's own output (see fuzz_state.c) */
extern bool fuzz_exact;
/* set while an input that must be accepted is being read */
extern bool fuzz_exact_pending;

/* fuzz_state.c */
extern void fuzz_value(PipelineValue *pv, const uint8 *rows, size_t n);
extern void fuzz_message(const uint8 *data, size_t size);
extern void fuzz_text(const char *text, const uint8 *rows, size_t n);

#endif
