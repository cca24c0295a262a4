/*
 * pipeline_agg_ordered.c
 *	  pipeline_agg(spec) WITHIN GROUP (ORDER BY ts, value, key): the
 *	  ordered-set form of pipeline_agg, which sorts its rows itself.
 *
 * pipeline_agg(ts, value, key, spec ORDER BY ts) leaves the sort to the
 * executor, which sorts every argument of the call, the spec included: a
 * configuration of a few hundred bytes is copied into every sorted row and
 * written to the sort's temporary files with it (docs/benchmarks.md).
 * Here the spec is a direct argument, evaluated once per group, and the
 * transition function puts only (ts, value, key) into a tuplesort, ordered
 * as the WITHIN GROUP clause says (each column's direction, NULLS
 * FIRST/LAST and collation); past work_mem it spills to temporary files,
 * so memory stays within work_mem however many rows a group has.  The
 * final function sorts, then feeds the rows in that order to
 * pipeline_agg's own steps (pipeline_agg.h): the result is the one
 * pipeline_agg gives over the rows in that order.
 *
 * The sort's state belongs to the group (the aggregate's memory context)
 * and is ended by a callback when the group's memory is reset, so an error
 * or an abandoned group leaves no temporary file behind.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"

#include "pipeline_agg.h"

PG_FUNCTION_INFO_V1(pipeline_agg_ordered_step);
PG_FUNCTION_INFO_V1(pipeline_agg_ordered_final);

/* the aggregated arguments, in the order of the signature */
#define COL_TS		0
#define COL_VALUE	1
#define COL_KEY		2
#define N_COLS		3

/*
 * What every group of one call site shares, found in the Aggref once and
 * kept in the transition function's fn_extra (the query's memory).
 */
typedef struct OrderedQuery
{
	TupleDesc	desc;			/* (ts, value, key) */
	TupleTableSlot *slot;		/* rows in and out of the sort */
	int			nkeys;
	AttrNumber *cols;
	Oid		   *ops;
	Oid		   *colls;
	bool	   *nulls_first;
	bool		shared;			/* more than one final call per group */
	bool		array;			/* value is float8[] */
	Oid			key_type;
	Oid			key_collation;
} OrderedQuery;

/* A group's transition state: its rows, sorted once. */
typedef struct OrderedGroup
{
	OrderedQuery *q;
	Tuplesortstate *sort;
	bool		sorted;
} OrderedGroup;

static OrderedQuery *
query_state(FunctionCallInfo fcinfo)
{
	OrderedQuery *q = (OrderedQuery *) fcinfo->flinfo->fn_extra;
	Aggref	   *aggref;
	MemoryContext old;
	ListCell   *lc;
	int			i;

	if (q != NULL)
		return q;
	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL || !AGGKIND_IS_ORDERED_SET(aggref->aggkind) ||
		list_length(aggref->args) != N_COLS || list_length(aggref->aggorder) != N_COLS)
		elog(ERROR, "pipeline_agg ordered-set transition function called for another aggregate");

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	q = palloc0(sizeof(OrderedQuery));
	q->nkeys = N_COLS;
	q->cols = palloc(sizeof(AttrNumber) * N_COLS);
	q->ops = palloc(sizeof(Oid) * N_COLS);
	q->colls = palloc(sizeof(Oid) * N_COLS);
	q->nulls_first = palloc(sizeof(bool) * N_COLS);
	i = 0;
	foreach(lc, aggref->aggorder)
	{
		SortGroupClause *sc = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(sc, aggref->args);

		q->cols[i] = tle->resno;
		q->ops[i] = sc->sortop;
		q->colls[i] = exprCollation((Node *) tle->expr);
		q->nulls_first[i] = sc->nulls_first;
		i++;
	}
	q->desc = ExecTypeFromTL(aggref->args);
	q->slot = MakeSingleTupleTableSlot(q->desc, &TTSOpsMinimalTuple);
	q->shared = AggStateIsShared(fcinfo);
	if (TupleDescAttr(q->desc, COL_TS)->atttypid != TIMESTAMPTZOID ||
		(TupleDescAttr(q->desc, COL_VALUE)->atttypid != FLOAT8OID &&
		 TupleDescAttr(q->desc, COL_VALUE)->atttypid != FLOAT8ARRAYOID))
		elog(ERROR, "pipeline_agg ordered-set transition function called with other argument types");
	q->array = TupleDescAttr(q->desc, COL_VALUE)->atttypid == FLOAT8ARRAYOID;

	/*
	 * Keys are compared under the key column's own collation: an
	 * ordered-set aggregate's input collation does not come from its
	 * aggregated arguments, as pipeline_agg's does from its key.
	 */
	{
		TargetEntry *key = list_nth_node(TargetEntry, aggref->args, COL_KEY);

		q->key_type = exprType((Node *) key->expr);
		q->key_collation = exprCollation((Node *) key->expr);
	}
	fcinfo->flinfo->fn_extra = q;
	MemoryContextSwitchTo(old);
	return q;
}

/* The group's memory is being reset: end the sort, its temporary files too. */
static void
group_shutdown(Datum arg)
{
	OrderedGroup *g = (OrderedGroup *) DatumGetPointer(arg);

	if (g->sort != NULL)
		tuplesort_end(g->sort);
	g->sort = NULL;
	ExecClearTuple(g->q->slot);
}

static OrderedGroup *
group_begin(FunctionCallInfo fcinfo)
{
	MemoryContext gcxt;
	MemoryContext old;
	OrderedQuery *q;
	OrderedGroup *g;

	if (AggCheckCallContext(fcinfo, &gcxt) != AGG_CONTEXT_AGGREGATE)
		elog(ERROR, "pipeline_agg ordered-set transition function called in non-aggregate context");
	q = query_state(fcinfo);
	old = MemoryContextSwitchTo(gcxt);
	g = palloc0(sizeof(OrderedGroup));
	g->q = q;
	g->sort = tuplesort_begin_heap(q->desc, q->nkeys, q->cols, q->ops, q->colls,
								   q->nulls_first, work_mem, NULL,
								   q->shared ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
	AggRegisterCallback(fcinfo, group_shutdown, PointerGetDatum(g));
	MemoryContextSwitchTo(old);
	return g;
}

/*
 * pipeline_agg(spec) WITHIN GROUP (ORDER BY ts, value, key), value float8
 * or float8[]: one row into the group's sort.
 */
Datum
pipeline_agg_ordered_step(PG_FUNCTION_ARGS)
{
	OrderedGroup *g;
	TupleTableSlot *slot;

	g = PG_ARGISNULL(0) ? group_begin(fcinfo) : (OrderedGroup *) PG_GETARG_POINTER(0);
	if (g->sorted)
		elog(ERROR, "pipeline_agg ordered-set transition function called after its final function");
	slot = g->q->slot;
	ExecClearTuple(slot);
	for (int i = 0; i < N_COLS; i++)
	{
		slot->tts_isnull[i] = PG_ARGISNULL(i + 1);
		slot->tts_values[i] = slot->tts_isnull[i] ? (Datum) 0 : PG_GETARG_DATUM(i + 1);
	}
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(g->sort, slot);
	PG_RETURN_POINTER(g);
}

/*
 * The pipeline over the group's rows in sorted order, from the spec (the
 * direct argument), as pipeline_agg gives it; NULL for a group without
 * rows.
 */
Datum
pipeline_agg_ordered_final(PG_FUNCTION_ARGS)
{
	OrderedGroup *g;
	OrderedQuery *q;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext runcxt;
	MemoryContext rowcxt;
	AggState   *as;
	TupleTableSlot *slot;
	Datum		result;

	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		elog(ERROR, "pipeline_agg ordered-set final function called in non-aggregate context");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec must not be null")));
	g = (OrderedGroup *) PG_GETARG_POINTER(0);
	q = g->q;
	if (g->sort == NULL)
		elog(ERROR, "pipeline_agg ordered-set final function called after its group ended");
	if (!g->sorted)
	{
		tuplesort_performsort(g->sort);
		g->sorted = true;
	}
	else
		tuplesort_rescan(g->sort);	/* shared: random access (group_begin) */

	/*
	 * The run lives until its result is built; what a row needs only while
	 * it is processed (a detoasted array, say) goes with the row, as in a
	 * transition function's per-row memory.
	 */
	runcxt = AllocSetContextCreate(outer, "pipeline_agg ordered run", ALLOCSET_DEFAULT_SIZES);
	rowcxt = AllocSetContextCreate(runcxt, "pipeline_agg ordered row", ALLOCSET_DEFAULT_SIZES);
	as = sp_agg_begin(fcinfo, PG_GETARG_DATUM(1), q->key_type, q->key_collation, runcxt);
	slot = q->slot;
	MemoryContextSwitchTo(rowcxt);
	while (tuplesort_gettupleslot(g->sort, true, false, slot, NULL))
	{
		Datum	   *v;
		bool	   *n;

		CHECK_FOR_INTERRUPTS();
		slot_getallattrs(slot);
		v = slot->tts_values;
		n = slot->tts_isnull;
		sp_agg_step_values(as, q->array,
						   n[COL_TS], n[COL_TS] ? 0 : DatumGetTimestampTz(v[COL_TS]),
						   n[COL_VALUE], v[COL_VALUE], n[COL_KEY], v[COL_KEY]);
		MemoryContextReset(rowcxt);
	}
	ExecClearTuple(slot);
	MemoryContextSwitchTo(outer);
	result = sp_agg_result(as);
	MemoryContextDelete(runcxt);
	PG_RETURN_DATUM(result);
}
