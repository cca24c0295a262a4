/*
 * sp_operator.h
 *	  The operator interface: the spine of segpipe.
 *
 * An operator type is one row of a table (see sp_registry.c): its name, a
 * declarative list of parameters, its port shape, and three functions.  The
 * engine never switches on an operator's name.
 *
 * An operator's state has two parts.  The fixed part (state_size bytes) is
 * all-zero bytes initially, and a reset is a memset done by the engine, so
 * nothing can be left behind from the previous segment: an operator that
 * needs "no value yet" keeps a count.  Windowed operators also keep rings
 * (sp_ring.h) that the engine owns and empties at a reset; they grow with the
 * values actually held, so memory and reset cost follow the rows a segment
 * really had, not the window it could have.
 *
 * Operators see no PostgreSQL executor or fmgr structures and allocate
 * nothing per row beyond their rings' growth.
 */
#ifndef SP_OPERATOR_H
#define SP_OPERATOR_H

#include "sp_ring.h"

typedef enum SpPortType
{
	SP_PORT_NUMBER = 0,
	SP_PORT_BOOLEAN = 1,
	SP_PORT_VECTOR_NUMBER = 2,	/* a vector of numbers: lanes, at most SP_MAX_LANES */
	SP_PORT_VECTOR_BOOLEAN = 3, /* a vector of booleans, lanes 1 or 0 */
	SP_PORT_ANY = 4				/* an input port that takes any of the above */
} SpPortType;

static inline bool
sp_port_is_vector(SpPortType t)
{
	return t == SP_PORT_VECTOR_NUMBER || t == SP_PORT_VECTOR_BOOLEAN;
}

/*
 * The most lanes a vector has: a row's array, what an operator produces.
 * Vector values live in buffers of this many lanes (sp_engine.c), and a
 * state holds at most this many per stored vector.
 */
#define SP_MAX_LANES		1024

/*
 * One port's value for an operator that works on vectors (step_vec): a
 * number or boolean in x; a vector as n lanes at v.  On output, v points
 * at room for SP_MAX_LANES lanes and the operator sets n.
 */
typedef struct SpValue
{
	double		x;
	int32		n;
	double	   *v;
} SpValue;

/* Bounds on anything sized by a spec (docs/design.md, "Limits"). */
#define SP_MAX_WINDOW		1000000
#define SP_MAX_PORTS		64
#define SP_MAX_COEFFS		4096
#define SP_MAX_OPERATORS	256

/*
 * The most state one pipeline may hold, rings full: checked when a spec is
 * read, so that no configuration can ask for more memory than this.
 */
#define SP_MAX_STATE_BYTES	(INT64CONST(64) * 1024 * 1024)

/* A ring limit that asks for a share of the state cap (see SpOpType.rings). */
#define SP_RING_SHARE		INT64CONST(-1)

/* Rings per operator, at most. */
#define SP_MAX_RINGS		4

/*
 * Row counters in a decoded state above this cannot be real (2^62 rows); a
 * run that would count past it stops with an error (sp_count_next), so
 * that it never writes a state its reader refuses.
 */
#define SP_MAX_COUNT		(INT64CONST(1) << 62)

/*
 * Positions in a window (WindowMinMax, PeakDetector) are kept as float8,
 * exact up to 2^53: those operators count at most this many values between
 * resets, in a run and in a decoded state alike.
 */
#define SP_MAX_POSITION		(INT64CONST(1) << 53)

/*
 * n + 1 for a counter that may not pass max: past it, the run stops with
 * 54000 rather than count what its state could not hold.  'what' names the
 * counter's owner in the detail ("WindowMinMax", "A pipeline").
 */
static inline int64
sp_count_next(int64 n, int64 max, const char *what)
{
	if (unlikely(n >= max))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row count out of range"),
				 errdetail("%s counts at most " INT64_FORMAT " rows.", what, max)));
	return n + 1;
}

/*
 * Configured parameters of one operator.  One struct serves every type so
 * that parameters can be read, checked and printed by a single table-driven
 * routine; each type uses the fields its parameter list names.
 */
typedef struct SpParams
{
	int32		window_size;
	int32		min_rows;		/* duration windows: rows before output */
	int64		window_us;		/* a duration in microseconds, 0 if none */
	int64		unit_us;		/* Integral, DurationTrue: the unit of time */
	int32		num_ports;
	int32		choice;			/* index into a SP_PARAM_CHOICE's words */
	int32		flag;			/* a SP_PARAM_BOOL: 1 true, 0 false */
	int32		carry;			/* the time operators' "carry" (ops_time.c) */
	int32		choice2;		/* a second SP_PARAM_CHOICE (Transitions' "count") */
	double		value;
	double		value2;			/* a second scalar (replaceBy, epsilon) */
	int32		nvec[5];
	double	   *vec[5];			/* coefficient arrays */
	const struct SpConfig *sub; /* a nested Pipeline's configuration */
	const struct SpRpn *rpn;	/* FusedExpression's compiled bytecode */
	const struct SpRpn *rpn_seg;	/* BurstAggregate's segment predicate */
	const struct SpConfig *proto;	/* KeyedPipeline's per-key sub-graph */
} SpParams;

typedef enum SpParamKind
{
	SP_PARAM_INT,				/* integral number in [min, max] */
	SP_PARAM_FLOAT,				/* finite number */
	SP_PARAM_VECTOR,			/* array of finite numbers, length in [min, max] */
	SP_PARAM_CHOICE,			/* one of the words in 'choices' */
	SP_PARAM_INTERVAL,			/* a duration (sp_time.h), as int64 microseconds */
	SP_PARAM_BOOL,				/* JSON true or false, as int32 1 or 0 */
	SP_PARAM_POINTS,			/* array of [x, y] pairs of finite numbers, count
								 * in [min, max]: vec[slot] holds x0, y0, x1, y1,
								 * ..., nvec[slot] the count of pairs */
	SP_PARAM_PORT_TYPES			/* array of port type names, length in [min,
								 * max], as SpPortType codes in a vec slot */
} SpParamKind;

typedef struct SpParamDef
{
	const char *name;			/* JSON member name */
	SpParamKind kind;
	size_t		offset;			/* where in SpParams */
	bool		required;
	double		dflt;			/* default when not required */
	double		min;			/* INT: value bounds; VECTOR: length bounds */
	double		max;
	const char *const *choices; /* CHOICE: NULL-terminated word list */

	/*
	 * Optional: whether the canonical text shows the parameter (NULL:
	 * always).  For parameters of one mode of an operator (a window of rows
	 * or of time), so that a configuration of the other mode reads as it
	 * always has.
	 */
	bool		(*shown) (const struct SpParams *p);
} SpParamDef;

#define SP_PARAM_END {NULL}

/* Which of SpParams.vec (and nvec) a SP_PARAM_VECTOR parameter fills. */
static inline int
sp_param_vec_slot(const SpParamDef *d)
{
	return (int) ((d->offset - offsetof(SpParams, vec)) / sizeof(double *));
}

/* Parameters several operators share. */
#define SP_PARAM_WINDOW_SIZE(lo) \
	{"window_size", SP_PARAM_INT, offsetof(SpParams, window_size), true, 0, \
	 (lo), SP_MAX_WINDOW, NULL}
#define SP_PARAM_VALUE \
	{"value", SP_PARAM_FLOAT, offsetof(SpParams, value), true}
#define SP_PARAM_NUM_PORTS \
	{"numPorts", SP_PARAM_INT, offsetof(SpParams, num_ports), false, 2, \
	 2, SP_MAX_PORTS, NULL}

/*
 * State visitor: one function per operator walks its state, naming each
 * field.  Encoding reads through the pointers, decoding writes through them,
 * so the text and binary codecs share one description and cannot disagree.
 * The length of every array walked depends on the parameters only, never
 * on a field of the state, so decoding hostile bytes cannot write out of
 * bounds; check_state then judges what was decoded.  (The one count that
 * is a field, a KeyedPipeline's instances, is judged against the limit its
 * parameters set before any instance is walked: ops_keyed.c.)
 */
typedef struct SpStateVisitor SpStateVisitor;

struct SpStateVisitor
{
	void		(*f64) (SpStateVisitor *v, const char *name, double *field);
	void		(*i64) (SpStateVisitor *v, const char *name, int64 *field);
	void		(*f64s) (SpStateVisitor *v, const char *name, double *field, int n);

	/*
	 * A ring: encoding writes the values held, oldest first; decoding must
	 * refuse more than r->limit values (sp_ring_load does).
	 */
	void		(*ring) (SpStateVisitor *v, const char *name, SpRing *r);
	void	   *private;
};

/*
 * A visitor that names every field "<prefix>/<name>" and passes it to
 * another: the operators inside a nested Pipeline, the cells of a
 * FusedExpression, are described so within their owner's state.
 */
typedef struct SpPrefixVisitor
{
	SpStateVisitor v;
	SpStateVisitor *inner;
	const char *prefix;
} SpPrefixVisitor;

extern SpStateVisitor *sp_prefix_visitor(SpPrefixVisitor *pv, SpStateVisitor *inner,
										 const char *prefix);

typedef struct SpOpType
{
	const char *name;			/* the spec's "type" */
	const SpParamDef *params;
	/* data ports: fixed count, or read from a parameter when nin_from set */
	int			nin;
	int32		(*nin_from) (const SpParams *p);
	SpPortType	in_type;
	SpPortType	out_type;		/* the type of its output (of each, see nout_from) */

	/*
	 * Optional: control ports, the last nctl_from() of the nin ports, named
	 * "c1", "c2", ... in connections (the others "i1", ...); and the type of
	 * each port when they differ (NULL: in_type for every port).
	 */
	int32		(*nctl_from) (const SpParams *p);
	SpPortType	(*in_type_at) (const SpParams *p, int port);

	/*
	 * Optional: several output ports ("o1", "o2", ...; NULL: one), and the
	 * type of each when they differ (NULL: out_type).  An operator with more
	 * than one steps with step_multi (given the row's timestamp, which only
	 * a timed operator reads), which sets out[k] and have[k] for the ports
	 * it produces on and returns whether it produced on any; it is never
	 * lazy.
	 */
	int32		(*nout_from) (const SpParams *p);
	SpPortType	(*out_type_at) (const SpParams *p, int port);
	bool		(*step_multi) (const SpParams *p, void *state, SpRing *rings, int64 ts,
							   const double *in, double *out, bool *have);

	/*
	 * Cross-parameter checks, and derived defaults filled in; returns NULL
	 * or a message naming the parameter.
	 */
	const char *(*check_params) (SpParams *p);
	size_t		(*state_size) (const SpParams *p);

	/*
	 * Rings the operator keeps: returns how many (at most SP_MAX_RINGS) and
	 * sets each one's limit, the most values it may hold.  NULL: none.  A
	 * limit of SP_RING_SHARE (a duration window, whose rows are not counted
	 * in advance) asks for an equal share of what SP_MAX_STATE_BYTES leaves
	 * once every other ring is full (sp_config_layout).
	 */
	int			(*rings) (const SpParams *p, int64 *limits);

	/*
	 * Optional: how many rings 'rings' sets, for an operator that may have
	 * more than SP_MAX_RINGS (a KeyedPipeline's, one set per key).
	 */
	int			(*max_rings) (const SpParams *p);

	/*
	 * Consume one value per data port; return true when the operator
	 * produces output for this row, and set *out unless 'value' is set.
	 */
	bool		(*step) (const SpParams *p, void *state, SpRing *rings,
						 const double *in, double *out);

	/*
	 * Optional: whether the operator, so configured, needs the row's
	 * timestamp (NULL: never).  When it does, the engine calls step_at
	 * instead of step, with the row's timestamp in microseconds
	 * (TimestampTz); callers that have no timestamps (segment_agg without
	 * its ts argument) refuse such a pipeline.  Rows reach an operator in
	 * the order of their timestamps only where the caller says so: a timed
	 * operator refuses a timestamp earlier than the last it saw
	 * (sp_time_order).
	 */
	bool		(*timed) (const SpParams *p);
	bool		(*step_at) (const SpParams *p, void *state, SpRing *rings,
							int64 ts, const double *in, double *out);

	/*
	 * Optional: the output, computed from the state.  For operators that,
	 * once they produce output, produce it on every later step until reset,
	 * and whose output is a function of the state alone.  The engine then
	 * computes the output only when something needs it: on every row when
	 * another operator consumes it, else only when the segment's result is
	 * emitted.
	 */
	double		(*value) (const SpParams *p, const void *state, const SpRing *rings);

	/*
	 * Optional: whether 'value' may stand for step's output with these
	 * parameters (NULL: whenever 'value' is set).  A duration window that
	 * asks for min_rows can stop producing output after it started, so its
	 * step computes the output itself.
	 */
	bool		(*lazy) (const SpParams *p);

	/*
	 * Optional: whether the operator, so configured, carries its signal
	 * across segment boundaries (NULL: never).  Then at a boundary the
	 * engine calls 'edge' before the closed segment's results are emitted,
	 * with the segment's end instant (the closing row's timestamp) and,
	 * when the closing row is a data row whose value reaches the operator's
	 * first port straight from the pipeline's input, that value (else
	 * NULL); it returns whether the operator's output is to be emitted, its
	 * value now covering the segment to its end.  Then, instead of zeroing
	 * its state, the engine calls 'carry', which leaves the state as a
	 * reset would but for what the operator carries into the next segment,
	 * which starts at the same instant.  A flush has no next segment: the
	 * state is zeroed after the edge.
	 */
	bool		(*carries) (const SpParams *p);
	bool		(*edge) (const SpParams *p, void *state, int64 end, const double *next);
	void		(*carry) (const SpParams *p, void *state, int64 start);

	/* Walk the state for the codecs; NULL when the operator is stateless. */
	void		(*visit) (const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v);

	/* Check a decoded state's invariants; returns NULL or a message. */
	const char *(*check_state) (const SpParams *p, const void *state, const SpRing *rings);

	/*
	 * Optional: after check_state has accepted a decoded state, rebuild what
	 * the state does not store but derives from what it does (the windowed
	 * sums' exact accumulators, from their rings), so that the state is
	 * byte for byte the one the run that wrote it had.
	 */
	void		(*restore) (const SpParams *p, void *state, const SpRing *rings);

	/*
	 * Optional: for an operator with a vector port (in or out), the step;
	 * it replaces step, step_at and step_multi (one output).  in[k] is data
	 * port k's value, out the output (SpValue); ts the row's timestamp.
	 */
	bool		(*step_vec) (const SpParams *p, void *state, SpRing *rings, int64 ts,
							 const SpValue *in, SpValue *out);

	/*
	 * Optional: step_vec for an operator of several output ports (a nested
	 * Pipeline with vectors); it replaces every other step.  out[k] is
	 * output port k's value (v set for a vector port, as for step_vec), and
	 * it sets have[k] for the ports it produces on; returns whether it
	 * produced on any.
	 */
	bool		(*step_vec_multi) (const SpParams *p, void *state, SpRing *rings, int64 ts,
								   const SpValue *in, SpValue *out, bool *have);

	/*
	 * Optional: the step of an operator that runs on a row when any of its
	 * ports received a value, not only when all did (Variable: an update,
	 * a query, or both); it replaces every other step.  have_in[k] says
	 * whether port k received one, in[k] is its value (v set for a vector,
	 * as for step_vec); its one output, a number or a boolean, is out->x.
	 */
	bool		(*step_some) (const SpParams *p, void *state, SpRing *rings,
							  const SpValue *in, const bool *have_in, SpValue *out);
} SpOpType;

/*
 * Every operator type, one line each: sp_registry.c's table, and the
 * declarations that the families' files define (PostgreSQL 18 builds with
 * -Wmissing-variable-declarations).
 */
#define SP_OPERATORS(X) \
	X(sp_op_identity) \
	X(sp_op_cumulative_sum) \
	X(sp_op_count_number) \
	X(sp_op_count_boolean) \
	X(sp_op_max_tracker) \
	X(sp_op_min_tracker) \
	X(sp_op_moving_average) \
	X(sp_op_moving_sum) \
	X(sp_op_standard_deviation) \
	X(sp_op_window_min_max) \
	X(sp_op_peak_detector) \
	X(sp_op_difference) \
	X(sp_op_fir) \
	X(sp_op_iir) \
	X(sp_op_scale) \
	X(sp_op_add) \
	X(sp_op_power) \
	X(sp_op_abs) \
	X(sp_op_sign) \
	X(sp_op_floor) \
	X(sp_op_ceil) \
	X(sp_op_round) \
	X(sp_op_sin) \
	X(sp_op_cos) \
	X(sp_op_tan) \
	X(sp_op_exp) \
	X(sp_op_log) \
	X(sp_op_log10) \
	X(sp_op_le_replace) \
	X(sp_op_greater_than) \
	X(sp_op_less_than) \
	X(sp_op_equal_to) \
	X(sp_op_not_equal_to) \
	X(sp_op_compare_gt) \
	X(sp_op_compare_lt) \
	X(sp_op_compare_gte) \
	X(sp_op_compare_lte) \
	X(sp_op_compare_eq) \
	X(sp_op_compare_neq) \
	X(sp_op_boolean_to_number) \
	X(sp_op_addition) \
	X(sp_op_subtraction) \
	X(sp_op_multiplication) \
	X(sp_op_division) \
	X(sp_op_linear) \
	X(sp_op_time_weighted_average) \
	X(sp_op_integral) \
	X(sp_op_duration_true) \
	X(sp_op_counter_increase) \
	X(sp_op_counter_rate) \
	X(sp_op_transitions) \
	X(sp_op_constant_number) \
	X(sp_op_constant_boolean) \
	X(sp_op_constant_number_to_boolean) \
	X(sp_op_constant_boolean_to_number) \
	X(sp_op_logical_and) \
	X(sp_op_logical_or) \
	X(sp_op_logical_xor) \
	X(sp_op_logical_nand) \
	X(sp_op_logical_nor) \
	X(sp_op_logical_xnor) \
	X(sp_op_logical_implication) \
	X(sp_op_compare_sync_gt) \
	X(sp_op_compare_sync_lt) \
	X(sp_op_compare_sync_gte) \
	X(sp_op_compare_sync_lte) \
	X(sp_op_compare_sync_eq) \
	X(sp_op_compare_sync_neq) \
	X(sp_op_sync_greater_than) \
	X(sp_op_sync_less_than) \
	X(sp_op_sync_equal) \
	X(sp_op_sync_not_equal) \
	X(sp_op_moving_key_count) \
	X(sp_op_resampler_constant) \
	X(sp_op_multiplexer) \
	X(sp_op_timestamp_extract) \
	X(sp_op_demultiplexer) \
	X(sp_op_vector_extract) \
	X(sp_op_vector_project) \
	X(sp_op_vector_compose) \
	X(sp_op_top_k) \
	X(sp_op_fused_expression) \
	X(sp_op_fused_expression_vector) \
	X(sp_op_keyed_pipeline) \
	X(sp_op_function) \
	X(sp_op_resampler_hermite) \
	X(sp_op_burst_aggregate) \
	X(sp_op_join) \
	X(sp_op_variable) \
	X(sp_op_keyed_variable) \
	X(sp_op_trigger_set) \
	X(sp_op_time_shift) \
	X(sp_op_input)

#define SP_DECLARE(sym) extern const SpOpType sym;

SP_OPERATORS(SP_DECLARE)

/* A parameter-less operator's parameter list. */
extern const SpParamDef sp_no_params[];

/* sp_registry.c: lookup by the spec's type name, NULL when unknown */
extern const SpOpType *sp_find_op_type(const char *name);

/* sp_registry.c: the i-th operator type in the table, NULL past the last */
extern const SpOpType *sp_op_type_at(int i);

#endif							/* SP_OPERATOR_H */
