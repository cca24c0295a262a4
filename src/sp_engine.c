/*
 * sp_engine.c
 *	  The segment rule (SPEC section 2) and the mesh executor.
 */
#include "postgres.h"

#include <math.h>

#include "sp_engine.h"

bool
sp_key_equal(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b;
}

Size
sp_run_size(const SpConfig *cfg)
{
	Size		sz = MAXALIGN(sizeof(SpRun));

	sz += MAXALIGN(sizeof(bool) * cfg->n_out) * 2;	/* buffered, emitted */
	sz += MAXALIGN(sizeof(double) * cfg->n_out) * 2;	/* buffer, emit */
	sz += MAXALIGN(sizeof(double) * cfg->n_in);
	sz += MAXALIGN(sizeof(double) * cfg->n_ops);
	sz += MAXALIGN(sizeof(bool) * cfg->n_ops);
	sz += MAXALIGN(sizeof(double) * cfg->max_nin);
	sz += cfg->state_size;
	return sz;
}

static void *
carve(char **p, Size sz)
{
	void	   *r = *p;

	*p += MAXALIGN(sz);
	return r;
}

SpRun *
sp_run_init(const SpConfig *cfg, void *mem)
{
	char	   *p = mem;
	SpRun	   *run = carve(&p, sizeof(SpRun));

	run->cfg = cfg;
	run->buffered = carve(&p, sizeof(bool) * cfg->n_out);
	run->emitted = carve(&p, sizeof(bool) * cfg->n_out);
	run->buffer = carve(&p, sizeof(double) * cfg->n_out);
	run->emit = carve(&p, sizeof(double) * cfg->n_out);
	run->row_in = carve(&p, sizeof(double) * cfg->n_in);
	run->val = carve(&p, sizeof(double) * cfg->n_ops);
	run->have = carve(&p, sizeof(bool) * cfg->n_ops);
	run->op_in = carve(&p, sizeof(double) * cfg->max_nin);
	run->opstate = carve(&p, cfg->state_size);
	Assert(p - (char *) mem <= sp_run_size(cfg));
	return run;
}

/* Boundary: emit the buffer in port order, then reset every operator. */
static void
close_segment(SpRun *run)
{
	const SpConfig *cfg = run->cfg;

	for (int i = 0; i < cfg->n_out; i++)
	{
		if (!run->buffered[i])
			continue;
		run->emitted[i] = true;
		run->emit[i] = run->buffer[i];
		run->buffered[i] = false;
		run->n_emitted++;
	}
	/* all-zero is every operator's initial state (sp_operator.h) */
	memset(run->opstate, 0, cfg->state_size);
}

/* Run the mesh on one data row and update the buffer. */
static void
forward(SpRun *run)
{
	const SpConfig *cfg = run->cfg;

	for (int k = 0; k < cfg->n_ops; k++)
	{
		int			i = cfg->order[k];
		const SpOperator *op = &cfg->ops[i];
		const SpSource *feed = &cfg->feeds[op->first_feed];
		bool		ready = true;

		/* an operator runs when every data port received a value this row */
		for (int j = 0; j < op->nin; j++)
		{
			if (feed[j].op < 0)
				run->op_in[j] = run->row_in[feed[j].port];
			else if (run->have[feed[j].op])
				run->op_in[j] = run->val[feed[j].op];
			else
			{
				ready = false;
				break;
			}
		}
		run->have[i] = ready &&
			op->type->step(&op->params, run->opstate + op->state_off,
						   run->op_in, &run->val[i]);
	}
	for (int j = 0; j < cfg->n_out; j++)
	{
		int			i = cfg->out_op[j];

		if (run->have[i])
		{
			run->buffer[j] = run->val[i];
			run->buffered[j] = true;
		}
	}
}

bool
sp_run_row(SpRun *run, const double *values, bool key_isnull, double key)
{
	const SpConfig *cfg = run->cfg;

	if (run->n_emitted > 0)
	{
		memset(run->emitted, 0, sizeof(bool) * cfg->n_out);
		run->n_emitted = 0;
	}

	/*
	 * Punctuation without a key carries nothing; a value without a key is
	 * unpaired and discarded.
	 */
	if (key_isnull)
		return false;

	if (!run->has_key)
	{
		run->has_key = true;
		run->key = key;
	}
	else if (!sp_key_equal(run->key, key))
	{
		close_segment(run);
		run->key = key;
	}

	if (values != NULL)
	{
		for (int i = 0; i < cfg->n_in; i++)
			run->row_in[i] = (cfg->in_types[i] == SP_PORT_BOOLEAN) ?
				(values[i] != 0.0) : values[i];
		memset(run->have, 0, sizeof(bool) * cfg->n_ops);
		forward(run);
	}
	return run->n_emitted > 0;
}
