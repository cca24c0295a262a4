/*
 * pipeline_agg.h
 *	  The segment rule over timestamped rows, as pipeline_agg runs it: one
 *	  run, fed row by row, whose result is a pipeline carrying its state.
 *	  punctuate() feeds it one punctuation row, and pipeline_agg_row
 *	  (pipeline_agg_row.c) its rows with the key taken out of a row, so
 *	  that the three cannot disagree; so does its ordered-set form
 *	  (pipeline_agg_ordered.c), which sorts the rows itself.
 */
#ifndef PIPELINE_AGG_H
#define PIPELINE_AGG_H

#include "fmgr.h"
#include "utils/timestamp.h"

#include "sp_keyio.h"

typedef struct AggState AggState;

/* An emission of a run: the closed segment's key is seg_keys[seg]. */
typedef struct AggEmission
{
	TimestampTz ts;
	int32		seg;
	int32		port;			/* from 0 */
	double		value;			/* a vector port's: the index of its vector */
} AggEmission;

extern AggState *sp_agg_begin(FunctionCallInfo fcinfo, Datum spec, Oid key_type,
							  Oid collation, MemoryContext cxt);
/*
 * An aggregate call's state: its first row begins it from the spec
 * argument, with keys of key_type compared under collation.
 */
extern AggState *sp_agg_state(FunctionCallInfo fcinfo, Oid key_type, Oid collation);
extern Oid	sp_agg_key_type(const AggState *as);

/*
 * One row of an aggregate call (ts, value, key, spec arguments): the scalar
 * form (a float8 value, NULL for punctuation) or the array form (one value
 * per data port).
 */
extern void sp_agg_step_scalar(FunctionCallInfo fcinfo, AggState *as, bool knull, Datum key);
extern void sp_agg_step_array(FunctionCallInfo fcinfo, AggState *as, bool knull, Datum key);

/*
 * The same with the row given as values (the array form when array): the
 * ordered-set form (pipeline_agg_ordered.c) reads them from its own sort.
 */
extern void sp_agg_step_values(AggState *as, bool array, bool tsnull, TimestampTz ts,
							   bool vnull, Datum value, bool knull, Datum key);
/* The latest timestamp processed; false when there is none. */
extern bool sp_agg_progress(const AggState *as, TimestampTz *progress);
/* Whether the configuration has a vector port (whose emissions are vectors). */
extern bool sp_agg_has_vectors(const AggState *as);

extern bool sp_agg_time(AggState *as, bool isnull, TimestampTz ts, bool applied);
extern void sp_agg_row(AggState *as, TimestampTz ts, const double *values,
					   bool knull, Datum key);
extern Datum sp_agg_result(const AggState *as);
extern Datum sp_agg_state_datum(const AggState *as, SpKeyIO *io);
extern const AggEmission *sp_agg_emissions(const AggState *as, int *n, const Datum **seg_keys);

/*
 * Checkpoints: a run asked to keep them keeps the pipeline as it is before
 * each row that opens a new segment later than every row before it;
 * sp_agg_checkpoints gives them (pipeline Datums), in the order taken.
 */
extern void sp_agg_keep_checkpoints(AggState *as);
extern void sp_agg_rest(AggState *as);
extern const Datum *sp_agg_checkpoints(const AggState *as, int *n);
extern const TimestampTz *sp_agg_checkpoint_times(const AggState *as);

#endif							/* PIPELINE_AGG_H */
