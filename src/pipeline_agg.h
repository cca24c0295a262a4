/*
 * pipeline_agg.h
 *	  The segment rule over timestamped rows, as pipeline_agg runs it: one
 *	  run, fed row by row, whose result is a pipeline carrying its state.
 *	  punctuate() feeds it one punctuation row, so that the two cannot
 *	  disagree.
 */
#ifndef PIPELINE_AGG_H
#define PIPELINE_AGG_H

#include "fmgr.h"
#include "utils/timestamp.h"

typedef struct AggState AggState;

extern AggState *sp_agg_begin(FunctionCallInfo fcinfo, Datum spec, Oid key_type,
							  Oid collation, MemoryContext cxt);
extern bool sp_agg_time(AggState *as, bool isnull, TimestampTz ts, bool applied);
extern void sp_agg_row(AggState *as, TimestampTz ts, const double *values,
					   bool knull, Datum key);
extern Datum sp_agg_result(const AggState *as);

#endif							/* PIPELINE_AGG_H */
