/*
 * sp_engine.c
 *	  The segment rule and the mesh executor.
 *
 * A row is classified by its value and key, a key change closes the segment
 * (its buffered results are emitted and every operator reset), and a data
 * row runs the operators in topological order.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"
#include "utils/memutils.h"

#include "sp_engine.h"
#include "sp_rpn.h"

static void state_too_large(int64 bytes);
static SpPortType slot_type(const SpOperator *op, int port);
static int	nested_n_rings(const SpConfig *sub);
static void program_close(SpRun *run);

void
sp_config_layout(SpConfig *cfg)
{
	int64	   *limits;
	int64		total = 0;
	Size		off = 0;
	int			n_rings = 0;
	int			n_shared = 0;
	int			most = SP_MAX_RINGS;
	int			room = 0;

	/*
	 * a nested Pipeline has as many rings as its operators, a
	 * FusedExpression as its stateful opcodes
	 */
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpConfig *sub = cfg->ops[i].params.sub;
		const SpRpn *rpn = cfg->ops[i].params.rpn;
		int			n = cfg->ops[i].type->max_rings ?
			cfg->ops[i].type->max_rings(&cfg->ops[i].params) :
			sub ? nested_n_rings(sub) : rpn ? rpn->n_rings : SP_MAX_RINGS;

		most = Max(most, n);
		room += n;
	}
	limits = palloc(sizeof(int64) * most);
	cfg->ring_limits = palloc(sizeof(int64) * Max(room, 1));
	for (int i = 0; i < cfg->n_ops; i++)
	{
		SpOperator *op = &cfg->ops[i];

		op->timed = op->type->timed != NULL && op->type->timed(&op->params);
		op->lazy = op->type->value != NULL &&
			(op->type->lazy == NULL || op->type->lazy(&op->params));
		cfg->timed |= op->timed;
		op->carries = op->type->carries != NULL && op->type->carries(&op->params);
		cfg->carries |= op->carries;
		op->state_size = op->type->state_size ? op->type->state_size(&op->params) : 0;
		op->state_off = off;
		off += MAXALIGN(op->state_size);
		/* a vector an operator produces may be buffered: SP_MAX_LANES lanes */
		for (int k = 0; (op->type->step_vec || op->type->step_vec_multi) && k < op->nout; k++)
			if (sp_port_is_vector(slot_type(op, k)))
				total += SP_MAX_LANES * (int64) sizeof(double);
		op->n_rings = op->type->rings ? op->type->rings(&op->params, limits) : 0;
		Assert(op->n_rings <= most);
		op->first_ring = n_rings;
		for (int r = 0; r < op->n_rings; r++)
		{
			cfg->ring_limits[n_rings++] = limits[r];
			if (limits[r] == SP_RING_SHARE)
				n_shared++;
			else
				total += limits[r] * (int64) sizeof(double);
		}
	}
	cfg->state_size = off;
	cfg->n_rings = n_rings;
	cfg->max_state = total + (int64) off;
	cfg->declared_limits = palloc(sizeof(int64) * Max(n_rings, 1));
	memcpy(cfg->declared_limits, cfg->ring_limits, sizeof(int64) * n_rings);

	/*
	 * Rings of duration windows hold what their span brings, known only at
	 * run time: they share what the cap leaves, equally, and an operator
	 * whose ring is full when a row must enter stops with 54000
	 * (sp_time_ring_full).  Each gets room for one value at least, or the
	 * spec is refused here as any other too large.
	 */
	if (n_shared > 0)
	{
		int64		share = (SP_MAX_STATE_BYTES - cfg->max_state) /
			(n_shared * (int64) sizeof(double));

		if (share >= 1)
		{
			for (int r = 0; r < n_rings; r++)
				if (cfg->ring_limits[r] == SP_RING_SHARE)
					cfg->ring_limits[r] = share;
			cfg->max_state += share * n_shared * (int64) sizeof(double);
		}
		else
			cfg->max_state += n_shared * (int64) sizeof(double);
	}
	if (cfg->max_state > SP_MAX_STATE_BYTES)
		state_too_large(cfg->max_state);
}

static SpPortType
slot_type(const SpOperator *op, int port)
{
	return op->type->out_type_at ? op->type->out_type_at(&op->params, port) : op->type->out_type;
}

static void
state_too_large(int64 bytes)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("pipeline state would be too large"),
			 errdetail("Its operators can hold up to " INT64_FORMAT " bytes of state; the limit is " INT64_FORMAT " bytes.",
					   bytes, SP_MAX_STATE_BYTES),
			 errhint("Use smaller windows or fewer windowed operators.")));
}

void
sp_config_vectors(SpConfig *cfg)
{
	int			n_vout = 0;

	/* (the vectors' buffers are in max_state already: sp_config_layout) */
	cfg->vectors = false;
	for (int i = 0; i < cfg->n_in; i++)
		cfg->vectors |= sp_port_is_vector(cfg->in_types[i]);
	for (int i = 0; i < cfg->n_out; i++)
		if (sp_port_is_vector(cfg->out_types[i]))
			n_vout++;
	for (int i = 0; i < cfg->n_ops; i++)
		cfg->vectors |= cfg->ops[i].type->step_vec != NULL ||
			cfg->ops[i].type->step_vec_multi != NULL;
	cfg->vectors |= n_vout > 0;
	cfg->n_vslots = 0;
	cfg->slot_lanes = NULL;
	if (!cfg->vectors)
		return;
	cfg->slot_lanes = palloc(sizeof(int) * Max(cfg->n_slots, 1));
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];

		for (int p = 0; p < op->nout; p++)
			cfg->slot_lanes[op->first_out + p] =
				sp_port_is_vector(slot_type(op, p)) ? cfg->n_vslots++ : -1;
	}
}

/*
 * The areas of an SpRun that a row overwrites, in the order carve_areas
 * lays them out; with lanes, the vector areas too.
 */
Size
sp_run_areas_size(const SpConfig *cfg, bool lanes)
{
	Size		sz = 0;

	sz += MAXALIGN(sizeof(bool) * cfg->n_out) * 3;	/* buffered, lazy, emitted */
	sz += MAXALIGN(sizeof(double) * cfg->n_out) * 2;	/* buffer, emit */
	sz += MAXALIGN(sizeof(double) * cfg->n_in);
	sz += MAXALIGN(sizeof(double) * cfg->n_slots);
	sz += MAXALIGN(sizeof(bool) * cfg->n_slots);
	sz += MAXALIGN(sizeof(double) * cfg->max_nin);
	if (lanes)
	{
		int			areas = 1 + cfg->n_vslots + 2 * cfg->n_out;

		sz += MAXALIGN(sizeof(double) * SP_MAX_LANES * areas);
		sz += MAXALIGN(sizeof(int32) * areas);
		sz += MAXALIGN(sizeof(SpValue) * Max(cfg->max_nin, 1));
		sz += MAXALIGN(sizeof(SpValue) * Max(cfg->n_slots, 1));
	}
	return sz;
}

static Size
run_block_size(const SpConfig *cfg)
{
	return MAXALIGN(sizeof(SpRun)) + sp_run_areas_size(cfg, false) +
		MAXALIGN(sizeof(SpRing) * cfg->n_rings) + cfg->state_size;
}

static void *
carve(char **p, Size sz)
{
	void	   *r = *p;

	*p += MAXALIGN(sz);
	return r;
}

/* The areas sp_run_areas_size counts, carved from *p. */
static void
carve_areas(SpRun *run, const SpConfig *cfg, char **p, bool lanes)
{
	run->buffered = carve(p, sizeof(bool) * cfg->n_out);
	run->buffer_lazy = carve(p, sizeof(bool) * cfg->n_out);
	run->emitted = carve(p, sizeof(bool) * cfg->n_out);
	run->buffer = carve(p, sizeof(double) * cfg->n_out);
	run->emit = carve(p, sizeof(double) * cfg->n_out);
	run->row_in = carve(p, sizeof(double) * cfg->n_in);
	run->val = carve(p, sizeof(double) * cfg->n_slots);
	run->have = carve(p, sizeof(bool) * cfg->n_slots);
	run->op_in = carve(p, sizeof(double) * cfg->max_nin);
	if (lanes)
	{
		int			areas = 1 + cfg->n_vslots + 2 * cfg->n_out;

		run->lanes = carve(p, sizeof(double) * SP_MAX_LANES * areas);
		run->lane_n = carve(p, sizeof(int32) * areas);
		run->vin = carve(p, sizeof(SpValue) * Max(cfg->max_nin, 1));
		run->vout = carve(p, sizeof(SpValue) * Max(cfg->n_slots, 1));
	}
}

/* the common case gets a path of its own (run_single) */
static void
set_single(SpRun *run, const SpConfig *cfg)
{
	run->single = cfg->n_ops == 1 && cfg->n_in == 1 && cfg->n_out == 1 &&
		cfg->ops[0].nout == 1 && !cfg->vectors;
	run->single_lazy = run->single && cfg->ops[0].lazy;
}

void
sp_run_view(SpRun *view, const SpConfig *cfg, char *areas, bool lanes)
{
	memset(view, 0, sizeof(SpRun));
	view->cfg = cfg;
	carve_areas(view, cfg, &areas, lanes);
	memset(view->buffered, 0, sizeof(bool) * cfg->n_out);
	memset(view->emitted, 0, sizeof(bool) * cfg->n_out);
}

void
sp_config_restore(const SpConfig *cfg, char *state, const SpRing *rings)
{
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];

		if (op->type->restore)
			op->type->restore(&op->params, state + op->state_off, rings + op->first_ring);
	}
}

SpRun *
sp_run_create(const SpConfig *cfg, MemoryContext cxt)
{
	Size		size = run_block_size(cfg);
	char	   *mem = MemoryContextAllocZero(cxt, size);
	char	   *p = mem;
	SpRun	   *run = carve(&p, sizeof(SpRun));

	run->cfg = cfg;
	carve_areas(run, cfg, &p, false);
	run->rings = carve(&p, sizeof(SpRing) * cfg->n_rings);
	run->opstate = carve(&p, cfg->state_size);
	Assert(p - mem <= size);
	for (int r = 0; r < cfg->n_rings; r++)
		sp_ring_init(&run->rings[r], cfg->ring_limits[r], cxt);
	if (cfg->vectors)
	{
		int			areas = 1 + cfg->n_vslots + 2 * cfg->n_out;
		int			max_nout = 1;

		for (int i = 0; i < cfg->n_ops; i++)
			max_nout = Max(max_nout, cfg->ops[i].nout);
		run->lanes = MemoryContextAllocZero(cxt, sizeof(double) * SP_MAX_LANES * areas);
		run->lane_n = MemoryContextAllocZero(cxt, sizeof(int32) * areas);
		run->vin = MemoryContextAllocZero(cxt, sizeof(SpValue) * Max(cfg->max_nin, 1));
		run->vout = MemoryContextAllocZero(cxt, sizeof(SpValue) * max_nout);
	}
	set_single(run, cfg);
	return run;
}

SpRun *
sp_run_copy(const SpRun *src, MemoryContext cxt)
{
	const SpConfig *cfg = src->cfg;
	SpRun	   *run = sp_run_create(cfg, cxt);

	run->has_key = src->has_key;
	memcpy(run->buffered, src->buffered, sizeof(bool) * cfg->n_out);
	memcpy(run->buffer_lazy, src->buffer_lazy, sizeof(bool) * cfg->n_out);
	memcpy(run->buffer, src->buffer, sizeof(double) * cfg->n_out);
	/* fixed state is plain fields, reset by a memset (sp_operator.h) */
	memcpy(run->opstate, src->opstate, cfg->state_size);
	for (int r = 0; r < cfg->n_rings; r++)
		sp_ring_copy(&run->rings[r], &src->rings[r]);
	/* the buffered vectors (the other areas are per row) */
	for (int i = 0; cfg->vectors && i < cfg->n_out; i++)
	{
		int			a = sp_area_buffer(cfg, i);

		run->lane_n[a] = src->lane_n[a];
		memcpy(sp_run_lanes(run, a), sp_run_lanes(src, a), sizeof(double) * src->lane_n[a]);
	}
	return run;
}

/* The output of operator i, computed from its state when it is lazy. */
static inline double
op_value(const SpRun *run, int i)
{
	const SpOperator *op = &run->cfg->ops[i];

	return op->type->value(&op->params, run->opstate + op->state_off,
						   run->rings + op->first_ring);
}

/*
 * A boundary for the operators that carry (SpOpType.carries): each learns
 * the segment's end instant, and the closing data row's value where it
 * reads the pipeline's input; want[i] says whether operator i's output is
 * to be emitted.
 */
static void
edge_all(SpRun *run, const double *values, bool *want)
{
	const SpConfig *cfg = run->cfg;

	/* want has SP_MAX_OPERATORS entries; the spec reader allows no more */
	Assert(cfg->n_ops <= SP_MAX_OPERATORS);
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];
		const SpSource *feed = &cfg->feeds[op->first_feed];
		double		next;
		bool		direct;

		want[i] = false;
		if (!op->carries)
			continue;
		direct = values != NULL && op->nin > 0 && feed[0].op < 0;
		if (direct)
			next = cfg->in_types[feed[0].port] == SP_PORT_BOOLEAN ?
				(values[feed[0].port] != 0.0) : values[feed[0].port];
		want[i] = op->type->edge(&op->params, run->opstate + op->state_off, run->ts,
								 direct ? &next : NULL);
	}
}

/*
 * Boundary: emit the buffer in port order, then reset every operator.
 * values is the closing data row's (NULL for punctuation or a flush);
 * 'next' says whether a segment follows, into which operators carry.
 */
static void
close_segment(SpRun *run, const double *values, bool next)
{
	const SpConfig *cfg = run->cfg;
	bool		want[SP_MAX_OPERATORS];

	if (unlikely(cfg->carries))
		edge_all(run, values, want);
	for (int i = 0; i < cfg->n_out; i++)
	{
		bool		edged = unlikely(cfg->carries) && cfg->ops[cfg->out_op[i]].carries;

		if (!run->buffered[i] && !(edged && want[cfg->out_op[i]]))
			continue;
		run->emitted[i] = true;
		/* an operator that carries has its value to the segment's end */
		run->emit[i] = run->buffer_lazy[i] || edged ? op_value(run, cfg->out_op[i]) :
			run->buffer[i];
		if (cfg->vectors && sp_port_is_vector(cfg->out_types[i]))
		{
			int			b = sp_area_buffer(cfg, i),
						e = sp_area_emit(cfg, i);

			run->lane_n[e] = run->lane_n[b];
			memcpy(sp_run_lanes(run, e), sp_run_lanes(run, b), sizeof(double) * run->lane_n[b]);
			run->lane_n[b] = 0;
		}
		run->buffered[i] = false;
		run->buffer_lazy[i] = false;
		run->n_emitted++;
	}
	/* all-zero is every operator's initial state (sp_operator.h) */
	if (likely(!cfg->carries) || !next)
		memset(run->opstate, 0, cfg->state_size);
	else
		for (int i = 0; i < cfg->n_ops; i++)
		{
			const SpOperator *op = &cfg->ops[i];

			if (op->carries)
				op->type->carry(&op->params, run->opstate + op->state_off, run->ts);
			else
				memset(run->opstate + op->state_off, 0, op->state_size);
		}
	for (int r = 0; r < cfg->n_rings; r++)
		sp_ring_clear(&run->rings[r]);
}

/*
 * An operator with step_some (Variable, KeyedVariable): it runs when any of
 * its ports received a value this row, and is told which did.
 */
static void
run_some(SpRun *run, const SpOperator *op)
{
	const SpConfig *cfg = run->cfg;
	const SpSource *feed = &cfg->feeds[op->first_feed];
	SpValue		in[SP_MAX_PORTS];
	bool		have_in[SP_MAX_PORTS];
	SpValue		out = {0};
	bool		any = false;
	int			o = op->first_out;

	Assert(op->nin <= SP_MAX_PORTS && op->nout == 1);
	for (int j = 0; j < op->nin; j++)
	{
		int			area = -1;

		in[j].x = 0;
		have_in[j] = true;
		if (feed[j].op < 0)
		{
			in[j].x = run->row_in[feed[j].port];
			if (cfg->vectors && sp_port_is_vector(cfg->in_types[feed[j].port]))
				area = SP_AREA_IN;
		}
		else if (run->have[feed[j].slot])
		{
			in[j].x = run->val[feed[j].slot];
			if (cfg->vectors && cfg->slot_lanes[feed[j].slot] >= 0)
				area = sp_area_slot(cfg, feed[j].slot);
		}
		else
			have_in[j] = false;
		in[j].n = area >= 0 ? run->lane_n[area] : 0;
		in[j].v = area >= 0 ? sp_run_lanes(run, area) : NULL;
		any |= have_in[j];
	}
	run->have[o] = any &&
		op->type->step_some(&op->params, run->opstate + op->state_off,
							run->rings + op->first_ring, in, have_in, &out);
	run->val[o] = out.x;
}

/* Operator i on this row: it runs when every data port received a value. */
static inline void
step_op(SpRun *run, int i)
{
	const SpConfig *cfg = run->cfg;
	const SpOperator *op = &cfg->ops[i];
	const SpSource *feed = &cfg->feeds[op->first_feed];
	bool		ready = true;
	int			o = op->first_out;

	if (unlikely(op->type->step_some != NULL))
	{
		run_some(run, op);
		return;
	}
	for (int j = 0; j < op->nin; j++)
	{
		if (feed[j].op < 0)
			run->op_in[j] = run->row_in[feed[j].port];
		else if (run->have[feed[j].slot])
			run->op_in[j] = run->val[feed[j].slot];
		else
		{
			ready = false;
			break;
		}
	}
	if (!ready)
	{
		for (int p = 0; p < op->nout; p++)
			run->have[o + p] = false;
	}
	else if (unlikely(op->nout > 1))
		(void) op->type->step_multi(&op->params, run->opstate + op->state_off,
									run->rings + op->first_ring, run->ts, run->op_in,
									&run->val[o], &run->have[o]);
	else if (op->timed)
		run->have[o] = op->type->step_at(&op->params, run->opstate + op->state_off,
										 run->rings + op->first_ring, run->ts,
										 run->op_in, &run->val[o]);
	else
		run->have[o] = op->type->step(&op->params, run->opstate + op->state_off,
									  run->rings + op->first_ring, run->op_in,
									  &run->val[o]);
	/* a lazy operator's output is computed now only if another needs it */
	if (run->have[o] && op->lazy && op->feeds_ops)
		run->val[o] = op_value(run, i);
}

/* Run the mesh on one data row and update the buffer. */
static void
forward(SpRun *run)
{
	const SpConfig *cfg = run->cfg;

	for (int k = 0; k < cfg->n_ops; k++)
		step_op(run, cfg->order[k]);
	for (int j = 0; j < cfg->n_out; j++)
	{
		int			i = cfg->out_op[j];
		int			o = cfg->ops[i].first_out + cfg->out_port[j];

		if (run->have[o])
		{
			run->buffered[j] = true;
			run->buffer_lazy[j] = cfg->ops[i].lazy && !cfg->ops[i].feeds_ops;
			run->buffer[j] = run->val[o];
		}
	}
}

/*
 * forward() for a pipeline with vectors: an operator that steps with
 * step_vec gets each port's value as a number or a vector (SpValue), and
 * a vector output is kept in its slot's lane area and copied to the
 * buffer's.  The scalar pipelines never come here.
 */
static void
forward_vec(SpRun *run)
{
	const SpConfig *cfg = run->cfg;

	for (int k = 0; k < cfg->n_ops; k++)
	{
		int			i = cfg->order[k];
		const SpOperator *op = &cfg->ops[i];
		const SpSource *feed = &cfg->feeds[op->first_feed];
		bool		ready = true;
		int			o = op->first_out;

		if (op->type->step_some != NULL)
		{
			run_some(run, op);
			continue;
		}
		for (int j = 0; j < op->nin; j++)
		{
			SpValue    *in = &run->vin[j];
			int			area = -1;

			if (feed[j].op < 0)
			{
				in->x = run->row_in[feed[j].port];
				if (sp_port_is_vector(cfg->in_types[feed[j].port]))
					area = SP_AREA_IN;
			}
			else if (run->have[feed[j].slot])
			{
				in->x = run->val[feed[j].slot];
				if (cfg->slot_lanes[feed[j].slot] >= 0)
					area = sp_area_slot(cfg, feed[j].slot);
			}
			else
			{
				ready = false;
				break;
			}
			in->n = area >= 0 ? run->lane_n[area] : 0;
			in->v = area >= 0 ? sp_run_lanes(run, area) : NULL;
			/* an operator without step_vec reads numbers only (its ANY port: the lanes) */
			run->op_in[j] = area >= 0 ? (double) in->n : in->x;
		}
		if (!ready)
		{
			for (int p = 0; p < op->nout; p++)
				run->have[o + p] = false;
		}
		else if (op->type->step_vec)
		{
			SpValue		out = {0};
			int			area = cfg->slot_lanes[o] >= 0 ? sp_area_slot(cfg, o) : -1;

			if (area >= 0)
				out.v = sp_run_lanes(run, area);
			run->have[o] = op->type->step_vec(&op->params, run->opstate + op->state_off,
											  run->rings + op->first_ring, run->ts,
											  run->vin, &out);
			if (area >= 0)
			{
				Assert(out.n >= 0 && out.n <= SP_MAX_LANES);
				run->lane_n[area] = run->have[o] ? out.n : 0;
				run->val[o] = run->lane_n[area];
			}
			else
				run->val[o] = out.x;
		}
		else if (op->type->step_vec_multi)
		{
			SpValue    *out = run->vout;

			for (int p = 0; p < op->nout; p++)
			{
				int			area = cfg->slot_lanes[o + p];

				out[p].x = 0;
				out[p].n = 0;
				out[p].v = area >= 0 ? sp_run_lanes(run, sp_area_slot(cfg, o + p)) : NULL;
				run->have[o + p] = false;
			}
			(void) op->type->step_vec_multi(&op->params, run->opstate + op->state_off,
											run->rings + op->first_ring, run->ts,
											run->vin, out, &run->have[o]);
			for (int p = 0; p < op->nout; p++)
			{
				if (cfg->slot_lanes[o + p] >= 0)
				{
					int			area = sp_area_slot(cfg, o + p);

					Assert(out[p].n >= 0 && out[p].n <= SP_MAX_LANES);
					run->lane_n[area] = run->have[o + p] ? out[p].n : 0;
					run->val[o + p] = run->lane_n[area];
				}
				else
					run->val[o + p] = out[p].x;
			}
		}
		else if (unlikely(op->nout > 1))
			(void) op->type->step_multi(&op->params, run->opstate + op->state_off,
										run->rings + op->first_ring, run->ts, run->op_in,
										&run->val[o], &run->have[o]);
		else if (op->timed)
			run->have[o] = op->type->step_at(&op->params, run->opstate + op->state_off,
											 run->rings + op->first_ring, run->ts,
											 run->op_in, &run->val[o]);
		else
			run->have[o] = op->type->step(&op->params, run->opstate + op->state_off,
										  run->rings + op->first_ring, run->op_in,
										  &run->val[o]);
		if (run->have[o] && op->lazy && op->feeds_ops)
			run->val[o] = op_value(run, i);
	}
	for (int j = 0; j < cfg->n_out; j++)
	{
		int			i = cfg->out_op[j];
		int			o = cfg->ops[i].first_out + cfg->out_port[j];

		if (!run->have[o])
			continue;
		run->buffered[j] = true;
		run->buffer_lazy[j] = cfg->ops[i].lazy && !cfg->ops[i].feeds_ops;
		run->buffer[j] = run->val[o];
		if (cfg->slot_lanes[o] >= 0)
		{
			int			from = sp_area_slot(cfg, o),
						to = sp_area_buffer(cfg, j);

			run->lane_n[to] = run->lane_n[from];
			memcpy(sp_run_lanes(run, to), sp_run_lanes(run, from),
				   sizeof(double) * run->lane_n[from]);
		}
	}
}

/*
 * forward() for a pipeline of one operator with one data port and one
 * output: no feeds to gather, no order to follow.
 */
static inline void
run_single(SpRun *run, double x)
{
	const SpOperator *op = &run->cfg->ops[0];
	bool		have;

	if (unlikely(op->timed))
		have = op->type->step_at(&op->params, run->opstate, run->rings, run->ts,
								 &x, &run->val[0]);
	else
		have = op->type->step(&op->params, run->opstate, run->rings, &x, &run->val[0]);
	if (have)
	{
		run->buffered[0] = true;
		run->buffer_lazy[0] = run->single_lazy;
		run->buffer[0] = run->val[0];
	}
}

static void
clear_emitted(SpRun *run)
{
	if (run->n_emitted > 0)
	{
		memset(run->emitted, 0, sizeof(bool) * run->cfg->n_out);
		run->n_emitted = 0;
	}
}

bool
sp_run_row(SpRun *run, const double *values, SpKeyEvent key)
{
	const SpConfig *cfg = run->cfg;

	clear_emitted(run);

	/*
	 * Punctuation without a key carries nothing; a value without a key is
	 * unpaired and discarded.
	 */
	if (key == SP_KEY_NULL)
		return false;

	if (key == SP_KEY_NEW)
	{
		if (unlikely(cfg->program))
		{
			if (run->has_key)
				program_close(run);
		}
		else if (run->has_key)
			close_segment(run, values, true);
		run->has_key = true;
	}

	if (values != NULL && run->single)
		run_single(run, cfg->in_types[0] == SP_PORT_BOOLEAN ? (values[0] != 0.0) : values[0]);
	else if (values != NULL)
	{
		for (int i = 0; i < cfg->n_in; i++)
			run->row_in[i] = (cfg->in_types[i] == SP_PORT_BOOLEAN) ?
				(values[i] != 0.0) : values[i];
		memset(run->have, 0, sizeof(bool) * cfg->n_slots);
		if (unlikely(cfg->vectors))
		{
			/* the row's vector is in its area already; booleans are 1 or 0 */
			if (cfg->in_types[0] == SP_PORT_VECTOR_BOOLEAN)
			{
				double	   *v = sp_run_lanes(run, SP_AREA_IN);

				for (int i = 0; i < run->lane_n[SP_AREA_IN]; i++)
					v[i] = v[i] != 0.0;
			}
			forward_vec(run);
		}
		else
			forward(run);
	}
	return run->n_emitted > 0;
}

bool
sp_run_flush(SpRun *run)
{
	clear_emitted(run);
	if (unlikely(run->cfg->program))
	{
		if (run->has_key)
			program_close(run);
	}
	else
		close_segment(run, NULL, false);
	run->has_key = false;
	return run->n_emitted > 0;
}

double
sp_run_buffer_value(const SpRun *run, int i)
{
	Assert(run->buffered[i]);
	return run->buffer_lazy[i] ? op_value(run, run->cfg->out_op[i]) : run->buffer[i];
}

/* ---- a Pipeline inside a pipeline ---- */

/*
 * What a nested run keeps between rows, at the start of its fixed state:
 * NestedHeader, then per output port whether it holds a value (1 or 0) and
 * the value (float8 arrays, so that the state visitor walks them).
 */
typedef struct NestedHeader
{
	int64		has_key;		/* 0 or 1 */
	double		key;			/* the current nested segment's key */
	double		ports[FLEXIBLE_ARRAY_MEMBER];	/* buffered[n_out], buffer[n_out] */
} NestedHeader;

static double *
nested_buffered(void *state)
{
	return ((NestedHeader *) state)->ports;
}

static double *
nested_buffer(void *state, const SpConfig *sub)
{
	return ((NestedHeader *) state)->ports + sub->n_out;
}

static Size
nested_header_size(const SpConfig *sub)
{
	return MAXALIGN(offsetof(NestedHeader, ports) + 2 * sizeof(double) * sub->n_out);
}

/*
 * The nested run's per-row scratch (the parts of an SpRun's block that a
 * row overwrites), after the header: zero between rows, so the fixed state
 * is a function of what the header and the nested operators hold.
 */
static Size
nested_scratch_size(const SpConfig *sub)
{
	return sp_run_areas_size(sub, false);
}

static Size
nested_sub_offset(const SpConfig *sub)
{
	return nested_header_size(sub) + nested_scratch_size(sub);
}

static size_t
nested_state_size(const SpParams *p)
{
	return nested_sub_offset(p->sub) + p->sub->state_size;
}

/*
 * Its rings: its operators', then (with vectors) one per vector output
 * port, holding the vector it buffers; each counts SP_MAX_LANES values
 * toward the state cap.
 */
static int
nested_n_rings(const SpConfig *sub)
{
	int			n = sub->n_rings;

	for (int k = 0; sub->vectors && k < sub->n_out; k++)
		n += sp_port_is_vector(sub->out_types[k]);
	return n;
}

/* The ring of vector output port k, among the nested run's rings. */
static int
nested_vring(const SpConfig *sub, int k)
{
	int			r = sub->n_rings;

	for (int j = 0; j < k; j++)
		r += sp_port_is_vector(sub->out_types[j]);
	return r;
}

static int
nested_rings(const SpParams *p, int64 *limits)
{
	const SpConfig *sub = p->sub;
	int			n = sub->n_rings;

	memcpy(limits, sub->declared_limits, sizeof(int64) * sub->n_rings);
	for (int k = 0; sub->vectors && k < sub->n_out; k++)
		if (sp_port_is_vector(sub->out_types[k]))
			limits[n++] = SP_MAX_LANES;
	return n;
}

/* a segment bytecode computes the key: no control port */
static int32
nested_nin(const SpParams *p)
{
	return p->sub->n_in + (p->sub->segment_rpn ? 0 : 1);
}

static int32
nested_nctl(const SpParams *p)
{
	return p->sub->segment_rpn ? 0 : 1;
}

static int32
nested_nout(const SpParams *p)
{
	return p->sub->n_out;
}

static SpPortType
nested_in_type_at(const SpParams *p, int port)
{
	return port < p->sub->n_in ? p->sub->in_types[port] : SP_PORT_NUMBER;
}

static SpPortType
nested_out_type_at(const SpParams *p, int port)
{
	return p->sub->out_types[port];
}

static bool
nested_timed(const SpParams *p)
{
	return p->sub->timed;
}

/* An SpRun over the header, the scratch and the nested state. */
static void
nested_view(const SpConfig *sub, void *state, SpRing *rings, int64 ts, SpRun *view)
{
	const NestedHeader *h = state;
	const double *buffered = nested_buffered(state);
	const double *buffer = nested_buffer(state, sub);

	sp_run_view(view, sub, (char *) state + nested_header_size(sub), false);
	set_single(view, sub);
	view->opstate = (char *) state + nested_sub_offset(sub);
	view->rings = rings;
	view->ts = ts;
	view->has_key = h->has_key != 0;
	for (int k = 0; k < sub->n_out; k++)
	{
		view->buffered[k] = buffered[k] != 0;
		view->buffer[k] = buffer[k];
	}
	if (sub->vectors)
	{
		view->lanes = sub->nest_lanes;
		view->lane_n = sub->nest_lane_n;
		view->vin = sub->nest_vin;
		view->vout = sub->nest_vout;
	}
}

/* How the row's key relates to the current one; keeps a new key. */
static SpKeyEvent
nested_event(NestedHeader *h, double key)
{
	/* keys compare as float8 does: NaN equals NaN, -0 equals 0 */
	if (h->has_key && float8_eq(key, h->key))
		return SP_KEY_SAME;
	h->key = key;
	return SP_KEY_NEW;
}

/* After the row: the header keeps the buffer, the scratch is zeroed. */
static void
nested_store(const SpConfig *sub, void *state, SpRun *view)
{
	double	   *buffered = nested_buffered(state);
	double	   *buffer = nested_buffer(state, sub);

	((NestedHeader *) state)->has_key = 1;
	for (int k = 0; k < sub->n_out; k++)
	{
		/* a lazy output is computed now: the header keeps values, not laziness */
		if (view->buffered[k] && view->buffer_lazy[k])
			view->buffer[k] = sp_run_buffer_value(view, k);
		buffered[k] = view->buffered[k] ? 1 : 0;
		buffer[k] = view->buffered[k] ? view->buffer[k] : 0.0;
	}
	memset((char *) state + nested_header_size(sub), 0, nested_scratch_size(sub));
}

static bool
nested_step_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
				  const double *in, double *out, bool *have)
{
	const SpConfig *sub = p->sub;
	SpRun		view;
	bool		emitted;

	nested_view(sub, state, rings, ts, &view);
	emitted = sp_run_row(&view, in, nested_event(state, in[sub->n_in]));
	for (int k = 0; k < sub->n_out; k++)
	{
		if (view.emitted[k])
		{
			out[k] = view.emit[k];
			have[k] = true;
		}
	}
	nested_store(sub, state, &view);
	return emitted;
}

/*
 * The key of a segment-bytecode pipeline's row: its bytecode (stateless,
 * checked when the spec was read) over the lanes of its first data port's
 * vector, which must have every lane it reads.
 */
static double
nested_segment_key(const SpConfig *sub, const SpValue *vec)
{
	double		key;

	if (unlikely(vec->n < sub->segment_rpn->n_inputs))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("vector lane out of range"),
				 errdetail("The segment bytecode of Pipeline \"%s\" reads lane %d (counted from 0) of a vector of %d lanes.",
						   sub->id, sub->segment_rpn->n_inputs - 1, vec->n)));
	(void) sp_rpn_run(sub->segment_rpn, NULL, NULL, vec->v, vec->n, &key);
	return key;
}

/*
 * A nested pipeline with vectors.  Between rows a buffered vector is kept
 * in its ring; the lane areas are the configuration's.  A row's buffered
 * vectors enter their areas only when the row closes a segment (the one
 * time the buffer is read); an area marked -1 was not written by the row,
 * so its ring still holds what it buffers.
 */
static bool
nested_step_vec_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
					  const SpValue *in, SpValue *out, bool *have)
{
	const SpConfig *sub = p->sub;
	NestedHeader *h = state;
	SpRun		view;
	SpKeyEvent	event;
	bool		closes;
	bool		emitted;

	nested_view(sub, state, rings, ts, &view);
	for (int j = 0; j < sub->n_in; j++)
	{
		if (sp_port_is_vector(sub->in_types[j]))
		{
			/* a pipeline with a vector data port has that one (sp_spec.c) */
			memcpy(sp_run_lanes(&view, SP_AREA_IN), in[j].v, sizeof(double) * in[j].n);
			view.lane_n[SP_AREA_IN] = in[j].n;
			view.row_in[j] = in[j].n;
		}
		else
			view.row_in[j] = in[j].x;
	}
	closes = h->has_key != 0;
	event = nested_event(h, sub->segment_rpn ? nested_segment_key(sub, &in[0]) :
						 in[sub->n_in].x);
	closes &= event == SP_KEY_NEW;
	for (int k = 0; k < sub->n_out; k++)
	{
		const SpRing *r = &rings[nested_vring(sub, k)];
		int			b = sp_area_buffer(sub, k);
		double	   *lanes = sp_run_lanes(&view, b);

		if (!sp_port_is_vector(sub->out_types[k]))
			continue;
		view.lane_n[b] = closes ? (int32) r->count : -1;
		for (int i = 0; closes && i < r->count; i++)
			lanes[i] = sp_ring_get(r, i);
	}
	emitted = sp_run_row(&view, view.row_in, event);
	for (int k = 0; k < sub->n_out; k++)
	{
		bool		vec = sp_port_is_vector(sub->out_types[k]);

		if (view.emitted[k])
		{
			have[k] = true;
			if (vec)
			{
				int			e = sp_area_emit(sub, k);

				out[k].n = view.lane_n[e];
				memcpy(out[k].v, sp_run_lanes(&view, e), sizeof(double) * view.lane_n[e]);
			}
			else
				out[k].x = view.emit[k];
		}
		if (vec && view.lane_n[sp_area_buffer(sub, k)] >= 0)
		{
			int			b = sp_area_buffer(sub, k);
			const double *lanes = sp_run_lanes(&view, b);
			SpRing	   *r = &rings[nested_vring(sub, k)];

			sp_ring_clear(r);
			for (int i = 0; view.buffered[k] && i < view.lane_n[b]; i++)
				sp_ring_push(r, lanes[i]);
		}
	}
	nested_store(sub, state, &view);
	return emitted;
}

/* with one output port, the engine steps it as any operator */
static bool
nested_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			   const double *in, double *out)
{
	bool		have = false;

	return nested_step_multi(p, state, rings, ts, in, out, &have) && have;
}

static bool
nested_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return nested_step_at(p, state, rings, 0, in, out);
}

static void
nested_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	const SpConfig *sub = p->sub;
	NestedHeader *h = state;
	char	   *substate = (char *) state + nested_sub_offset(sub);

	v->i64(v, "has_key", &h->has_key);
	v->f64(v, "key", &h->key);
	v->f64s(v, "buffered", nested_buffered(state), sub->n_out);
	v->f64s(v, "buffer", nested_buffer(state, sub), sub->n_out);
	/* with vectors: a vector output port's buffer holds its lanes' count */
	for (int k = 0; sub->vectors && k < sub->n_out; k++)
		if (sp_port_is_vector(sub->out_types[k]))
			v->ring(v, psprintf("buffer_o%d", k + 1), &rings[nested_vring(sub, k)]);
	for (int i = 0; i < sub->n_ops; i++)
	{
		const SpOperator *op = &sub->ops[i];
		SpPrefixVisitor pv;

		/* named "<operator id>/<field>" in the nested Pipeline's state, after its own */
		if (op->type->visit)
			op->type->visit(&op->params, substate + op->state_off, rings + op->first_ring,
							sp_prefix_visitor(&pv, v, op->id));
	}
}

static bool
all_zero(const char *p, Size n)
{
	for (Size i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

static const char *
nested_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const SpConfig *sub = p->sub;
	const NestedHeader *h = state;
	const char *substate = (const char *) state + nested_sub_offset(sub);

	const double *buffered = nested_buffered((void *) state);
	const double *buffer = nested_buffer((void *) state, sub);
	bool		any = false;

	if (h->has_key != 0 && h->has_key != 1)
		return "has_key must be 0 or 1";
	for (int k = 0; k < sub->n_out; k++)
	{
		if (buffered[k] != 0 && buffered[k] != 1)
			return "buffered must hold 0 or 1 per output port";
		if (buffered[k] == 0 && (buffer[k] != 0 || signbit(buffer[k])))
			return "buffer must be 0 where nothing is buffered";
		any |= buffered[k] != 0;
		if (sub->vectors && sp_port_is_vector(sub->out_types[k]))
		{
			const SpRing *r = &rings[nested_vring(sub, k)];

			if (buffered[k] == 0 && r->count != 0)
				return psprintf("\"buffer_o%d\" must be empty where nothing is buffered", k + 1);
			if (buffer[k] != (double) r->count)
				return psprintf("buffer must hold the number of lanes of \"buffer_o%d\", %d, not %s",
								k + 1, (int) r->count, float8out_internal(buffer[k]));
			for (int i = 0; sub->out_types[k] == SP_PORT_VECTOR_BOOLEAN && i < r->count; i++)
				if (sp_ring_get(r, i) != 0.0 && sp_ring_get(r, i) != 1.0)
					return psprintf("\"buffer_o%d\" is a vector_boolean: its lanes must be 1 or 0", k + 1);
		}
	}
	if (!h->has_key)
	{
		/* before its first row a nested pipeline holds nothing */
		if (any || h->key != 0 || signbit(h->key) ||
			!all_zero(substate, sub->state_size))
			return "a nested pipeline without a key must hold nothing";
		for (int r = 0; r < nested_n_rings(sub); r++)
			if (rings[r].count != 0)
				return "a nested pipeline without a key must hold nothing";
	}
	for (int i = 0; i < sub->n_ops; i++)
	{
		const SpOperator *op = &sub->ops[i];
		const char *msg;

		if (op->type->check_state &&
			(msg = op->type->check_state(&op->params, substate + op->state_off,
										 rings + op->first_ring)) != NULL)
			return psprintf("operator \"%s\": %s", op->id, msg);
	}
	return NULL;
}

static void
nested_restore(const SpParams *p, void *state, const SpRing *rings)
{
	sp_config_restore(p->sub, (char *) state + nested_sub_offset(p->sub), rings);
}

/* A nested Pipeline: two types, one for a scalar path and one for vectors */
#define NESTED_PIPELINE_COMMON \
	.name = "Pipeline", \
	.params = sp_no_params, \
	.nin_from = nested_nin, \
	.nctl_from = nested_nctl, \
	.in_type_at = nested_in_type_at, \
	.nout_from = nested_nout, \
	.out_type_at = nested_out_type_at, \
	.state_size = nested_state_size, \
	.rings = nested_rings, \
	.timed = nested_timed, \
	.visit = nested_visit, \
	.check_state = nested_check, \
	.restore = nested_restore

const SpOpType sp_op_pipeline = {
	NESTED_PIPELINE_COMMON,
	.step_multi = nested_step_multi,
	.step = nested_step,
	.step_at = nested_step_at,
};

const SpOpType sp_op_pipeline_vec = {
	NESTED_PIPELINE_COMMON,
	.step_vec_multi = nested_step_vec_multi,
};

/* ---- a program's Pipeline, among operators outside it ---- */

/*
 * Its key is the one its header holds, so that a row never closes its
 * segment (program_close does); the first row of a segment opens it.
 */
static bool
program_pipeline_step_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
							const double *in, double *out, bool *have)
{
	const SpConfig *sub = p->sub;
	const NestedHeader *h = state;
	double		row[SP_MAX_PORTS + 1];

	Assert(sub->n_in <= SP_MAX_PORTS);
	memcpy(row, in, sizeof(double) * sub->n_in);
	row[sub->n_in] = h->has_key ? h->key : 0.0;
	return nested_step_multi(p, state, rings, ts, row, out, have);
}

static bool
program_pipeline_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
						 const double *in, double *out)
{
	bool		have = false;

	return program_pipeline_step_multi(p, state, rings, ts, in, out, &have) && have;
}

static bool
program_pipeline_step(const SpParams *p, void *state, SpRing *rings, const double *in,
					  double *out)
{
	return program_pipeline_step_at(p, state, rings, 0, in, out);
}

const SpOpType sp_op_program_pipeline = {
	NESTED_PIPELINE_COMMON,
	.step_multi = program_pipeline_step_multi,
	.step = program_pipeline_step,
	.step_at = program_pipeline_step_at,
};

/* A program's Pipeline closes its segment: what it emits is in its slots. */
static void
program_pipeline_close(SpRun *run, const SpOperator *pipe)
{
	const SpConfig *sub = pipe->params.sub;
	char	   *state = run->opstate + pipe->state_off;
	SpRun		view;

	nested_view(sub, state, run->rings + pipe->first_ring, run->ts, &view);
	(void) sp_run_flush(&view);
	for (int k = 0; k < sub->n_out; k++)
	{
		run->have[pipe->first_out + k] = view.emitted[k];
		run->val[pipe->first_out + k] = view.emit[k];
	}
	nested_store(sub, state, &view);
	((NestedHeader *) state)->has_key = 0;
}

/*
 * The key changed (or the partition ended): the Pipelines close their
 * segments as a boundary does, their emissions go through the operators
 * after them, and what reaches the program's outputs is emitted.  The
 * operators before them do not run: the row that brought the new key runs
 * after this, into the Pipelines' next segments.
 */
static void
program_close(SpRun *run)
{
	const SpConfig *cfg = run->cfg;

	memset(run->have, 0, sizeof(bool) * cfg->n_slots);
	for (int i = 0; i < cfg->n_ops; i++)
		if (cfg->ops[i].type == &sp_op_program_pipeline)
			program_pipeline_close(run, &cfg->ops[i]);
	for (int k = 0; k < cfg->n_post; k++)
		step_op(run, cfg->post_order[k]);
	for (int j = 0; j < cfg->n_out; j++)
	{
		int			i = cfg->out_op[j];
		int			o = cfg->ops[i].first_out + cfg->out_port[j];

		if (!run->have[o])
			continue;
		run->emitted[j] = true;
		run->emit[j] = cfg->ops[i].lazy && !cfg->ops[i].feeds_ops ? op_value(run, i) : run->val[o];
		run->n_emitted++;
	}
}

const SpOpType *
sp_config_nested(SpConfig *sub)
{
	int			areas;

	if (!sub->vectors)
		return &sp_op_pipeline;
	areas = 1 + sub->n_vslots + 2 * sub->n_out;
	sub->nest_lanes = palloc0(sizeof(double) * SP_MAX_LANES * areas);
	sub->nest_lane_n = palloc0(sizeof(int32) * areas);
	sub->nest_vin = palloc0(sizeof(SpValue) * Max(sub->max_nin, 1));
	sub->nest_vout = palloc0(sizeof(SpValue) * Max(sub->n_slots, 1));
	return &sp_op_pipeline_vec;
}
