/*
 * maintain_insert.c
 *	  segpipe_insert_trigger(): the insert trigger of a maintained results
 *	  table (segpipe_maintain, docs/reference.md "Maintained results").
 *
 * An INSERT's rows usually come after everything their sensors have seen,
 * and in order.  This trigger runs such sensors on from their states in
 * one pass over the statement's rows, in C: the rows stream from the
 * transition table into the sensors' runs, which are saved, with their
 * emissions and checkpoints, by one statement each.  A sensor whose rows
 * are not in order within the statement is run again by SQL that sorts
 * them (the statement "sorted"); one with a row at or before its progress
 * is corrected from its checkpoints (the statement "correct"), under the
 * late-row policy 'correct'.  Both give what the fast path would give over
 * sorted rows: whatever the rows' order, the results are those of a run
 * over the readings in the order ts, value, key.
 *
 * The trigger's one argument is the id of its results table's row in
 * segpipe's catalog (maintain_catalog.h); the statements it runs are built
 * from that row and prepared once per backend (maintain_sql.h), under the
 * settings they are written for.
 */
#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/rbtree.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "pipeline_agg.h"
#include "maintain_cache.h"
#include "maintain_correct.h"
#include "maintain_sql.h"
#include "maintain_state.h"
#include "sp_keyio.h"
#include "sp_settings.h"

PG_FUNCTION_INFO_V1(segpipe_insert_trigger);

typedef enum SensorPath
{
	PATH_FAST,					/* run on here */
	PATH_SORTED,				/* rows out of order: the sorted statement */
	PATH_LATE					/* a row at or before its progress: corrected */
} SensorPath;

typedef struct Sensor
{
	Datum		part;			/* as the statement's rows have it */
	Datum		stored_part;	/* as the state table has it: what is written */
	Datum		state;			/* as stored */
	ItemPointerData tid;		/* its row, locked */
	AggState   *as;
	MemoryContext as_cxt;		/* as's own */
	bool		has_stored;		/* the stored state's progress */
	TimestampTz stored;
	SensorPath	path;
	bool		has_min;		/* the earliest row of the statement */
	TimestampTz min_ts;
	bool		has_prev;		/* the previous row, to see the order */
	TimestampTz prev_ts;
	bool		prev_vnull;
	double		prev_v;
} Sensor;

/* One statement's run. */
typedef struct InsertRun
{
	MaintainPlans *tp;
	MemoryContext cxt;
	MemoryContext rowcxt;		/* reset before each row */
	int			n;
	Sensor	   *sensors;		/* sorted as the state table's key */
	int16		part_len;
	bool		part_byval;
	char		part_align;
	FmgrInfo   *part_cmp;
	Oid			part_coll;
	Oid			part_cmp_fn;	/* part_cmp's function: integers compare inline */
	int		   *row_sensor;		/* the sensor of each row, as the first pass saw it */
	int64		n_rows;
	int64		row;			/* the rows received */
	Oid			key_coll;
	int16		pipe_len;
	bool		pipe_byval;
	char		pipe_align;
	bool		array;			/* values are float8[] */
	bool		late_correct;
	Oid			state_rel;		/* the state rows' table */
	StateTable *stable;			/* open for locking or writing in place */
	bool		in_place;		/* the states were written in place */
} InsertRun;

typedef struct RowReceiver
{
	DestReceiver pub;
	InsertRun  *run;
} RowReceiver;

/* The states MS_INS_LOCKREAD reads: sensors[first .. first + read - 1]. */
typedef struct StateReceiver
{
	DestReceiver pub;
	InsertRun  *run;
	int			first;
	int			read;
} StateReceiver;

/* ---- plans ---- */

static void
run_plan(SPIPlanPtr p, Datum *values, int expected)
{
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	int			rc = SPI_execute_plan(p, values, nulls, false, 0);

	if (rc != expected)
		elog(ERROR, "segpipe's insert statement returned %s", SPI_result_code_string(rc));
}

/*
 * A statement that joins the statement's sensors (an array) with the state
 * table, run by nested loops over the state table's key.  Its plan is made
 * when it first runs in a backend, and kept: made while the state table was
 * small, a hash join would scan the whole table on every insert after it
 * grew (1000 sensors: an 8 MB scan per statement).  Settings in force where
 * the plan is made decide it, so they are set for every run.
 */
static const SpSetting nested_loop_settings[] = {
	{"enable_hashjoin", "off"},
	{"enable_mergejoin", "off"},
};

static void
run_plan_by_key(SPIPlanPtr p, Datum *values, int expected)
{
	int			nest = sp_settings_begin(nested_loop_settings, lengthof(nested_loop_settings),
										 SP_SETTINGS_ALL(lengthof(nested_loop_settings)));

	run_plan(p, values, expected);
	sp_settings_end(nest);
}

/* n sensors' values, as an array of the partition column's type */
static Datum
parts_array_of(const InsertRun *run, Datum *parts, int n)
{
	return PointerGetDatum(construct_array(parts, n, run->tp->part_type, run->part_len,
										   run->part_byval, run->part_align));
}

static Datum
timestamps_array_of(Datum *ts, int n)
{
	return PointerGetDatum(construct_array(ts, n, TIMESTAMPTZOID, sizeof(TimestampTz),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* n pipelines, as a pipeline[] */
static Datum
pipelines_array_of(const InsertRun *run, Datum *p, int n)
{
	return PointerGetDatum(construct_array(p, n, run->tp->pipeline_type, run->pipe_len,
										   run->pipe_byval, run->pipe_align));
}

/* ---- the sensors ---- */

/*
 * Two sensors' order, as part_cmp gives it: the btree comparisons of the
 * integer types inline (a call through fmgr for each of a statement's rows
 * is most of what finding its sensor costs).
 */
static inline int32
part_compare(const InsertRun *run, Datum a, Datum b)
{
	switch (run->part_cmp_fn)
	{
		case F_BTINT4CMP:
			return (DatumGetInt32(a) > DatumGetInt32(b)) - (DatumGetInt32(a) < DatumGetInt32(b));
		case F_BTINT8CMP:
			return (DatumGetInt64(a) > DatumGetInt64(b)) - (DatumGetInt64(a) < DatumGetInt64(b));
		case F_BTINT2CMP:
			return (int32) DatumGetInt16(a) - (int32) DatumGetInt16(b);
		default:
			return DatumGetInt32(FunctionCall2Coll(run->part_cmp, run->part_coll, a, b));
	}
}

static Sensor *
find_sensor(InsertRun *run, Datum part)
{
	int			lo = 0,
				hi = run->n - 1;

	/*
	 * The rows come in the order of the first pass over the transition
	 * table, which noted each one's sensor; a row whose sensor is not that
	 * one (never, unless the scan's order changed) is looked up.
	 */
	if (run->row < run->n_rows)
	{
		Sensor	   *s = &run->sensors[run->row_sensor[run->row++]];

		if (run->part_byval ? s->part == part : part_compare(run, part, s->part) == 0)
			return s;
	}
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int32		c = part_compare(run, part, run->sensors[mid].part);

		if (c == 0)
			return &run->sensors[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	elog(ERROR, "a row's sensor is not among the statement's sensors");
	pg_unreachable();
}

/* the order of ORDER BY value: NaN above every number, NULL last */
static int
value_cmp(bool an, double a, bool bn, double b)
{
	if (an || bn)
		return (an == bn) ? 0 : (an ? 1 : -1);
	return float8_cmp_internal(a, b);
}

/* One row of the statement. */
static bool
rows_receive(TupleTableSlot *slot, DestReceiver *self)
{
	InsertRun  *run = ((RowReceiver *) self)->run;
	Sensor	   *s;
	bool		tsnull,
				vnull,
				knull;
	TimestampTz ts;
	Datum		v;
	MemoryContext old;

	slot_getallattrs(slot);
	if (slot->tts_isnull[0])
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("a row's sensor is null")));
	s = find_sensor(run, slot->tts_values[0]);
	tsnull = slot->tts_isnull[1];
	ts = tsnull ? 0 : DatumGetTimestampTz(slot->tts_values[1]);
	vnull = slot->tts_isnull[2];
	v = slot->tts_values[2];
	knull = slot->tts_isnull[3];

	MemoryContextReset(run->rowcxt);
	old = MemoryContextSwitchTo(run->rowcxt);
	if (tsnull)
	{
		/* an error, as in every run */
		sp_agg_step_values(s->as, run->array, true, 0, vnull, v, knull, slot->tts_values[3]);
	}
	if (!s->has_min || ts < s->min_ts)
	{
		s->has_min = true;
		s->min_ts = ts;
	}
	if (s->path != PATH_LATE && run->late_correct && s->has_stored && ts <= s->stored)
		s->path = PATH_LATE;
	if (s->path == PATH_FAST && s->has_prev &&
		(ts < s->prev_ts ||
		 (ts == s->prev_ts &&
		  (run->array || value_cmp(vnull, vnull ? 0 : DatumGetFloat8(v),
								   s->prev_vnull, s->prev_v) <= 0))))
		s->path = PATH_SORTED;
	if (s->path == PATH_FAST)
	{
		s->has_prev = true;
		s->prev_ts = ts;
		s->prev_vnull = vnull;
		s->prev_v = (vnull || run->array) ? 0 : DatumGetFloat8(v);
		sp_agg_step_values(s->as, run->array, false, ts, vnull, v, knull, slot->tts_values[3]);
	}
	MemoryContextSwitchTo(old);
	return true;
}

static void
rows_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	InsertRun  *run = ((RowReceiver *) self)->run;

	/* the plan was made for these types: a change since is refused */
	if (desc->natts != 4 ||
		TupleDescAttr(desc, 0)->atttypid != run->tp->part_type ||
		TupleDescAttr(desc, 1)->atttypid != TIMESTAMPTZOID ||
		TupleDescAttr(desc, 2)->atttypid != (run->array ? FLOAT8ARRAYOID : FLOAT8OID) ||
		TupleDescAttr(desc, 3)->atttypid != run->tp->entry->key_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the readings' columns no longer match the maintained results"),
				 errhint("Run segpipe_unmaintain() and segpipe_maintain() again.")));
}

static void
receiver_done(DestReceiver *self)
{
}

/*
 * Run a query whose rows go to dest (a RowReceiver or StateReceiver, zeroed
 * but for its own fields), given its receive and startup callbacks.
 */
static void
run_into(SPIPlanPtr p, ParamListInfo params, DestReceiver *dest,
		 bool (*receive) (TupleTableSlot *, DestReceiver *),
		 void (*startup) (DestReceiver *, int, TupleDesc))
{
	SPIExecuteOptions options;
	int			rc;

	dest->receiveSlot = receive;
	dest->rStartup = startup;
	dest->rShutdown = receiver_done;
	dest->rDestroy = receiver_done;
	dest->mydest = DestNone;
	memset(&options, 0, sizeof(options));
	options.params = params;
	options.dest = dest;
	rc = SPI_execute_plan_extended(p, &options);
	/* (SPI says "utility" of a SELECT whose rows go to a DestNone receiver) */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "segpipe's insert statement returned %s", SPI_result_code_string(rc));
}

/*
 * The rows statement's projection, evaluated here over the transition
 * table as its plan would: its generic plan (maintain_plan makes only
 * generic ones) is a scan of the transition table that computes the four
 * columns and nothing else, which this does without an executor around
 * it, as PL/pgSQL evaluates its simple expressions.  Functions are checked
 * for EXECUTE as the executor checks them (ExecInitExpr), as the role
 * whose statement fired the trigger.  false when the plan is of another
 * shape (a key with a subquery or a set-returning function): then the
 * statement runs.
 */
static bool
rows_projected(InsertRun *run, TriggerData *td, DestReceiver *dest)
{
	SPIPlanPtr	p = maintain_plan(run->tp, MS_INS_ROWS, 0, NULL);
	CachedPlan *cplan = SPI_plan_get_cached_plan(p);
	PlannedStmt *ps;
	Plan	   *scan;
	TupleDesc	desc = RelationGetDescr(td->tg_relation);
	TupleDesc	outdesc;
	ExprContext *econtext;
	ProjectionInfo *proj;
	TupleTableSlot *in,
			   *out;
	int			ptr;
	MemoryContext old;

	if (cplan == NULL)
		return false;
	ps = list_length(cplan->stmt_list) == 1 ? linitial(cplan->stmt_list) : NULL;
	scan = (ps != NULL && IsA(ps, PlannedStmt) && ps->commandType == CMD_SELECT) ? ps->planTree : NULL;
	if (scan == NULL || !IsA(scan, NamedTuplestoreScan) || scan->qual != NIL ||
		scan->initPlan != NIL || ps->subplans != NIL || scan->lefttree != NULL ||
		list_length(scan->targetlist) != 4)
	{
		ReleaseCachedPlan(cplan, CurrentResourceOwner);
		return false;
	}

	/* as SPI runs a statement that may write: what came before is seen */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	econtext = CreateStandaloneExprContext();
	old = MemoryContextSwitchTo(econtext->ecxt_per_query_memory);
	outdesc = ExecTypeFromTL(scan->targetlist);
	rows_startup(dest, CMD_SELECT, outdesc);
	in = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	out = MakeSingleTupleTableSlot(outdesc, &TTSOpsVirtual);
	proj = ExecBuildProjectionInfo(scan->targetlist, econtext, out, NULL, desc);
	MemoryContextSwitchTo(old);

	ptr = tuplestore_alloc_read_pointer(td->tg_newtable, EXEC_FLAG_REWIND);
	tuplestore_select_read_pointer(td->tg_newtable, ptr);
	tuplestore_rescan(td->tg_newtable);
	while (tuplestore_gettupleslot(td->tg_newtable, true, false, in))
	{
		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = in;
		(void) rows_receive(ExecProject(proj), dest);
	}
	tuplestore_select_read_pointer(td->tg_newtable, 0);

	ExecDropSingleTupleTableSlot(in);
	ExecDropSingleTupleTableSlot(out);
	FreeExprContext(econtext, true);
	PopActiveSnapshot();
	ReleaseCachedPlan(cplan, CurrentResourceOwner);
	return true;
}

/* ---- the trigger ---- */

/* rows whose sensors the first pass notes: 12 bytes each while it runs */
#define MAX_NOTED_ROWS (4 * 1024 * 1024)

/* the statement's sensors, distinct, in order, as they are collected */
typedef struct PartNode
{
	RBTNode		rbt;
	Datum		part;
	int			index;			/* among the sensors, once all are known */
} PartNode;

static int
part_node_cmp(const RBTNode *a, const RBTNode *b, void *arg)
{
	return part_compare((InsertRun *) arg, ((const PartNode *) a)->part,
						((const PartNode *) b)->part);
}

static void
part_node_combine(RBTNode *existing, const RBTNode *newdata, void *arg)
{
}

static RBTNode *
part_node_alloc(void *arg)
{
	return palloc(sizeof(PartNode));
}

/*
 * One row of MS_INS_READ or MS_INS_LOCKREAD, about the sensor whose ordinal
 * (from 1) among the sensors from first on is values[0]: its state, the
 * sensor as stored, and the row's ctid and tableoid, where the state is
 * written back (maintain_state.h).  Their types were checked
 * (check_state_columns), and each ordinal comes once.
 */
static void
keep_state(InsertRun *run, int first, const Datum *values, const bool *nulls)
{
	Sensor	   *s;
	int64		i;
	MemoryContext old;

	if (nulls[0] || nulls[1] || nulls[2] || nulls[3] || nulls[4])
		elog(ERROR, "segpipe's maintained sensors: invalid state row");
	i = DatumGetInt64(values[0]);
	if (i < 1 || i > run->n - first || run->sensors[first + i - 1].state != (Datum) 0)
		elog(ERROR, "segpipe's maintained sensors: invalid state row");
	s = &run->sensors[first + i - 1];
	old = MemoryContextSwitchTo(run->cxt);
	s->state = datumCopy(values[1], false, -1);
	s->stored_part = datumCopy(values[2], run->part_byval, run->part_len);
	MemoryContextSwitchTo(old);
	{
		Oid			rel = DatumGetObjectId(values[4]);

		if (rel != run->tp->entry->state_rel)
			elog(ERROR, "segpipe's maintained sensors: a state read from another table");
		run->state_rel = rel;
		ItemPointerCopy((ItemPointer) DatumGetPointer(values[3]), &s->tid);
	}
}

/*
 * The columns of MS_INS_READ and MS_INS_LOCKREAD: the state table's
 * columns may have been altered since the statements were built.
 */
static void
check_state_columns(MaintainPlans *tp, TupleDesc desc)
{
	if (desc->natts != 5 || TupleDescAttr(desc, 0)->atttypid != INT8OID ||
		TupleDescAttr(desc, 1)->atttypid != tp->pipeline_type ||
		TupleDescAttr(desc, 2)->atttypid != tp->part_type ||
		TupleDescAttr(desc, 3)->atttypid != TIDOID ||
		TupleDescAttr(desc, 4)->atttypid != OIDOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("state table \"%s\" is not as segpipe_maintain() made it",
						get_rel_name(tp->entry->state_rel)),
				 errdetail("Its sensor column must be of type %s and its column \"state\" of type pipeline.",
						   format_type_be(tp->part_type))));
}

static void
states_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	check_state_columns(((StateReceiver *) self)->run->tp, desc);
}

/*
 * A row of MS_INS_LOCKREAD: the state of the next sensor, locked already.  The
 * first sensor without one ends the statement before any sensor after it
 * is locked, so that all are locked in order.
 */
static bool
states_receive(TupleTableSlot *slot, DestReceiver *self)
{
	StateReceiver *r = (StateReceiver *) self;

	slot_getallattrs(slot);
	if (slot->tts_isnull[0] || DatumGetInt64(slot->tts_values[0]) != r->read + 1)
		elog(ERROR, "segpipe's maintained sensors: states read out of order");
	if (slot->tts_isnull[2])
		return false;
	keep_state(r->run, r->first, slot->tts_values, slot->tts_isnull);
	r->read++;
	return true;
}

/*
 * Layout 2: the states of the sensors from first on (parts_array) that have
 * one, up to the first that has none, locked and read by one statement;
 * returns how many.
 */
static int
lock_read_states(InsertRun *run, Datum parts_array, Oid argtype, int first)
{
	StateReceiver dest;
	ParamListInfo params = makeParamList(1);

	memset(&dest, 0, sizeof(dest));
	dest.run = run;
	dest.first = first;
	params->params[0].value = parts_array;
	params->params[0].isnull = false;
	params->params[0].pflags = PARAM_FLAG_CONST;
	params->params[0].ptype = argtype;
	run_into(maintain_plan(run->tp, MS_INS_LOCKREAD, 1, &argtype), params, &dest.pub,
			 states_receive, states_startup);
	return dest.read;
}

/*
 * Layout 3: the states of the first sensors, locked where this backend
 * wrote them in place last (maintain_state_lock), without a statement, up
 * to the first sensor whose address the cache does not hold or whose row
 * is not there as written; returns how many.  The rest are locked by the
 * statements after them, so all are still locked in order.
 */
static int
lock_kept_states(InsertRun *run)
{
	MaintainPlans *tp = run->tp;
	StateCache *cache = &tp->cache;
	int			pos = 0;
	int			locked;

	if (cache->n == 0 || cache->rel != tp->entry->state_rel)
		return 0;
	run->stable = maintain_state_open(cache->rel, tp->entry->part_col, tp->part_type,
									  tp->pipeline_type);
	if (run->stable == NULL)
		return 0;
	/* the snapshot a statement would take, as SPI takes it */
	PushActiveSnapshot(GetTransactionSnapshot());
	for (locked = 0; locked < run->n; locked++)
	{
		Sensor	   *s = &run->sensors[locked];
		ItemPointerData tid;
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		if (!maintain_cache_address(cache, &pos, s->part, run->part_cmp, run->part_coll, &tid) ||
			!maintain_state_lock(run->stable, &tid, s->part, run->part_cmp, run->part_coll,
								 &values[2], &values[1]))
			break;
		/* what a row of MS_INS_LOCKREAD gives */
		values[0] = Int64GetDatum(locked + 1);
		values[3] = PointerGetDatum(&tid);
		values[4] = ObjectIdGetDatum(cache->rel);
		keep_state(run, 0, values, nulls);
	}
	PopActiveSnapshot();
	return locked;
}

/*
 * The sensors from first on (rest): inserted when new and locked, in
 * order, then read.
 */
static void
lock_insert_read_states(InsertRun *run, Datum rest, Oid argtype, int first)
{
	MaintainPlans *tp = run->tp;
	SPITupleTable *tt;
	TupleDesc	desc;

	run_plan(maintain_plan(tp, MS_INS_LOCK, 1, &argtype), &rest, SPI_OK_INSERT);
	run_plan_by_key(maintain_plan(tp, MS_INS_READ, 1, &argtype), &rest, SPI_OK_SELECT);
	tt = SPI_tuptable;
	desc = tt->tupdesc;
	if (SPI_processed != (uint64) (run->n - first))
		elog(ERROR, "segpipe's maintained sensors: %d locked, " UINT64_FORMAT " read",
			 run->n - first, SPI_processed);
	check_state_columns(tp, desc);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		values[5];
		bool		nulls[5];

		heap_deform_tuple(tt->vals[r], desc, values, nulls);
		keep_state(run, first, values, nulls);
	}
	SPI_freetuptable(tt);
}

/*
 * The statement's sensors, sorted as the state table's key sorts them (the
 * default btree order of the partition column's type, under its collation),
 * read from the transition table itself; then locked, in that order, so
 * that two statements never wait for each other in a cycle, and read.  A
 * sensor without a state gets one there (MS_INS_LOCK), in the same order:
 * the sensors up to the first without a state are locked and read by one
 * statement, and only those from it on by the two that insert, lock and
 * read.
 */
static void
read_sensors(InsertRun *run, TriggerData *td, Datum *parts_array)
{
	MaintainPlans *tp = run->tp;
	TupleDesc	desc = RelationGetDescr(td->tg_relation);
	Form_pg_attribute att;
	int			attno;
	Oid			part_type;
	Oid			argtype;
	TypeCacheEntry *tce;
	Datum	   *parts;
	RBTree	   *tree;
	RBTreeIterator it;
	PartNode   *node;
	TupleTableSlot *slot;
	PartNode  **row_nodes;
	int			ptr;
	bool		isnull;
	int			locked;

	attno = SPI_fnumber(desc, tp->entry->part_col);
	if (attno <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						tp->entry->part_col, RelationGetRelationName(td->tg_relation)),
				 errhint("Run segpipe_unmaintain() and segpipe_maintain() again.")));
	att = TupleDescAttr(desc, attno - 1);
	part_type = att->atttypid;
	run->part_coll = att->attcollation;
	if (part_type != tp->part_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is of type %s, not %s as in the maintained readings",
						tp->entry->part_col, RelationGetRelationName(td->tg_relation),
						format_type_be(part_type), format_type_be(tp->part_type))));
	get_typlenbyvalalign(part_type, &run->part_len, &run->part_byval, &run->part_align);
	tce = lookup_type_cache(getBaseType(part_type), TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(tce->cmp_proc_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify a comparison function for type %s",
						format_type_be(part_type))));
	run->part_cmp = &tce->cmp_proc_finfo;
	run->part_cmp_fn = run->part_cmp->fn_oid;

	tree = rbt_create(sizeof(PartNode), part_node_cmp, part_node_combine,
					  part_node_alloc, NULL, run);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* each row's sensor, noted for the second pass (up to a bound on the memory) */
	run->n_rows = Min(tuplestore_tuple_count(td->tg_newtable), MAX_NOTED_ROWS);
	row_nodes = MemoryContextAllocHuge(run->cxt, sizeof(PartNode *) * Max(run->n_rows, 1));
	/* a read pointer of its own, as a scan of the transition table has */
	ptr = tuplestore_alloc_read_pointer(td->tg_newtable, EXEC_FLAG_REWIND);
	tuplestore_select_read_pointer(td->tg_newtable, ptr);
	tuplestore_rescan(td->tg_newtable);
	run->n = 0;
	node = NULL;
	for (int64 row = 0; tuplestore_gettupleslot(td->tg_newtable, true, false, slot); row++)
	{
		PartNode	key;
		bool		isnew;

		key.part = slot_getattr(slot, attno, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("a row's sensor is null")));
		/* rows of one sensor often come together */
		if (node == NULL || part_compare(run, key.part, node->part) != 0)
		{
			node = (PartNode *) rbt_insert(tree, &key.rbt, &isnew);
			if (isnew)
			{
				node->part = datumCopy(key.part, run->part_byval, run->part_len);
				run->n++;
			}
		}
		if (row < run->n_rows)
			row_nodes[row] = node;
	}
	ExecDropSingleTupleTableSlot(slot);
	tuplestore_select_read_pointer(td->tg_newtable, 0);

	run->sensors = MemoryContextAllocZero(run->cxt, sizeof(Sensor) * Max(run->n, 1));
	parts = MemoryContextAlloc(run->cxt, sizeof(Datum) * Max(run->n, 1));
	rbt_begin_iterate(tree, LeftRightWalk, &it);
	for (int i = 0; (node = (PartNode *) rbt_iterate(&it)) != NULL; i++)
	{
		parts[i] = run->sensors[i].part = node->part;
		node->index = i;
	}
	run->row_sensor = MemoryContextAllocHuge(run->cxt, sizeof(int) * Max(run->n_rows, 1));
	for (int64 row = 0; row < run->n_rows; row++)
		run->row_sensor[row] = row_nodes[row]->index;
	pfree(row_nodes);
	*parts_array = parts_array_of(run, parts, run->n);

	argtype = maintain_array_type(part_type);
	maintain_cache_begin(&tp->cache);
	locked = lock_kept_states(run);
	if (locked < run->n)
		locked += lock_read_states(run, locked == 0 ? *parts_array :
								   parts_array_of(run, parts + locked, run->n - locked),
								   argtype, locked);
	if (locked < run->n)
	{
		Datum		rest = (locked == 0) ? *parts_array :
			parts_array_of(run, parts + locked, run->n - locked);

		lock_insert_read_states(run, rest, argtype, locked);
	}
	get_typlenbyvalalign(tp->pipeline_type, &run->pipe_len, &run->pipe_byval, &run->pipe_align);
}

/* The key's type, as the rows statement gives it. */
static void
rows_types(InsertRun *run)
{
	MaintainPlans *tp = run->tp;
	SPIPlanPtr	p = maintain_plan(tp, MS_INS_ROWS, 0, NULL);
	List	   *sources = SPI_plan_get_plan_sources(p);
	CachedPlanSource *ps;
	TupleDesc	desc;

	if (list_length(sources) != 1)
		elog(ERROR, "segpipe's rows statement must be one query");
	ps = (CachedPlanSource *) linitial(sources);
	desc = ps->resultDesc;
	if (desc == NULL || desc->natts != 4)
		elog(ERROR, "segpipe's rows statement must return four columns");
	run->array = TupleDescAttr(desc, 2)->atttypid == FLOAT8ARRAYOID;
	run->key_coll = TupleDescAttr(desc, 3)->attcollation;
	if (tp->entry->key_type != TupleDescAttr(desc, 3)->atttypid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the key of maintained results \"%s\" is now of type %s, not %s",
						get_rel_name(tp->entry->results), format_type_be(TupleDescAttr(desc, 3)->atttypid),
						format_type_be(tp->entry->key_type)),
				 errhint("Run segpipe_unmaintain() and segpipe_maintain() again.")));
}

/*
 * Each sensor's run: the one this backend wrote last as exactly its stored
 * state (maintain_cache.h), else read from that state.  Each in a context
 * of its own, which the cache can keep after the statement.
 */
static void
begin_runs(InsertRun *run, FunctionCallInfo fcinfo)
{
	StateCache *cache = &run->tp->cache;
	int			pos = 0;

	for (int i = 0; i < run->n; i++)
	{
		Sensor	   *s = &run->sensors[i];

		s->as = maintain_cache_take(cache, &pos, s->part, s->state, run->key_coll,
									run->part_cmp, run->part_coll, run->cxt, &s->as_cxt);
		if (s->as == NULL)
		{
			s->as_cxt = AllocSetContextCreate(run->cxt, "segpipe insert sensor",
											  ALLOCSET_SMALL_SIZES);
			s->as = sp_agg_begin(fcinfo, s->state, run->tp->entry->key_type, run->key_coll,
								 s->as_cxt);
		}
		sp_agg_keep_checkpoints(s->as);
		s->has_stored = sp_agg_progress(s->as, &s->stored);
		/* vector outputs are written by the SQL that sorts (NULL values) */
		s->path = sp_agg_has_vectors(s->as) ? PATH_SORTED : PATH_FAST;
	}
}

/*
 * The runs whose states were written here, kept for the statements after
 * it; states[f] is what the f-th sensor on the fast path wrote.
 */
static void
keep_runs(InsertRun *run, const Datum *states)
{
	StateCache *cache = &run->tp->cache;
	int			f = 0;

	for (int i = 0; i < run->n; i++)
	{
		Sensor	   *s = &run->sensors[i];

		if (s->path != PATH_FAST)
			continue;
		sp_agg_rest(s->as);
		if (!maintain_cache_keep(cache, s->part, run->part_len, run->part_byval, states[f++],
								 run->in_place ? &s->tid : NULL, run->state_rel,
								 run->key_coll, s->as, s->as_cxt))
			break;
	}
	maintain_cache_kept(cache, run->part_cmp, run->part_coll);
}

/*
 * The states written in place, at the rows MS_INS_LOCKREAD or MS_INS_READ
 * locked (maintain_state.h); false when the state table is not as
 * segpipe_maintain made it, and MS_INS_SAVE is to write them.
 */
static bool
save_in_place(InsertRun *run, const Datum *parts, const Datum *states, ItemPointer *tids, int n)
{
	MaintainPlans *tp = run->tp;
	StateTable *t;

	if (!OidIsValid(run->state_rel))
		return false;
	t = run->stable;
	if (t == NULL)
		t = maintain_state_open(run->state_rel, tp->entry->part_col, tp->part_type, tp->pipeline_type);
	run->stable = NULL;
	if (t == NULL)
		return false;
	for (int i = 0; i < n; i++)
		maintain_state_write(t, tids[i], parts[i], states[i]);
	maintain_state_close(t);
	run->in_place = true;
	return true;
}

/* The states, emissions and checkpoints of the sensors run here. */
static void
save_runs(InsertRun *run)
{
	MaintainPlans *tp = run->tp;
	int			n_fast = 0,
				n_emit = 0,
				n_ckpt = 0,
				e = 0,
				c = 0;
	Datum	   *fparts,
			   *states;
	ItemPointer *ftids;
	Datum	   *eparts,
			   *ets,
			   *ekeys,
			   *eports,
			   *evalues;
	Datum	   *cparts,
			   *cts,
			   *cstates;
	int16		key_len;
	bool		key_byval;
	char		key_align;
	SpKeyIO		io;
	int			nest;

	for (int i = 0; i < run->n; i++)
	{
		Sensor	   *s = &run->sensors[i];
		int			n;
		const Datum *keys;

		if (s->path != PATH_FAST)
			continue;
		n_fast++;
		(void) sp_agg_emissions(s->as, &n, &keys);
		n_emit += n;
		(void) sp_agg_checkpoints(s->as, &n);
		n_ckpt += n;
	}
	if (n_fast == 0)
		return;

	fparts = palloc(sizeof(Datum) * n_fast);
	states = palloc(sizeof(Datum) * n_fast);
	ftids = palloc(sizeof(ItemPointer) * n_fast);
	eparts = palloc(sizeof(Datum) * Max(n_emit, 1));
	ets = palloc(sizeof(Datum) * Max(n_emit, 1));
	ekeys = palloc(sizeof(Datum) * Max(n_emit, 1));
	eports = palloc(sizeof(Datum) * Max(n_emit, 1));
	evalues = palloc(sizeof(Datum) * Max(n_emit, 1));
	cparts = palloc(sizeof(Datum) * Max(n_ckpt, 1));
	cts = palloc(sizeof(Datum) * Max(n_ckpt, 1));
	cstates = palloc(sizeof(Datum) * Max(n_ckpt, 1));

	sp_keyio_init(&io, tp->entry->key_type, CurrentMemoryContext);
	nest = sp_keyio_hold(tp->entry->key_type);
	PG_TRY();
	{
		int			f = 0;

		for (int i = 0; i < run->n; i++)
		{
			Sensor	   *s = &run->sensors[i];
			int			n;
			const Datum *keys;
			const AggEmission *em;
			const Datum *ck;
			const TimestampTz *ck_ts;

			if (s->path != PATH_FAST)
				continue;
			fparts[f] = s->stored_part;
			ftids[f] = &s->tid;
			states[f++] = sp_agg_state_datum(s->as, &io);
			em = sp_agg_emissions(s->as, &n, &keys);
			for (int k = 0; k < n; k++, e++)
			{
				eparts[e] = s->stored_part;
				ets[e] = TimestampTzGetDatum(em[k].ts);
				ekeys[e] = keys[em[k].seg];
				eports[e] = Int32GetDatum(em[k].port + 1);
				evalues[e] = Float8GetDatum(em[k].value);
			}
			ck = sp_agg_checkpoints(s->as, &n);
			ck_ts = sp_agg_checkpoint_times(s->as);
			for (int k = 0; k < n; k++, c++)
			{
				cparts[c] = s->stored_part;
				cts[c] = TimestampTzGetDatum(ck_ts[k]);
				cstates[c] = ck[k];
			}
		}
	}
	PG_CATCH();
	{
		sp_keyio_abandon();
		PG_RE_THROW();
	}
	PG_END_TRY();
	sp_keyio_release(nest);

	if (!save_in_place(run, fparts, states, ftids, n_fast))
	{
		Oid			argtypes[2] = {maintain_array_type(tp->part_type), maintain_array_type(tp->pipeline_type)};
		Datum		values[2];

		values[0] = parts_array_of(run, fparts, n_fast);
		values[1] = pipelines_array_of(run, states, n_fast);
		run_plan_by_key(maintain_plan(tp, MS_INS_SAVE, 2, argtypes), values, SPI_OK_UPDATE);
	}
	if (n_emit > 0)
	{
		Oid			argtypes[5] = {maintain_array_type(tp->part_type), TIMESTAMPTZARRAYOID,
		maintain_array_type(tp->entry->key_type), INT4ARRAYOID, FLOAT8ARRAYOID};
		Datum		values[5];

		get_typlenbyvalalign(tp->entry->key_type, &key_len, &key_byval, &key_align);
		values[0] = parts_array_of(run, eparts, n_emit);
		values[1] = timestamps_array_of(ets, n_emit);
		values[2] = PointerGetDatum(construct_array(ekeys, n_emit, tp->entry->key_type, key_len, key_byval, key_align));
		values[3] = PointerGetDatum(construct_array(eports, n_emit, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		values[4] = PointerGetDatum(construct_array(evalues, n_emit, FLOAT8OID, sizeof(float8),
													FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		run_plan(maintain_plan(tp, MS_INS_EMIT, 5, argtypes), values, SPI_OK_INSERT);
	}
	if (n_ckpt > 0)
	{
		Oid			argtypes[3] = {maintain_array_type(tp->part_type), TIMESTAMPTZARRAYOID,
		maintain_array_type(tp->pipeline_type)};
		Datum		values[3];

		values[0] = parts_array_of(run, cparts, n_ckpt);
		values[1] = timestamps_array_of(cts, n_ckpt);
		values[2] = pipelines_array_of(run, cstates, n_ckpt);
		run_plan(maintain_plan(tp, MS_INS_CKPT, 3, argtypes), values, SPI_OK_INSERT);
	}
	keep_runs(run, states);
}

/* The sensors of one path, as an array; since: their earliest rows. */
static int
sensors_of(InsertRun *run, SensorPath path, Datum *parts, Datum *since)
{
	Datum	   *p = palloc(sizeof(Datum) * Max(run->n, 1));
	Datum	   *t = palloc(sizeof(Datum) * Max(run->n, 1));
	int			n = 0;

	for (int i = 0; i < run->n; i++)
		if (run->sensors[i].path == path)
		{
			p[n] = run->sensors[i].part;
			t[n++] = TimestampTzGetDatum(run->sensors[i].min_ts);
		}
	*parts = parts_array_of(run, p, n);
	if (since != NULL)
		*since = timestamps_array_of(t, n);
	return n;
}

/*
 * Sensors with a row at or before their progress: corrected from their
 * last checkpoint before their earliest new row; under beyond_horizon
 * 'keep', from each of their rows, so that those older than the horizon
 * are left out one by one.
 */
static void
correct_late(InsertRun *run, Datum parts, Datum since)
{
	MaintainPlans *tp = run->tp;

	if (tp->entry->beyond == BEYOND_KEEP)
	{
		Oid			argtype = maintain_array_type(tp->part_type);
		bool		isnull;

		run_plan(maintain_plan(tp, MS_INS_LATE, 1, &argtype), &parts, SPI_OK_SELECT);
		parts = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (isnull)
			return;
		since = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	}
	maintain_correct(tp, parts, since, (Datum) 0);
}

Datum
segpipe_insert_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	MaintainPlans *tp;
	InsertRun	run;
	RowReceiver dest;
	Datum		parts_array;
	Datum		args[2];
	Oid			argtypes[2];
	int			nest;
	MemoryContext old;
	LOCAL_FCINFO(fc, 0);

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("segpipe_insert_trigger() was not called by trigger manager")));
	if (!TRIGGER_FIRED_AFTER(td->tg_event) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(td->tg_event) || td->tg_newtable == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("segpipe_insert_trigger() must be fired AFTER INSERT FOR EACH STATEMENT with a NEW TABLE")));
	if (tuplestore_tuple_count(td->tg_newtable) == 0)
		return PointerGetDatum(NULL);

	/* the settings the statements are written for */
	nest = sp_settings_begin(maintain_settings, maintain_n_settings,
							 SP_SETTINGS_ALL(maintain_n_settings));
	tp = maintain_trigger_plans(td, "segpipe_insert_trigger");
	memset(&run, 0, sizeof(run));
	run.tp = tp;
	run.late_correct = tp->entry->late == LATE_CORRECT;
	run.cxt = AllocSetContextCreate(CurrentMemoryContext, "segpipe insert run",
									ALLOCSET_DEFAULT_SIZES);
	run.rowcxt = AllocSetContextCreate(run.cxt, "segpipe insert row",
									   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(run.cxt);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
		elog(ERROR, "SPI_register_trigger_data failed");

	read_sensors(&run, td, &parts_array);
	rows_types(&run);

	InitFunctionCallInfoData(*fc, &tp->flinfo, 0, InvalidOid, NULL, NULL);
	{
		int			knest = sp_keyio_hold(tp->entry->key_type);

		PG_TRY();
		{
			begin_runs(&run, fc);
		}
		PG_CATCH();
		{
			sp_keyio_abandon();
			PG_RE_THROW();
		}
		PG_END_TRY();
		sp_keyio_release(knest);
	}

	/* the rows, streamed into the runs */
	memset(&dest, 0, sizeof(dest));
	dest.run = &run;
	if (!rows_projected(&run, td, &dest.pub))
		run_into(maintain_plan(tp, MS_INS_ROWS, 0, NULL), NULL, &dest.pub, rows_receive, rows_startup);

	save_runs(&run);

	argtypes[0] = maintain_array_type(tp->part_type);
	argtypes[1] = TIMESTAMPTZARRAYOID;
	if (sensors_of(&run, PATH_SORTED, &args[0], NULL) > 0)
		run_plan(maintain_plan(tp, MS_INS_SORTED, 1, argtypes), args, SPI_OK_INSERT);
	if (sensors_of(&run, PATH_LATE, &args[0], &args[1]) > 0)
		correct_late(&run, args[0], args[1]);
	if (tp->entry->has_horizon)
		run_plan(maintain_plan(tp, MS_INS_PRUNE, 1, argtypes), &parts_array, SPI_OK_DELETE);

	/* opened to lock, and nothing written in place */
	if (run.stable != NULL)
		maintain_state_close(run.stable);
	sp_settings_end(nest);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	MemoryContextSwitchTo(old);
	MemoryContextDelete(run.cxt);
	return PointerGetDatum(NULL);
}
