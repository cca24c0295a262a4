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
} SpSource;

typedef struct SpConnection
{
	int			from;			/* operator index; every operator has output o1 */
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
	int		   *map_order;		/* pipeline output ports in mapping order */
	int			max_nin;
	Size		state_size;		/* all operator states, MAXALIGNed each */
} SpConfig;

/*
 * Running state.  Everything lives in one block of sp_run_size() bytes, so a
 * caller can place it in memory it owns (a window partition's local memory).
 */
typedef struct SpRun
{
	const SpConfig *cfg;
	bool		has_key;
	double		key;
	bool	   *buffered;		/* per output port */
	double	   *buffer;
	char	   *opstate;		/* cfg->state_size bytes */
	/* results of the last row: what it emitted */
	int			n_emitted;
	bool	   *emitted;
	double	   *emit;
	/* per-row scratch */
	double	   *row_in;
	double	   *val;			/* per operator: its output this row */
	bool	   *have;			/* per operator: produced output this row */
	double	   *op_in;			/* max_nin gathered inputs */
} SpRun;

extern Size sp_run_size(const SpConfig *cfg);

/* mem: sp_run_size(cfg) bytes, zeroed and MAXALIGNed. */
extern SpRun *sp_run_init(const SpConfig *cfg, void *mem);

/*
 * Process one row.  values holds n_in values, or is NULL for a punctuation
 * row; it may be run->row_in itself.  Returns true when the row emitted;
 * run->emitted / run->emit then say
 * what, per output port.
 */
extern bool sp_run_row(SpRun *run, const double *values, bool key_isnull, double key);

/* float8 equality as PostgreSQL defines it: NaN = NaN, -0 = 0. */
extern bool sp_key_equal(double a, double b);

#endif							/* SP_ENGINE_H */
