/*
 * maintain_rerun.c
 *	  A correction's run of a sensor, in C (maintain_rerun.h).
 *
 * The run that MS_COR_RUN states in SQL sorts every reading since the base
 * checkpoint by (ts, value, key) inside an aggregate, with a ROW() built for
 * each: over 20 days of 1-minute readings that is most of a correction.
 * Here the readings come from the (sensor, ts) index in ts order and stream
 * into the run; where two have one ts, their order would be (value, key),
 * and the sensor is left to MS_COR_RUN.  What is saved is what MS_COR_RUN
 * saves: the state without emissions, the run's checkpoints (those there
 * already kept), the base checkpoint dropped when no segment begins right
 * after it any more, or the base as the state when no reading is left.
 * Of the results, those from the change on are written again: a change in
 * a sensor's last segment deletes and writes none (the result of the
 * segment before, stamped with the first reading after the base, stays).
 * The state is written in place of the row the correction locked.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"

#include "maintain_correct.h"
#include "maintain_rerun.h"
#include "maintain_state.h"
#include "pipeline_agg.h"
#include "sp_keyio.h"
#include "sp_settings.h"

/* at most this many sensors a call: corrections of a few; rebuilds stay in SQL */
#define RERUN_MAX_SENSORS 16

/*
 * The readings statement's plan is generic (made once, for any sensor and
 * time): estimated for a tenth of the table, it would be a bitmap scan and
 * a sort, where a correction reads the few readings since its checkpoint.
 * Made and run under these, it reads the (sensor, ts) index in order (and
 * the statement that deletes what the run replaces, the sensor's entries).
 */
static const SpSetting ordered_scan_settings[] = {
	{"enable_sort", "off"},
	{"enable_bitmapscan", "off"},
};

typedef struct RerunReceiver
{
	DestReceiver pub;
	AggState   *as;
	bool		array;
	Oid			key_type;
	bool		tie;			/* two readings of one ts: MS_COR_RUN's */
	bool		any;
	TimestampTz prev;
	MemoryContext rowcxt;
} RerunReceiver;

static void
rerun_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RerunReceiver *r = (RerunReceiver *) self;

	if (desc->natts != 3 || TupleDescAttr(desc, 0)->atttypid != TIMESTAMPTZOID ||
		TupleDescAttr(desc, 1)->atttypid != (r->array ? FLOAT8ARRAYOID : FLOAT8OID) ||
		TupleDescAttr(desc, 2)->atttypid != r->key_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the readings' columns no longer match the maintained results"),
				 errhint("Run segpipe_unmaintain() and segpipe_maintain() again.")));
}

static bool
rerun_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RerunReceiver *r = (RerunReceiver *) self;
	TimestampTz ts;
	MemoryContext old;

	slot_getallattrs(slot);
	/* (the statement's condition on ts leaves out NULL) */
	ts = DatumGetTimestampTz(slot->tts_values[0]);
	if (r->any && ts <= r->prev)
	{
		/* a tie (or rows out of ts order): the rest is of no use */
		r->tie = true;
		return false;
	}
	r->any = true;
	r->prev = ts;
	MemoryContextReset(r->rowcxt);
	old = MemoryContextSwitchTo(r->rowcxt);
	sp_agg_step_values(r->as, r->array, slot->tts_isnull[0], ts, slot->tts_isnull[1],
					   slot->tts_values[1], slot->tts_isnull[2], slot->tts_values[2]);
	MemoryContextSwitchTo(old);
	return true;
}

static void
rerun_done(DestReceiver *self)
{
}

static Datum
one_array(Datum *d, int n, Oid type)
{
	int16		len;
	bool		byval;
	char		align;

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_array(d, n, type, len, byval, align));
}

/* The key's collation, as the rows statement gives it (the aggregate's ROW() has it). */
static Oid
rows_key_collation(SPIPlanPtr p)
{
	List	   *sources = SPI_plan_get_plan_sources(p);
	CachedPlanSource *ps;

	if (list_length(sources) != 1)
		elog(ERROR, "segpipe's rows statement must be one query");
	ps = (CachedPlanSource *) linitial(sources);
	if (ps->resultDesc == NULL || ps->resultDesc->natts != 3)
		elog(ERROR, "segpipe's rows statement must return three columns");
	return TupleDescAttr(ps->resultDesc, 2)->attcollation;
}

/* where a sensor's state row is, as MS_COR_BASE found it */
typedef struct SavedState
{
	bool		found;
	ItemPointerData tid;
	Datum		part;			/* as stored */
} SavedState;

/*
 * The sensor's new state: written in place of its row, which MS_COR_LOCK
 * locked, when the state table is as segpipe_maintain made it
 * (maintain_state.h); else by MS_COR_SAVE.
 */
static void
save_state(MaintainPlans *mp, SavedState *saved, Datum part, Datum state)
{
	StateTable *t = NULL;

	if (saved->found)
		t = maintain_state_open(mp->entry->state_rel, mp->entry->part_col, mp->part_type,
								mp->pipeline_type);
	if (t != NULL)
	{
		maintain_state_write(t, &saved->tid, saved->part, state);
		maintain_state_close(t);
	}
	else
	{
		Oid			types[2] = {mp->part_type, mp->pipeline_type};
		Datum		v[2] = {part, state};

		maintain_run(maintain_plan(mp, MS_COR_SAVE, 2, types), v, NULL, SPI_OK_UPDATE);
	}
}

/*
 * One sensor: false when two of its readings share a ts (nothing written
 * then).
 */
static bool
rerun_sensor(MaintainPlans *mp, Datum part, Datum since, bool since_null, Datum excluded,
			 FunctionCallInfo fc, MemoryContext cxt, bool *had_readings)
{
	MaintainEntry *e = mp->entry;
	Oid			part_type = mp->part_type;
	Oid			argtypes[3] = {part_type, TIMESTAMPTZOID, OIDARRAYOID};
	Datum		v[3];
	char		nulls[3] = {' ', ' ', ' '};
	bool		has_base = false;
	TimestampTz from = 0;
	Datum		base = (Datum) 0;
	Datum		start;
	SPIPlanPtr	rows;
	RerunReceiver dest;
	SPIExecuteOptions options;
	ParamListInfo params;
	int			rc;
	int			knest;
	SavedState	saved;
	bool		replaced;
	/*
	 * Under beyond_horizon 'keep' the results need not be a run over the
	 * readings as they are (changes past the horizon were left out): what
	 * the run gives replaces everything after the base.
	 */
	bool		before_since_stays = e->beyond != BEYOND_KEEP;
	bool		all_after_base_gone = false;
	Datum		sv[2] = {part, since};
	char		snulls[2] = {' ', since_null ? 'n' : ' '};

	memset(&saved, 0, sizeof(saved));

	/*
	 * The base: the latest checkpoint before since, or the spec.  The
	 * readings before since are as they were, so the run gives again the
	 * results it gave before since (each is stamped with the reading that
	 * emitted it, and the readings come in ts order): those stay, and what
	 * comes after goes, by the sensor's index entries (MS_COR_DELETE's, for
	 * one), when there is any.
	 */
	maintain_run(maintain_plan(mp, MS_COR_BASE, 2, argtypes), sv, snulls, SPI_OK_SELECT);
	if (SPI_processed != 1 || SPI_tuptable->tupdesc->natts != 5)
		elog(ERROR, "segpipe's checkpoints: invalid base row");
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		d = SPI_getbinval(row, desc, 1, &isnull);

		if (!isnull)
		{
			from = DatumGetTimestampTz(d);
			d = SPI_getbinval(row, desc, 2, &isnull);
			if (isnull || SPI_gettypeid(desc, 2) != mp->pipeline_type)
				elog(ERROR, "segpipe's checkpoints: invalid checkpoint row");
			base = SPI_datumTransfer(d, false, -1);
			has_base = true;
		}
		/* the state row, where the state table's columns are still set-up's */
		d = SPI_getbinval(row, desc, 3, &isnull);
		if (!isnull && SPI_gettypeid(desc, 3) == TIDOID && SPI_gettypeid(desc, 4) == part_type)
		{
			ItemPointerCopy((ItemPointer) DatumGetPointer(d), &saved.tid);
			d = SPI_getbinval(row, desc, 4, &isnull);
			if (!isnull)
			{
				saved.part = datumCopy(d, TupleDescAttr(desc, 3)->attbyval, TupleDescAttr(desc, 3)->attlen);
				saved.found = true;
			}
		}
		d = SPI_getbinval(row, desc, 5, &isnull);
		replaced = isnull || SPI_gettypeid(desc, 5) != BOOLOID || DatumGetBool(d);
	}
	SPI_freetuptable(SPI_tuptable);
	if (!before_since_stays)
	{
		maintain_run(maintain_plan(mp, MS_COR_DELETE1, 2, argtypes), sv, snulls, SPI_OK_DELETE);
		all_after_base_gone = true;
	}
	else if (replaced)
		maintain_run(maintain_plan(mp, MS_COR_DELETE_SINCE, 2, argtypes), sv, snulls, SPI_OK_DELETE);
	start = has_base ? base : e->spec;

	/* the run, from the readings in ts order */
	if (ARR_NDIM(DatumGetArrayTypeP(excluded)) > 0)
		rows = maintain_plan(mp, MS_COR_ROWS, 3, argtypes);
	else
		rows = maintain_plan(mp, has_base ? MS_COR_ROWS_FROM : MS_COR_ROWS_ALL, 3, argtypes);
	memset(&dest, 0, sizeof(dest));
	dest.pub.receiveSlot = rerun_receive;
	dest.pub.rStartup = rerun_startup;
	dest.pub.rShutdown = rerun_done;
	dest.pub.rDestroy = rerun_done;
	dest.pub.mydest = DestNone;
	dest.array = mp->array;
	dest.key_type = e->key_type;
	dest.rowcxt = AllocSetContextCreate(cxt, "segpipe rerun row", ALLOCSET_DEFAULT_SIZES);
	knest = sp_keyio_hold(e->key_type);
	PG_TRY();
	{
		dest.as = sp_agg_begin(fc, start, e->key_type, rows_key_collation(rows), cxt);
	}
	PG_CATCH();
	{
		sp_keyio_abandon();
		PG_RE_THROW();
	}
	PG_END_TRY();
	sp_keyio_release(knest);
	sp_agg_keep_checkpoints(dest.as);
	*had_readings = false;
	if (sp_agg_has_vectors(dest.as))
	{
		/* vector emissions: MS_COR_RUN writes them, everything after the base */
		if (!all_after_base_gone)
			maintain_run(maintain_plan(mp, MS_COR_DELETE1, 2, argtypes), sv, snulls, SPI_OK_DELETE);
		return false;
	}

	params = makeParamList(3);
	params->params[0].value = part;
	params->params[0].isnull = false;
	params->params[0].ptype = part_type;
	params->params[1].value = TimestampTzGetDatum(from);
	params->params[1].isnull = !has_base;
	params->params[1].ptype = TIMESTAMPTZOID;
	params->params[2].value = excluded;
	params->params[2].isnull = false;
	params->params[2].ptype = OIDARRAYOID;
	for (int i = 0; i < 3; i++)
		params->params[i].pflags = PARAM_FLAG_CONST;
	memset(&options, 0, sizeof(options));
	options.params = params;
	options.dest = &dest.pub;
	rc = SPI_execute_plan_extended(rows, &options);
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "segpipe's correction statement returned %s", SPI_result_code_string(rc));
	*had_readings = dest.any;
	if (dest.tie)
	{
		/* nothing written: MS_COR_RUN writes everything after the base */
		if (!all_after_base_gone)
			maintain_run(maintain_plan(mp, MS_COR_DELETE1, 2, argtypes), sv, snulls, SPI_OK_DELETE);
		return false;
	}

	if (!dest.any)
	{
		/* no reading after the base: the base is the state, and goes as a checkpoint */
		if (has_base)
		{
			save_state(mp, &saved, part, base);
			v[0] = part;
			v[1] = TimestampTzGetDatum(from);
			maintain_run(maintain_plan(mp, MS_COR_STALE, 2, argtypes), v, nulls, SPI_OK_DELETE);
		}
		return true;
	}
	{
		SpKeyIO		io;
		Datum		state = (Datum) 0;	/* (set in PG_TRY; cppcheck cannot tell) */
		int			n_emit,
					n_ckpt;
		const Datum *keys;
		const AggEmission *em = sp_agg_emissions(dest.as, &n_emit, &keys);
		const Datum *ck = sp_agg_checkpoints(dest.as, &n_ckpt);
		const TimestampTz *ck_ts = sp_agg_checkpoint_times(dest.as);
		bool		from_again = false;

		sp_keyio_init(&io, e->key_type, CurrentMemoryContext);
		knest = sp_keyio_hold(e->key_type);
		PG_TRY();
		{
			state = sp_agg_state_datum(dest.as, &io);
		}
		PG_CATCH();
		{
			sp_keyio_abandon();
			PG_RE_THROW();
		}
		PG_END_TRY();
		sp_keyio_release(knest);
		save_state(mp, &saved, part, state);
		if (n_ckpt > 0)
		{
			Oid			t[3] = {maintain_array_type(part_type), TIMESTAMPTZARRAYOID,
			maintain_array_type(mp->pipeline_type)};
			Datum		a[3];
			Datum	   *p = palloc(sizeof(Datum) * n_ckpt);
			Datum	   *ts = palloc(sizeof(Datum) * n_ckpt);
			Datum	   *states = palloc(sizeof(Datum) * n_ckpt);
			int			n_new = 0;

			for (int k = 0; k < n_ckpt; k++)
			{
				/*
				 * The base taken again is there already (the statement
				 * would keep it: ON CONFLICT DO NOTHING); it stays.
				 */
				if (has_base && ck_ts[k] == from)
				{
					from_again = true;
					continue;
				}
				p[n_new] = part;
				ts[n_new] = TimestampTzGetDatum(ck_ts[k]);
				states[n_new++] = ck[k];
			}
			if (n_new > 0)
			{
				a[0] = one_array(p, n_new, part_type);
				a[1] = one_array(ts, n_new, TIMESTAMPTZOID);
				a[2] = one_array(states, n_new, mp->pipeline_type);
				maintain_run(maintain_plan(mp, MS_INS_CKPT, 3, t), a, NULL, SPI_OK_INSERT);
			}
		}
		if (has_base && !from_again)
		{
			v[0] = part;
			v[1] = TimestampTzGetDatum(from);
			maintain_run(maintain_plan(mp, MS_COR_STALE, 2, argtypes), v, nulls, SPI_OK_DELETE);
		}
		/* the results from since on: those before it stayed (MS_COR_DELETE_SINCE) */
		while (before_since_stays && n_emit > 0 && !since_null && em[0].ts < DatumGetTimestampTz(since))
		{
			em++;
			n_emit--;
		}
		if (n_emit > 0)
		{
			Oid			t[5] = {maintain_array_type(part_type), TIMESTAMPTZARRAYOID,
			maintain_array_type(e->key_type), INT4ARRAYOID, FLOAT8ARRAYOID};
			Datum		a[5];
			Datum	   *p = palloc(sizeof(Datum) * n_emit);
			Datum	   *ts = palloc(sizeof(Datum) * n_emit);
			Datum	   *k = palloc(sizeof(Datum) * n_emit);
			Datum	   *port = palloc(sizeof(Datum) * n_emit);
			Datum	   *val = palloc(sizeof(Datum) * n_emit);

			for (int i = 0; i < n_emit; i++)
			{
				p[i] = part;
				ts[i] = TimestampTzGetDatum(em[i].ts);
				k[i] = keys[em[i].seg];
				port[i] = Int32GetDatum(em[i].port + 1);
				val[i] = Float8GetDatum(em[i].value);
			}
			a[0] = one_array(p, n_emit, part_type);
			a[1] = one_array(ts, n_emit, TIMESTAMPTZOID);
			a[2] = one_array(k, n_emit, e->key_type);
			a[3] = one_array(port, n_emit, INT4OID);
			a[4] = one_array(val, n_emit, FLOAT8OID);
			maintain_run(maintain_plan(mp, MS_INS_EMIT, 5, t), a, NULL, SPI_OK_INSERT);
		}
	}
	return true;
}

/* the sensors of parts, when maintain_rerun takes them */
static bool
sensors_of(MaintainPlans *mp, Datum parts, Datum **elems, int *n)
{
	ArrayType  *a = DatumGetArrayTypeP(parts);
	bool	   *enulls;
	int16		len;
	bool		byval;
	char		align;

	/* heartbeats are rows of their own table, merged by MS_COR_RUN */
	if (OidIsValid(mp->entry->hb_rel) || ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != mp->part_type)
		return false;
	get_typlenbyvalalign(ARR_ELEMTYPE(a), &len, &byval, &align);
	deconstruct_array(a, ARR_ELEMTYPE(a), len, byval, align, elems, &enulls, n);
	/* sensors told apart by image only where equality is the image's */
	if (*n > RERUN_MAX_SENSORS || (*n > 1 && type_is_collatable(ARR_ELEMTYPE(a))))
		return false;
	/* each sensor once (MS_COR_RUN takes them DISTINCT) */
	for (int i = 0; i < *n; i++)
	{
		if (enulls[i])
			return false;
		for (int j = 0; j < i; j++)
			if (datum_image_eq((*elems)[i], (*elems)[j], byval, len))
				return false;
	}
	return true;
}

bool
maintain_rerun_takes(MaintainPlans *mp, Datum parts)
{
	Datum	   *elems;
	int			n;

	return sensors_of(mp, parts, &elems, &n);
}

Datum
maintain_rerun(MaintainPlans *mp, Datum parts, Datum since, Datum excluded, bool *all_had_readings)
{
	Datum	   *elems;
	Datum	   *from;
	bool	   *fnulls;
	int			n,
				n_from;
	Datum	   *left;
	int			n_left = 0;
	MemoryContext cxt,
				old;
	int			snest;
	LOCAL_FCINFO(fc, 0);

	if (!sensors_of(mp, parts, &elems, &n))
		elog(ERROR, "segpipe's correction in C does not take these sensors");
	deconstruct_array(DatumGetArrayTypeP(since), TIMESTAMPTZOID, sizeof(TimestampTz), FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &from, &fnulls, &n_from);
	if (n_from != n)
		elog(ERROR, "segpipe's correction: %d sensors, %d times", n, n_from);
	*all_had_readings = true;
	left = palloc(sizeof(Datum) * Max(n, 1));
	InitFunctionCallInfoData(*fc, &mp->flinfo, 0, InvalidOid, NULL, NULL);
	cxt = AllocSetContextCreate(CurrentMemoryContext, "segpipe rerun", ALLOCSET_DEFAULT_SIZES);
	/* (the other statements here have no sort or bitmap scan to lose) */
	snest = sp_settings_begin(ordered_scan_settings, lengthof(ordered_scan_settings),
							  SP_SETTINGS_ALL(lengthof(ordered_scan_settings)));
	for (int i = 0; i < n; i++)
	{
		bool		done;
		bool		had;

		old = MemoryContextSwitchTo(cxt);
		done = rerun_sensor(mp, elems[i], from[i], fnulls[i], excluded, fc, cxt, &had);
		/* (a sensor left to MS_COR_RUN was not read to the end) */
		if (!done || !had)
			*all_had_readings = false;
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
		if (!done)
			left[n_left++] = elems[i];
	}
	sp_settings_end(snest);
	MemoryContextDelete(cxt);
	if (n_left == 0)
		return (Datum) 0;
	return one_array(left, n_left, mp->part_type);
}
