/*
 * sp_engine.h
 *	  A validated pipeline configuration (the mesh) and its running state,
 *	  and the segment rule that drives them.
 *
 * The engine knows nothing of fmgr, the executor or SQL types: the glue in
 * segment_agg.c feeds it one row at a time.
 */
#ifndef SP_ENGINE_H
#define SP_ENGINE_H

#include "sp_operator.h"

/* Where an operator data port gets its value. */
typedef struct SpSource
{
	int			op;				/* producing operator, or -1 for the pipeline */
	int			port;			/* pipeline data port (0-based) when op < 0 */
	int			slot;			/* when op >= 0: its output's slot in the
								 * run's val[] and have[] */
} SpSource;

typedef struct SpConnection
{
	int			from;			/* operator index */
	int			from_port;		/* 0-based output port of 'from' */
	int			to;
	int			to_port;		/* 0-based */
} SpConnection;

typedef struct SpOperator
{
	const SpOpType *type;
	char	   *id;
	SpParams	params;
	int			nin;
	int			first_feed;		/* its data ports are feeds[first_feed ..] */
	Size		state_off;		/* in the run's operator-state block */
	Size		state_size;
	int			first_ring;		/* its rings are the run's rings[first_ring ..] */
	int			n_rings;
	bool		feeds_ops;		/* another operator consumes its output */
	int			nout;			/* output ports */
	int			first_out;		/* their slots: first_out .. + nout */
	bool		timed;			/* steps with the row's timestamp (step_at) */
	bool		lazy;			/* its output is computed by 'value' */
	bool		carries;		/* carries its signal across boundaries */
} SpOperator;

typedef struct SpConfig
{
	char	   *id;
	int			n_in;
	int			n_out;
	SpPortType *in_types;
	SpPortType *out_types;
	bool		late_drop;
	int			n_ops;
	SpOperator *ops;			/* in spec order */
	int		   *order;			/* execution order (topological) */
	int			entry;
	SpSource   *feeds;
	int			n_conns;
	SpConnection *conns;		/* as given, for printing */
	int		   *out_op;			/* per pipeline output port: its operator */
	int		   *out_port;		/* ... and that operator's output port */
	int			n_slots;		/* operators' output ports, all told */
	int		   *map_order;		/* pipeline output ports in mapping order */
	int			max_nin;
	Size		state_size;		/* all operator states, MAXALIGNed each */
	int			n_rings;
	int64	   *ring_limits;	/* per ring: the most values it may hold */
	int64	   *declared_limits;	/* the same before shares are given out
									 * (SP_RING_SHARE kept), for a Pipeline
									 * nesting this one */
	int64		max_state;		/* bytes of state with every ring full */
	bool		timed;			/* some operator needs the rows' timestamps */
	bool		carries;		/* some operator carries across boundaries */

	/*
	 * Vectors (sp_config_vectors): whether any port, the pipeline's or an
	 * operator's, carries one; and then per output slot the index of its
	 * lane area among the slots that are vectors (-1 for the others).
	 */
	bool		vectors;
	int			n_vslots;
	int		   *slot_lanes;

	/*
	 * A nested Pipeline's segment key computed from its first data port's
	 * vector (docs/reference.md, "Segment bytecode"): the bytecode as given,
	 * its constants, and the compiled program; NULL when its key comes on
	 * its control port "c1".
	 */
	const struct SpRpn *segment_rpn;
	const double *segment_code;
	int			n_segment_code;
	const double *segment_constants;
	int			n_segment_constants;

	/*
	 * A nested Pipeline with vectors (sp_config_nested): the lane areas of
	 * its rows.  A nested run keeps only its buffered vectors between rows
	 * (in rings), and a row runs to its end before another starts, so the
	 * areas a row needs are its configuration's.
	 */
	double	   *nest_lanes;
	int32	   *nest_lane_n;
	SpValue    *nest_vin;
	SpValue    *nest_vout;

	/*
	 * A program with operators outside its Pipelines (docs/reference.md,
	 * "Programs"): its Pipelines are the operators of type
	 * sp_op_program_pipeline, whose segments are the rows of equal keys; the
	 * operators before them and after them run on every row and never
	 * reset, and the outputs, the Pipelines' or those of operators after
	 * them, are emitted on the row that produces them.  post_order: the
	 * operators after them, in execution order.  The rest is for the
	 * canonical text: the Input's id, which of its ports is the key (the
	 * others are the data ports, in order), and the Output's id.
	 */
	bool		program;
	int			n_post;
	int		   *post_order;
	const char *program_input;
	int			program_key_port;
	const char *program_output;
} SpConfig;

/*
 * How a row's key relates to the current one.  The caller compares keys
 * (with the equality of the key's type) and tells the engine.
 */
typedef enum SpKeyEvent
{
	SP_KEY_NULL,				/* the key is NULL */
	SP_KEY_SAME,				/* equal to the current key */
	SP_KEY_NEW					/* different, or there is no current key */
} SpKeyEvent;

/*
 * Running state: one block from sp_run_create(), plus ring storage that
 * grows in the same memory context.
 */
typedef struct SpRun
{
	const SpConfig *cfg;
	bool		has_key;
	bool	   *buffered;		/* per output port */
	bool	   *buffer_lazy;	/* buffered, value still inside its operator */
	double	   *buffer;
	char	   *opstate;		/* cfg->state_size bytes */
	SpRing	   *rings;			/* cfg->n_rings */
	bool		single;			/* one operator, one data port, one output */
	bool		single_lazy;	/* ... whose output is computed when needed */
	int64		ts;				/* the row's timestamp (TimestampTz), for
								 * timed operators: set by the caller before
								 * sp_run_row */
	/* results of the last row: what it emitted */
	int			n_emitted;
	bool	   *emitted;
	double	   *emit;
	/* per-row scratch */
	double	   *row_in;
	double	   *val;			/* per output slot: its value this row */
	bool	   *have;			/* per output slot: produced this row */
	double	   *op_in;			/* max_nin gathered inputs */

	/*
	 * With cfg->vectors: lane areas of SP_MAX_LANES each (sp_area_*) and
	 * their lengths, and the inputs gathered for a step_vec; else NULL.
	 */
	double	   *lanes;
	int32	   *lane_n;
	SpValue    *vin;
	SpValue    *vout;			/* outputs of a step_vec_multi */
} SpRun;

/*
 * The lane areas of a run with vectors: the row's vector (a pipeline with a
 * vector port has that one data port), each vector slot's value, and per
 * output port the value buffered and the value emitted.  A vector port's
 * run->buffer and run->emit entries hold its number of lanes.
 */
#define SP_AREA_IN	0

static inline int
sp_area_slot(const SpConfig *cfg, int slot)
{
	return 1 + cfg->slot_lanes[slot];
}

static inline int
sp_area_buffer(const SpConfig *cfg, int port)
{
	return 1 + cfg->n_vslots + 2 * port;
}

static inline int
sp_area_emit(const SpConfig *cfg, int port)
{
	return 2 + cfg->n_vslots + 2 * port;
}

static inline double *
sp_run_lanes(const SpRun *run, int area)
{
	return run->lanes + (Size) area * SP_MAX_LANES;
}

/*
 * Lay out the operators' states and rings, and check the pipeline's total
 * state against SP_MAX_STATE_BYTES (54000 when over).  The spec reader
 * calls it once the operators are read.
 */
extern void sp_config_layout(SpConfig *cfg);

/*
 * Once the ports and connections are known: set cfg->vectors and the slots'
 * lane areas.  (sp_config_layout counts every vector an operator produces
 * toward the state cap, as it may be an output's buffer.)
 */
extern void sp_config_vectors(SpConfig *cfg);

/* A run in its initial state; it and its rings live in cxt. */
extern SpRun *sp_run_create(const SpConfig *cfg, MemoryContext cxt);

/*
 * A run in cxt in the same state as src: key, buffer, operators' fixed
 * state and ring contents (not the last row's emissions).
 */
extern SpRun *sp_run_copy(const SpRun *src, MemoryContext cxt);

/*
 * A run over state kept elsewhere (an operator that runs a sub-configuration:
 * a nested Pipeline, KeyedPipeline, TriggerSet).  sp_run_view points view
 * at the per-row areas carved from areas, which holds
 * sp_run_areas_size(cfg, lanes) bytes (lanes: the vector areas too), with
 * nothing buffered and every row on the general path (have[] and val[]
 * filled); the caller sets opstate, rings and what else it keeps.
 * sp_config_restore runs the operators' restore over such state once read.
 */
extern Size sp_run_areas_size(const SpConfig *cfg, bool lanes);
extern void sp_run_view(SpRun *view, const SpConfig *cfg, char *areas, bool lanes);
extern void sp_config_restore(const SpConfig *cfg, char *state, const SpRing *rings);

/*
 * Process one row.  values holds n_in values, or is NULL for a punctuation
 * row; it may be run->row_in itself.  Returns true when the row emitted;
 * run->emitted / run->emit then say what, per output port.
 */
extern bool sp_run_row(SpRun *run, const double *values, SpKeyEvent key);

/*
 * Close the open segment as a boundary would, without a new key: emit the
 * buffer, reset the operators and forget the key.  Returns true when it
 * emitted.
 */
extern bool sp_run_flush(SpRun *run);

/*
 * The value buffered for output port i (run->buffered[i] must be set),
 * computed from its operator's state when it is lazy.  For the codecs,
 * which store values, not laziness; the run is not changed.
 */
extern double sp_run_buffer_value(const SpRun *run, int i);

/*
 * A Pipeline inside a pipeline (sp_engine.c): an operator whose state is a
 * whole run of params.sub, held in its fixed state and rings, so that the
 * outer run's reset, copy and state cap take it in as any other operator's.
 * Its data ports are the nested pipeline's, then its control port "c1",
 * whose value is the nested segments' key; its one output is what the
 * nested pipeline emits at its boundaries.
 */
extern const SpOpType sp_op_pipeline;

/*
 * The same for a nested pipeline with vectors (ports, operators or a
 * segment bytecode): it steps with step_vec_multi, so that pipelines
 * without vectors never run its code.  Its buffered vectors are rings of
 * its own, after its operators' ("buffer_o<k>" in the state), and its key
 * comes from its segment bytecode when it has one (no control port).
 */
extern const SpOpType sp_op_pipeline_vec;

/*
 * The Pipeline of a program with operators outside it (scalar only): the
 * same state as sp_op_pipeline, but its segments close when the program's
 * key changes (sp_run_row), not on its control port, whose value it
 * ignores.
 */
extern const SpOpType sp_op_program_pipeline;

/*
 * For the spec reader, once a nested pipeline is read: the operator type
 * it runs as, and (for sp_op_pipeline_vec) its lane areas, allocated in
 * CurrentMemoryContext.
 */
extern const SpOpType *sp_config_nested(SpConfig *sub);

#endif							/* SP_ENGINE_H */
