/*
 * fuzz_spec.c
 *	  libFuzzer target for the spec reader and the engine, outside the
 *	  server (built by test/libfuzz.sh with AddressSanitizer and UBSan).
 *
 * Input: a spec text, then optionally a NUL byte and bytes that drive rows.
 * Checks, beyond "no crash, no out-of-bounds access":
 *	- the canonical text of an accepted spec reads back to the same text;
 *	- a run over the rows emits only on ports that exist, and only on rows
 *	  whose key differs from the current one.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "sp_engine.h"
#include "sp_spec.h"

#include "shim.h"

/* values a row may carry: the edges float8 arithmetic cares about */
static const double interesting[] = {
	0.0, -0.0, 1.0, -1.0, 2.5, 1e308, -1e308, 1e-308, 5e-324, 1e16,
	3.0, 1000.0, -746.0, 710.0, 0.5, 7.0
};

static double
pick(uint8 b)
{
	if (b & 0x80)
		return (b & 0x40) ? NAN : ((b & 0x20) ? INFINITY : -INFINITY);
	return interesting[b % lengthof(interesting)];
}

static void
run_rows(const SpConfig *cfg, const uint8 *p, size_t n)
{
	SpRun	   *run = sp_run_init(cfg, palloc0(sp_run_size(cfg)));
	double	   *vals = palloc(sizeof(double) * cfg->n_in);
	size_t		step = 2 + cfg->n_in;

	for (; n >= step; p += step, n -= step)
	{
		uint8		flags = p[0];
		bool		punct = (flags & 1) != 0;
		bool		knull = (flags & 6) == 6;
		double		key = pick(p[1]);
		bool		had_key = run->has_key;
		double		old_key = run->key;
		bool		emitted;

		for (int i = 0; i < cfg->n_in; i++)
			vals[i] = pick(p[2 + i]);
		emitted = sp_run_row(run, punct ? NULL : vals, knull, key);
		if (emitted && (knull || !had_key || sp_key_equal(old_key, key)))
			abort();			/* emitted without a boundary */
		if (emitted != (run->n_emitted > 0) || run->n_emitted > cfg->n_out)
			abort();
	}
}

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	sigjmp_buf	env;
	size_t		text_len = strnlen((const char *) data, size);
	char	   *text = malloc(text_len + 1);

	memcpy(text, data, text_len);
	text[text_len] = '\0';
	shim_error_jmp = &env;
	if (sigsetjmp(env, 0) == 0)
	{
		SpConfig   *cfg = sp_spec_read(text);
		StringInfoData first,
					again;

		initStringInfo(&first);
		sp_spec_write(&first, cfg);
		initStringInfo(&again);
		sp_spec_write(&again, sp_spec_read(first.data));
		if (strcmp(first.data, again.data) != 0)
			abort();			/* canonical text is not a fixed point */
		if (text_len < size)
			run_rows(cfg, data + text_len + 1, size - text_len - 1);
	}
	shim_error_jmp = NULL;
	shim_free_all();
	free(text);
	return 0;
}
