/*
 * maintain_correct.c
 *	  Corrections of maintained results, and the functions that run them:
 *	  segpipe_change_trigger() (UPDATE, DELETE, TRUNCATE of the readings),
 *	  segpipe_rebuild_sensors() and segpipe_close_silent() (the watermark's
 *	  heartbeats).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "maintain_changed.h"
#include "maintain_citus.h"
#include "maintain_correct.h"
#include "maintain_rerun.h"

PG_FUNCTION_INFO_V1(segpipe_change_trigger);
PG_FUNCTION_INFO_V1(segpipe_rebuild_sensors);
PG_FUNCTION_INFO_V1(segpipe_close_silent);

void
maintain_run(SPIPlanPtr p, Datum *values, const char *nulls, int expected)
{
	int			rc = SPI_execute_plan(p, values, nulls, false, 0);

	if (rc != expected)
		elog(ERROR, "segpipe's maintenance statement returned %s", SPI_result_code_string(rc));
}

/* the first row's column col of the last SELECT, copied out of SPI */
static Datum
first_value(int col, bool *isnull)
{
	Datum		d;
	Form_pg_attribute a;

	if (SPI_processed == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, isnull);
	if (*isnull)
		return d;
	a = TupleDescAttr(SPI_tuptable->tupdesc, col - 1);
	return SPI_datumTransfer(d, a->attbyval, a->attlen);
}

static Datum
empty_oids(void)
{
	return PointerGetDatum(construct_empty_array(OIDOID));
}

void
maintain_correct(MaintainPlans *mp, Datum parts, Datum since, Datum excluded)
{
	MaintainEntry *e = mp->entry;
	Oid			argtypes[5];
	Datum		v[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	bool		isnull;
	bool		all_had_readings = false;

	maintain_correct_argtypes(mp, argtypes);
	v[0] = parts;
	v[1] = since;
	v[2] = excluded != (Datum) 0 ? excluded : empty_oids();
	v[3] = parts;				/* touched: the checkpoints to prune */
	v[4] = e->spec;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/* the states of these sensors, new ones inserted, all locked in order */
	maintain_run(maintain_plan(mp, MS_COR_LOCK, 5, argtypes), v, nulls, SPI_OK_INSERT);
	if (e->beyond == BEYOND_KEEP)
	{
		/* changes older than the horizon behind their sensor's progress are left out */
		maintain_run(maintain_plan(mp, MS_COR_KEEP, 5, argtypes), v, nulls, SPI_OK_SELECT);
		v[0] = first_value(1, &isnull);
		if (isnull)
		{
			SPI_finish();
			return;
		}
		v[1] = first_value(2, &isnull);
	}
	else if (e->beyond == BEYOND_ERROR && e->has_horizon)
	{
		maintain_run(maintain_plan(mp, MS_COR_ERROR, 5, argtypes), v, nulls, SPI_OK_SELECT);
		if (SPI_processed > 0)
		{
			HeapTuple	t = SPI_tuptable->vals[0];
			TupleDesc	d = SPI_tuptable->tupdesc;

			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("change at %s is older than the horizon of %s", SPI_getvalue(t, d, 2), mp->results),
					 errdetail("%s %s has readings up to %s; checkpoints are kept for %s behind them.",
							   e->part_col, SPI_getvalue(t, d, 1), SPI_getvalue(t, d, 3),
							   DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&e->horizon)))),
					 errhint("Choose beyond_horizon => 'replay' at set-up to run the sensor again from its first reading.")));
		}
	}
	if (OidIsValid(e->hb_rel))
		maintain_run(maintain_plan(mp, MS_COR_HB_GONE, 5, argtypes), v, nulls, SPI_OK_DELETE);
	if (maintain_rerun_takes(mp, v[0]))
	{
		/* a few sensors run in C; those with ties in ts, by the statement */
		Datum		all = v[0];
		Datum		left = maintain_rerun(mp, v[0], v[1], v[2], &all_had_readings);

		if (left != (Datum) 0)
		{
			v[0] = left;
			maintain_run(maintain_plan(mp, MS_COR_RUN, 5, argtypes), v, nulls, SPI_OK_INSERT);
			v[0] = all;
		}
	}
	else
	{
		maintain_run(maintain_plan(mp, MS_COR_DELETE, 5, argtypes), v, nulls, SPI_OK_DELETE);
		maintain_run(maintain_plan(mp, MS_COR_RUN, 5, argtypes), v, nulls, SPI_OK_INSERT);
	}
	if (!all_had_readings)
		maintain_run(maintain_plan(mp, MS_COR_GONE, 5, argtypes), v, nulls, SPI_OK_DELETE);
	if (e->has_horizon)
		maintain_run(maintain_plan(mp, MS_COR_PRUNE, 5, argtypes), v, nulls, SPI_OK_DELETE);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
}

/* the leaf relations of rel's partition tree (rel itself when it has none) */
static Datum
leaves_of(Oid rel)
{
	List	   *all = find_all_inheritors(rel, NoLock, NULL);
	Datum	   *d = palloc(sizeof(Datum) * Max(list_length(all), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, all)
		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_PARTITIONED_TABLE)
			d[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	return PointerGetDatum(construct_array(d, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
}

void
maintain_correct_relation(MaintainPlans *mp, Oid rel, bool leave_out)
{
	MaintainEntry *e = mp->entry;
	char	   *relname = quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
													 get_rel_name(rel));
	Datum		parts,
				since;
	bool		isnull;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (e->beyond == BEYOND_KEEP)
	{
		/*
		 * each sensor from its earliest row of rel within the horizon, read
		 * with their states locked, in their order, so that no progress moves
		 */
		if (SPI_execute(psprintf("SELECT 1 FROM %1$s AS s WHERE s.%2$s %3$s ANY (ARRAY(SELECT DISTINCT r.%2$s FROM %4$s AS r)) "
								 "ORDER BY s.%2$s%5$s FOR UPDATE",
								 mp->state, mp->part, mp->eq_op, relname, mp->part_coll),
						false, 0) != SPI_OK_SELECT)
			elog(ERROR, "segpipe's lock of states failed");
		if (SPI_execute(psprintf("SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) "
								 "FROM (SELECT r.%1$s AS p, pg_catalog.min(r.%2$s) FILTER (WHERE %3$s.pipeline_progress(s.state) IS NULL "
								 "OR r.%2$s >= %3$s.pipeline_progress(s.state) - %4$s::pg_catalog.interval) AS t "
								 "FROM %5$s AS r LEFT JOIN %6$s AS s ON s.%1$s %7$s r.%1$s GROUP BY 1) AS c "
								 "WHERE c.t IS NOT NULL",
								 mp->part, mp->ts, mp->ext, mp->horizon, relname, mp->state, mp->eq_op),
						false, 0) != SPI_OK_SELECT)
			elog(ERROR, "segpipe's read of sensors failed");
	}
	else if (SPI_execute(psprintf("SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) "
								  "FROM (SELECT r.%1$s AS p, pg_catalog.min(r.%2$s) AS t FROM %3$s AS r GROUP BY 1) AS c",
								  mp->part, mp->ts, relname),
						 false, 0) != SPI_OK_SELECT)
		elog(ERROR, "segpipe's read of sensors failed");
	parts = first_value(1, &isnull);
	if (!isnull)
	{
		since = first_value(2, &isnull);
		maintain_correct(mp, parts, since, leave_out ? leaves_of(rel) : (Datum) 0);
	}
	SPI_finish();
}

/* ---- the triggers' checks ---- */

/*
 * On a Citus node, the local row of the shard group whose readings shard
 * rel is, of the coordinator's row shard_of (its id is what the triggers
 * Citus copies onto every shard carry): remembered per backend until the
 * catalog changes.  0 when there is none.
 */
static int32
shard_row(int32 shard_of, Oid rel)
{
	static struct
	{
		int32		shard_of;
		Oid			rel;
		int32		id;
	}			seen[16];
	static int	nseen = 0;
	static uint64 seen_at = 0;
	MaintainEntry *e;

	if (seen_at != maintain_catalog_changes())
	{
		nseen = 0;
		seen_at = maintain_catalog_changes();
	}
	for (int i = 0; i < nseen; i++)
		if (seen[i].shard_of == shard_of && seen[i].rel == rel)
			return seen[i].id;
	e = maintain_entry_of_shard(shard_of, rel);
	if (e == NULL)
		return 0;
	if (nseen == lengthof(seen))
		nseen = 0;
	seen[nseen].shard_of = shard_of;
	seen[nseen].rel = rel;
	seen[nseen++].id = e->id;
	return e->id;
}

MaintainPlans *
maintain_trigger_plans(TriggerData *td, const char *fn)
{
	Trigger    *tg = td->tg_trigger;
	Oid			rel = RelationGetRelid(td->tg_relation);
	char	   *end;
	long		id;
	MaintainEntry *e;
	MaintainPlans *mp;
	bool		partition = tg->tgnargs == 2 && strcmp(tg->tgargs[1], "partition") == 0;
	bool		citus = tg->tgnargs == 2 && strcmp(tg->tgargs[1], "citus") == 0;

	if (tg->tgnargs >= 1 && strncmp(tg->tgargs[0], "segpipe insert ", strlen("segpipe insert ")) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on \"%s\" was made by segpipe 0.9.0 or earlier",
						tg->tgname, RelationGetRelationName(td->tg_relation)),
				 errdetail("Since 0.10.0 the triggers of maintained results carry the id of their row in segpipe's catalog, and no SQL."),
				 errhint("Run ALTER EXTENSION segpipe UPDATE: it moves every results table onto the catalog.")));
	if (tg->tgnargs < 1 || tg->tgnargs > 2 || tg->tgargs[0][0] < '1' || tg->tgargs[0][0] > '9' ||
		(id = strtol(tg->tgargs[0], &end, 10), *end != '\0') || id > PG_INT32_MAX ||
		(tg->tgnargs == 2 && !partition && !citus))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" on \"%s\" was not made by segpipe_maintain()",
						tg->tgname, RelationGetRelationName(td->tg_relation)),
				 errdetail("%s() takes the id of a row of segpipe's catalog of maintained results.", fn)));

	/*
	 * Citus copies the triggers of distributed readings onto every shard,
	 * with the coordinator's id: on the coordinator's own table (where only
	 * a TRUNCATE fires them) that row is the coordinator's; on a shard it is
	 * the row of that shard group, found by the coordinator's id and the
	 * shard (looked for first: shards fire for every change).  A shard
	 * without one (moved or split here by Citus) gets it from the set-up's
	 * row that Citus copies to every node; one that cannot refuses the
	 * change: it would not be maintained.
	 */
	if (citus)
	{
		int32		local = shard_row((int32) id, rel);
		bool		same;
		bool		coordinator = false;

		if (local == 0)
		{
			e = maintain_entry_fresh((int32) id, NULL, &same);
			coordinator = e != NULL && e->shard_of == 0 && rel == e->readings;
			if (!coordinator)
				local = maintain_citus_adopt((int32) id, rel);
		}
		if (local != 0)
			id = local;
		else if (!coordinator)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("shard \"%s\" of maintained readings is not attached on this node",
							RelationGetRelationName(td->tg_relation)),
					 errdetail("segpipe's catalog here has no row of its shard group for the coordinator's row %ld; the change would not be maintained.",
							   id),
					 errhint("Run segpipe_attach_shards() on the coordinator for the results table: it attaches the shard groups moved or split onto a node, and copies the set-up to every node again.")));
	}
	/* checked before anything of the row's is locked or looked up */
	mp = maintain_plans_entry((int32) id);
	e = mp != NULL ? mp->entry : NULL;
	if (e == NULL ||
		(partition ? !get_rel_relispartition(rel) ||
		 !list_member_oid(get_partition_ancestors(rel), e->readings)
		 : rel != e->readings))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" on \"%s\" was not made by segpipe_maintain()",
						tg->tgname, RelationGetRelationName(td->tg_relation)),
				 errdetail(e == NULL ? "segpipe's catalog of maintained results has no row %ld."
						   : "Row %ld of segpipe's catalog of maintained results is of other readings.", id)));
	/* one trigger of a row per event on a relation: a second would maintain twice */
	for (int i = 0; i < td->tg_relation->trigdesc->numtriggers; i++)
	{
		Trigger    *t = &td->tg_relation->trigdesc->triggers[i];

		if (t->tgoid != tg->tgoid && t->tgfoid == tg->tgfoid && t->tgnargs >= 1 &&
			strcmp(t->tgargs[0], tg->tgargs[0]) == 0 &&
			(t->tgtype & tg->tgtype & (TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE |
									   TRIGGER_TYPE_DELETE | TRIGGER_TYPE_TRUNCATE)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
					 errmsg("triggers \"%s\" and \"%s\" on \"%s\" both maintain row %ld of segpipe's catalog",
							tg->tgname, t->tgname, RelationGetRelationName(td->tg_relation), id),
					 errdetail("segpipe_maintain() makes one trigger per event; a second would run every change twice."),
					 errhint("Drop the trigger that segpipe_maintain() did not make.")));
	}
	maintain_plans_ready(mp);
	return mp;
}

/* ---- segpipe_change_trigger ---- */

/*
 * A TRUNCATE of a partitioned table fires the truncate trigger of each
 * partition too, after its own: what the table's truncate did covers them.
 * The relations done in this statement are kept here, in the backend,
 * where no role can set them.
 */
static struct
{
	TransactionId xid;
	TimestampTz stmt;
	List	   *done;			/* (id, relid) pairs, as two ints each */
}			truncated;

static bool
truncate_covered(int32 id, Oid rel)
{
	List	   *ancestors;
	ListCell   *lc;

	if (truncated.xid != GetTopTransactionId() || truncated.stmt != GetCurrentStatementStartTimestamp())
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		list_free(truncated.done);
		truncated.done = NIL;
		truncated.xid = GetTopTransactionId();
		truncated.stmt = GetCurrentStatementStartTimestamp();
		MemoryContextSwitchTo(old);
	}
	ancestors = get_rel_relispartition(rel) ? get_partition_ancestors(rel) : NIL;
	for (lc = list_head(truncated.done); lc != NULL; lc = lnext(truncated.done, lnext(truncated.done, lc)))
		if (lfirst_int(lc) == id && list_member_oid(ancestors, (Oid) lfirst_int(lnext(truncated.done, lc))))
			return true;
	return false;
}

static void
truncate_done(int32 id, Oid rel)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	truncated.done = lappend_int(truncated.done, id);
	truncated.done = lappend_int(truncated.done, (int) rel);
	MemoryContextSwitchTo(old);
}

/* the (parts, since) a change gives, read here or by its statement, then the correction */
static void
correct_from(MaintainPlans *mp, TriggerData *td, MaintainStatement which)
{
	Datum		parts,
				since;
	bool		isnull;

	if (!maintain_changed(mp, td, &parts, &since))
	{
		if (SPI_execute_plan(maintain_plan(mp, which, 0, NULL), NULL, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "segpipe's change statement failed");
		parts = first_value(1, &isnull);
		if (isnull)
			return;
		since = first_value(2, &isnull);
	}
	else if (parts == (Datum) 0)
		return;
	maintain_correct(mp, parts, since, (Datum) 0);
}

Datum
segpipe_change_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	MaintainPlans *mp;
	int			nest;
	TriggerEvent ev;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("segpipe_change_trigger() was not called by trigger manager")));
	ev = td->tg_event;
	if (!TRIGGER_FIRED_FOR_STATEMENT(ev) ||
		(TRIGGER_FIRED_BY_UPDATE(ev) && !(TRIGGER_FIRED_AFTER(ev) && td->tg_oldtable && td->tg_newtable)) ||
		(TRIGGER_FIRED_BY_DELETE(ev) && !(TRIGGER_FIRED_AFTER(ev) && td->tg_oldtable)) ||
		(TRIGGER_FIRED_BY_TRUNCATE(ev) && !TRIGGER_FIRED_BEFORE(ev)) ||
		TRIGGER_FIRED_BY_INSERT(ev))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("segpipe_change_trigger() must be fired FOR EACH STATEMENT, AFTER UPDATE or DELETE with its transition tables, or BEFORE TRUNCATE"),
				 errhint("Inserts are maintained by segpipe_insert_trigger().")));

	nest = sp_settings_begin(maintain_settings, maintain_n_settings,
							 SP_SETTINGS_ALL(maintain_n_settings));
	mp = maintain_trigger_plans(td, "segpipe_change_trigger");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (TRIGGER_FIRED_BY_TRUNCATE(ev))
	{
		Oid			rel = RelationGetRelid(td->tg_relation);

		if (!truncate_covered(mp->id, rel))
		{
			if (td->tg_trigger->tgnargs == 1 || strcmp(td->tg_trigger->tgargs[1], "citus") == 0)
			{
				/*
				 * the readings (or, with Citus, the distributed readings on
				 * the coordinator: Citus fires no truncate trigger on the
				 * shards): everything goes
				 */
				static const MaintainStatement clear[] = {MS_CHG_CLEAR_HB, MS_CHG_CLEAR_RESULTS,
				MS_CHG_CLEAR_CKPT, MS_CHG_CLEAR_STATE};

				for (int i = 0; i < lengthof(clear); i++)
					if (clear[i] != MS_CHG_CLEAR_HB || OidIsValid(mp->entry->hb_rel))
						maintain_run(maintain_plan(mp, clear[i], 0, NULL), NULL, NULL, SPI_OK_DELETE);
			}
			else
				maintain_correct_relation(mp, rel, true);
			truncate_done(mp->id, rel);
		}
	}
	else
	{
		if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
			elog(ERROR, "SPI_register_trigger_data failed");
		correct_from(mp, td, TRIGGER_FIRED_BY_UPDATE(ev) ? MS_CHG_UPDATE : MS_CHG_DELETE);
	}
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	sp_settings_end(nest);
	return PointerGetDatum(NULL);
}

/* ---- segpipe_rebuild_sensors, segpipe_close_silent ---- */

/*
 * Sensors run again from their first reading, REBUILD_BATCH at a time (in
 * their order, as one correction would lock them), saying how far the work
 * is, at most every PROGRESS_EVERY_MS, when it takes longer than that: a
 * set-up or rebuild over millions of readings otherwise runs silently for
 * minutes.  The readings are counted only then (the total once, those of
 * the sensors done since the last report each time), so that work that
 * ends sooner counts nothing.
 */
#define REBUILD_BATCH 256
#define PROGRESS_EVERY_MS 5000

/* how many readings the sensors parts[0 .. n) have (in the caller's SPI connection) */
static int64
readings_of(MaintainPlans *mp, Datum *parts, int n, Oid elem, int16 len, bool byval, char align)
{
	Oid			argtypes[5];
	Datum		v;
	Datum		d;
	bool		isnull;

	if (n == 0)
		return 0;
	maintain_correct_argtypes(mp, argtypes);
	v = PointerGetDatum(construct_array(parts, n, elem, len, byval, align));
	maintain_run(maintain_plan(mp, MS_REBUILD_COUNT, 1, argtypes), &v, NULL, SPI_OK_SELECT);
	d = first_value(1, &isnull);
	return isnull ? 0 : DatumGetInt64(d);
}

static int64
rebuild_in_batches(MaintainPlans *mp, ArrayType *a)
{
	Oid			elem = ARR_ELEMTYPE(a);
	int16		len;
	bool		byval;
	char		align;
	Datum	   *parts;
	int			count;
	Datum		inf[REBUILD_BATCH];
	TimestampTz start = GetCurrentTimestamp();
	TimestampTz said = start;
	int64		total = -1;		/* readings of all the sensors, once counted */
	int64		readings_done = 0;	/* of the sensors before counted */
	int			counted = 0;

	get_typlenbyvalalign(elem, &len, &byval, &align);
	deconstruct_array(a, elem, len, byval, align, &parts, NULL, &count);
	for (int i = 0; i < REBUILD_BATCH; i++)
		inf[i] = TimestampTzGetDatum(DT_NOBEGIN);
	for (int done = 0; done < count;)
	{
		int			n = Min(REBUILD_BATCH, count - done);
		TimestampTz now;

		CHECK_FOR_INTERRUPTS();
		maintain_correct(mp,
						 PointerGetDatum(construct_array(parts + done, n, elem, len, byval, align)),
						 PointerGetDatum(construct_array(inf, n, TIMESTAMPTZOID, sizeof(TimestampTz),
														 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)),
						 (Datum) 0);
		done += n;
		now = GetCurrentTimestamp();
		if (done < count && TimestampDifferenceExceeds(said, now, PROGRESS_EVERY_MS))
		{
			long		ms;
			double		left;

			if (total < 0)
				total = readings_of(mp, parts, count, elem, len, byval, align);
			readings_done += readings_of(mp, parts + counted, done - counted, elem, len, byval, align);
			counted = done;
			ms = TimestampDifferenceMilliseconds(start, now);
			/* what is left, at the pace so far: by readings, or by sensors when none were read */
			if (readings_done > 0)
				left = (double) ms / readings_done * (total - readings_done);
			else
				left = (double) ms / done * (count - done);
			ereport(NOTICE,
					(errmsg("%s: %d of %d sensors and " INT64_FORMAT " of " INT64_FORMAT " readings run again, about %ld s left",
							get_rel_name(mp->entry->results), done, count, readings_done, total,
							(long) (left / 1000.0 + 0.5)),
					 errdetail("%ld s so far.", ms / 1000)));
			/* the counting is not the work's: the next report is due a full interval later */
			said = GetCurrentTimestamp();
		}
	}
	return count;
}

/*
 * segpipe_rebuild_sensors(results, sensors text): runs sensors again from
 * their first reading: every sensor with readings or a state (sensors
 * NULL), or those of sensors, the text of an array of the sensor column's
 * type.  Returns how many.
 */
Datum
segpipe_rebuild_sensors(PG_FUNCTION_ARGS)
{
	MaintainEntry *e;
	MaintainPlans *mp;
	int			nest;
	Datum		parts;
	bool		isnull;
	int64		n = 0;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"results\" must not be null")));
	e = maintain_entry_required(PG_GETARG_OID(0));
	/* on the Citus coordinator: every shard group, on its node */
	if (e->shard_of == 0 && maintain_citus_distributed(e->readings))
		PG_RETURN_INT64(maintain_citus_shards(e->results, "rebuild",
											  PG_ARGISNULL(1) ? NULL : TextDatumGetCString(PG_GETARG_DATUM(1))));
	nest = sp_settings_begin(maintain_settings, maintain_n_settings,
							 SP_SETTINGS_ALL(maintain_n_settings));
	mp = maintain_plans_for(e->id);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (PG_ARGISNULL(1))
		maintain_run(maintain_plan(mp, MS_REBUILD_ALL, 0, NULL), NULL, NULL, SPI_OK_SELECT);
	else
	{
		Oid			t = TEXTOID;
		Datum		v = PG_GETARG_DATUM(1);

		if (SPI_execute_with_args(psprintf("SELECT pg_catalog.array_agg(u.p ORDER BY u.p) FROM "
										   "(SELECT DISTINCT x.p FROM pg_catalog.unnest($1::%s[]) AS x(p)) AS u(p)",
										   mp->part_typ),
								  1, &t, &v, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "segpipe's read of sensors failed");
	}
	parts = first_value(1, &isnull);
	if (!isnull)
		n = rebuild_in_batches(mp, DatumGetArrayTypeP(parts));
	SPI_finish();
	sp_settings_end(nest);
	PG_RETURN_INT64(n);
}

/*
 * segpipe_close_silent(results, at): applies to each sensor behind at minus
 * the watermark the heartbeats due since its progress, as the insert
 * trigger's sorted statement applies rows, and records them; returns how
 * many.
 */
Datum
segpipe_close_silent(PG_FUNCTION_ARGS)
{
	MaintainEntry *e;
	MaintainPlans *mp;
	int			nest;
	TimestampTz at;
	Datum		w;
	Datum		v[2];
	Oid			argtypes[2];
	bool		isnull;
	int64		n = 0;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"results\" must not be null")));
	e = maintain_entry_required(PG_GETARG_OID(0));
	if (!e->has_watermark)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" has no watermark", get_rel_name(e->results)),
				 errdetail("It was set up without watermark => ..., so it has no heartbeats to apply."),
				 errhint("Run segpipe_unmaintain() and segpipe_maintain() again with a watermark and heartbeats.")));
	if (PG_ARGISNULL(1) || TIMESTAMP_NOT_FINITE(PG_GETARG_TIMESTAMPTZ(1)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid time for heartbeats: %s",
						PG_ARGISNULL(1) ? "NULL" : DatumGetCString(DirectFunctionCall1(timestamptz_out, PG_GETARG_DATUM(1)))),
				 errdetail("It must be a finite timestamp.")));
	at = PG_GETARG_TIMESTAMPTZ(1);
	nest = sp_settings_begin(maintain_settings, maintain_n_settings,
							 SP_SETTINGS_ALL(maintain_n_settings));
	/*
	 * on the Citus coordinator: every shard group, on its node (the time as
	 * text in the fixed settings, ISO in UTC, which read the same anywhere)
	 */
	if (e->shard_of == 0 && maintain_citus_distributed(e->readings))
	{
		n = maintain_citus_shards(e->results, "close",
								  DatumGetCString(DirectFunctionCall1(timestamptz_out, PG_GETARG_DATUM(1))));
		sp_settings_end(nest);
		PG_RETURN_INT64(n);
	}
	mp = maintain_plans_for(e->id);
	w = DirectFunctionCall2(timestamptz_mi_interval, TimestampTzGetDatum(at),
							IntervalPGetDatum(&mp->entry->watermark));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	argtypes[0] = TIMESTAMPTZOID;
	argtypes[1] = maintain_array_type(mp->part_type);
	v[0] = w;
	maintain_run(maintain_plan(mp, MS_CLOSE_LOCK, 1, argtypes), v, NULL, SPI_OK_SELECT);
	v[1] = first_value(1, &isnull);
	if (!isnull)
	{
		Datum		c;

		maintain_run(maintain_plan(mp, MS_CLOSE_RUN, 2, argtypes), v, NULL, SPI_OK_SELECT);
		c = first_value(1, &isnull);
		n = isnull ? 0 : DatumGetInt64(c);
		if (mp->entry->has_horizon)
			maintain_run(maintain_plan(mp, MS_INS_PRUNE, 1, &argtypes[1]), &v[1], NULL, SPI_OK_DELETE);
	}
	SPI_finish();
	sp_settings_end(nest);
	PG_RETURN_INT64(n);
}
