/*
 * maintain_sql.c
 *	  The statements that maintain a results table, built from its catalog
 *	  row and kept per backend (maintain_sql.h).
 *
 * Each statement is what segpipe_maintain of 0.9.0 wrote into the
 * functions it generated per results table, and into the insert trigger's
 * arguments; built here, from the catalog, the same text serves every
 * results table and no SQL travels through a trigger's arguments.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/hsearch.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "sp_compat.h"
#include "maintain_sql.h"

const SpSetting maintain_settings[] = {
	{"search_path", "pg_catalog, pg_temp"},
	{"TimeZone", "UTC"},
	{"DateStyle", "ISO, YMD"},
	{"IntervalStyle", "postgres"},
	{"jit", "off"},
};
const int	maintain_n_settings = lengthof(maintain_settings);

static HTAB *all_plans = NULL;

/* bumped by every change that may change a name the statements hold */
static uint64 names_generation = 1;

/* ---- invalidation ---- */

static void
relcache_changed(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	MaintainPlans *mp;

	if (all_plans == NULL)
		return;
	hash_seq_init(&seq, all_plans);
	while ((mp = hash_seq_search(&seq)) != NULL)
	{
		MaintainEntry *e = mp->entry;

		if (e == NULL || relid == InvalidOid || relid == e->readings || relid == e->state_rel ||
			relid == e->results || relid == e->ckpt_rel || relid == e->hb_rel)
			mp->valid = false;
	}
}

static void
syscache_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	names_generation++;
}

/*
 * A type changed: only the key's and the sensor column's types are named in
 * the statements (every CREATE TABLE makes a row type, which changes no
 * name they hold).
 */
static void
type_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS seq;
	MaintainPlans *mp;

	if (all_plans == NULL || hashvalue == 0)
	{
		names_generation++;
		return;
	}
	hash_seq_init(&seq, all_plans);
	while ((mp = hash_seq_search(&seq)) != NULL)
		if (mp->entry != NULL &&
			(GetSysCacheHashValue1(TYPEOID, ObjectIdGetDatum(mp->entry->key_type)) == hashvalue ||
			 (OidIsValid(mp->part_type) &&
			  GetSysCacheHashValue1(TYPEOID, ObjectIdGetDatum(mp->part_type)) == hashvalue)))
			mp->valid = false;
}

Oid
maintain_array_type(Oid elem)
{
	Oid			t = get_array_type(elem);

	if (!OidIsValid(t))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type %s has no array type", format_type_be(elem))));
	return t;
}

/* ---- names ---- */

static char *
rel_name(Oid relid, const char *what)
{
	char	   *rel = get_rel_name(relid);
	char	   *nsp;

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the %s of maintained results (relation %u) does not exist", what, relid),
				 errhint("Run segpipe_unmaintain() on the results table.")));
	nsp = get_namespace_name(get_rel_namespace(relid));
	return quote_qualified_identifier(nsp, rel);
}

/* a column of the readings, by name: its attribute */
static HeapTuple
readings_column(const MaintainEntry *e, const char *col)
{
	HeapTuple	t = SearchSysCacheAttName(e->readings, col);

	if (!HeapTupleIsValid(t))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", col, get_rel_name(e->readings)),
				 errdetail("segpipe maintains results from it.")));
	return t;
}

static char *
interval_literal(const Interval *i)
{
	return quote_literal_cstr(DatumGetCString(DirectFunctionCall1(interval_out,
																  IntervalPGetDatum(i))));
}

/* the equality of the state table's primary key, OPERATOR(schema.=) */
static char *
state_key_equality(Oid state_rel)
{
	Relation	rel = table_open(state_rel, AccessShareLock);
	Oid			pk = SP_PRIMARY_KEY_INDEX(rel);
	HeapTuple	it;
	Form_pg_index index;
	Datum		d;
	bool		isnull;
	oidvector  *classes;
	HeapTuple	ct;
	Form_pg_opclass oc;
	Oid			op;
	HeapTuple	ot;
	char	   *out;

	table_close(rel, AccessShareLock);
	if (!OidIsValid(pk) || !HeapTupleIsValid(it = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pk))))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("state table \"%s\" has no primary key", get_rel_name(state_rel)),
				 errdetail("segpipe_maintain() made it with one; its sensors are told apart by it.")));
	index = (Form_pg_index) GETSTRUCT(it);
	d = SysCacheGetAttr(INDEXRELID, it, Anum_pg_index_indclass, &isnull);
	classes = (oidvector *) DatumGetPointer(d);
	if (isnull || index->indnkeyatts != 1)
		elog(ERROR, "state table's primary key is not of one column");
	ct = SearchSysCache1(CLAOID, ObjectIdGetDatum(classes->values[0]));
	if (!HeapTupleIsValid(ct))
		elog(ERROR, "cache lookup failed for operator class %u", classes->values[0]);
	oc = (Form_pg_opclass) GETSTRUCT(ct);
	op = get_opfamily_member(oc->opcfamily, oc->opcintype, oc->opcintype, BTEqualStrategyNumber);
	ReleaseSysCache(ct);
	ReleaseSysCache(it);
	if (!OidIsValid(op) || !HeapTupleIsValid(ot = SearchSysCache1(OPEROID, ObjectIdGetDatum(op))))
		elog(ERROR, "state table's key has no equality");
	out = psprintf("OPERATOR(%s.%s)",
				   quote_identifier(get_namespace_name(((Form_pg_operator) GETSTRUCT(ot))->oprnamespace)),
				   NameStr(((Form_pg_operator) GETSTRUCT(ot))->oprname));
	ReleaseSysCache(ot);
	return out;
}

static void
look_up_names(MaintainPlans *mp)
{
	MaintainEntry *e = mp->entry;
	HeapTuple	t;
	Form_pg_attribute a;
	StringInfoData s;
	Relation	rel;
	TupleDesc	desc;
	TypeCacheEntry *tc;

	mp->ext = pstrdup(quote_identifier(get_namespace_name(maintain_extension_schema())));
	mp->readings = rel_name(e->readings, "readings");
	mp->state = rel_name(e->state_rel, "state table");
	mp->results = rel_name(e->results, "results table");
	mp->ckpt = rel_name(e->ckpt_rel, "checkpoint table");
	mp->hb = OidIsValid(e->hb_rel) ? rel_name(e->hb_rel, "heartbeat table") : NULL;
	mp->part = pstrdup(quote_identifier(e->part_col));
	mp->ts = pstrdup(quote_identifier(e->ts_col));
	mp->value = pstrdup(quote_identifier(e->value_col));

	t = readings_column(e, e->part_col);
	a = (Form_pg_attribute) GETSTRUCT(t);
	mp->part_type = a->atttypid;
	mp->part_typ = format_type_with_typemod(a->atttypid, a->atttypmod);
	if (OidIsValid(a->attcollation) && a->attcollation != get_typcollation(a->atttypid))
	{
		HeapTuple	c = SearchSysCache1(COLLOID, ObjectIdGetDatum(a->attcollation));

		if (!HeapTupleIsValid(c))
			elog(ERROR, "cache lookup failed for collation %u", a->attcollation);
		mp->part_coll = psprintf(" COLLATE %s",
								 quote_qualified_identifier(get_namespace_name(((Form_pg_collation) GETSTRUCT(c))->collnamespace),
															NameStr(((Form_pg_collation) GETSTRUCT(c))->collname)));
		ReleaseSysCache(c);
	}
	else
		mp->part_coll = "";
	ReleaseSysCache(t);

	t = readings_column(e, e->value_col);
	a = (Form_pg_attribute) GETSTRUCT(t);
	if (a->atttypid != FLOAT8OID && a->atttypid != FLOAT8ARRAYOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is of type %s, not double precision or double precision[]",
						e->value_col, get_rel_name(e->readings), format_type_be(a->atttypid))));
	mp->array = a->atttypid == FLOAT8ARRAYOID;
	mp->v_type = mp->array ? "pg_catalog.float8[]" : "pg_catalog.float8";
	ReleaseSysCache(t);
	t = readings_column(e, e->ts_col);
	if (((Form_pg_attribute) GETSTRUCT(t))->atttypid != TIMESTAMPTZOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is not of type timestamp with time zone",
						e->ts_col, get_rel_name(e->readings))));
	ReleaseSysCache(t);

	mp->key_typ = format_type_be(e->key_type);
	tc = lookup_type_cache(e->key_type, TYPECACHE_LT_OPR);
	mp->key_ord = OidIsValid(tc->lt_opr) ? "x.k" : "x.k::pg_catalog.text";
	mp->eq_op = state_key_equality(e->state_rel);
	mp->pipeline_type = maintain_pipeline_type();
	mp->horizon = e->has_horizon ? interval_literal(&e->horizon) : NULL;
	mp->watermark = e->has_watermark ? interval_literal(&e->watermark) : NULL;

	/* a heartbeat's row: its sensor's latest reading, at the heartbeat's ts, without a value */
	initStringInfo(&s);
	rel = table_open(e->readings, AccessShareLock);
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *n = NameStr(att->attname);

		if (att->attisdropped)
			continue;
		if (s.len > 0)
			appendStringInfoString(&s, ", ");
		if (strcmp(n, e->ts_col) == 0)
			appendStringInfo(&s, "segpipe_hb.segpipe_h AS %s", quote_identifier(n));
		else if (strcmp(n, e->value_col) == 0)
			appendStringInfo(&s, "NULL::%s AS %s", mp->v_type, quote_identifier(n));
		else
			appendStringInfo(&s, "segpipe_l.%s", quote_identifier(n));
	}
	table_close(rel, AccessShareLock);
	mp->hb_cols = s.data;
}

/* ---- the statements ---- */

/* the aggregate call of a run from base over rows x */
static char *
run_call(MaintainPlans *mp, const char *base)
{
	return psprintf("%s.pipeline_agg_checkpoints(x.ts, x.v, ROW(x.k), %s ORDER BY x.ts, x.v, %s)",
					mp->ext, base, mp->key_ord);
}

/* checkpoints older than the horizon behind their sensor's progress, but the latest of them */
static char *
prune_sql(MaintainPlans *mp, const char *touched)
{
	if (mp->horizon == NULL)
		return NULL;
	return psprintf("DELETE FROM %1$s AS c USING %2$s AS s "
					"WHERE s.%3$s %4$s c.%3$s AND s.%3$s %4$s ANY (%7$s) "
					"AND c.ts < (SELECT pg_catalog.max(c2.ts) FROM %1$s AS c2 "
					"WHERE c2.%3$s %4$s s.%3$s AND c2.ts < %5$s.pipeline_progress(s.state) - %6$s::pg_catalog.interval)",
					mp->ckpt, mp->state, mp->part, mp->eq_op, mp->ext, mp->horizon, touched);
}

/* what a run saves: its state, checkpoints and emissions (the CTEs after "run") */
static char *
saves_sql(MaintainPlans *mp)
{
	return psprintf("saved AS (UPDATE %1$s AS s SET state = %2$s.without_emissions(run.r[1]) FROM run WHERE s.%3$s %4$s run.part), "
					"ck AS (INSERT INTO %5$s (%3$s, ts, state) "
					"SELECT run.part, %2$s.pipeline_progress(c.s), c.s FROM run, pg_catalog.unnest(run.r[2:]) AS c(s) "
					"ON CONFLICT DO NOTHING)",
					mp->state, mp->ext, mp->part, mp->eq_op, mp->ckpt);
}

static char *
emit_sql(MaintainPlans *mp)
{
	return psprintf("INSERT INTO %1$s (%2$s, ts, key, port, value) "
					"SELECT run.part, e.ts, e.key::%3$s, e.port, e.value FROM run, %4$s.emissions(run.r[1]) AS e",
					mp->results, mp->part, mp->key_typ, mp->ext);
}

/*
 * One sensor's readings later than b.segpipe_from (all when NULL), but
 * those of the partitions in $3, and with a watermark the heartbeats
 * applied after it (a NULL value sorts after a reading of their ts).  The
 * key expression sees the readings' columns first.
 */
static char *
rows_sql(MaintainPlans *mp)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfo(&s,
					 "SELECT segpipe_new.%1$s::pg_catalog.timestamptz AS ts, segpipe_new.%2$s::%3$s AS v, (\n%4$s\n) AS k "
					 "FROM %5$s AS segpipe_new "
					 "WHERE segpipe_new.%6$s %7$s b.segpipe_part "
					 "AND segpipe_new.%1$s >= coalesce(b.segpipe_from, '-infinity'::pg_catalog.timestamptz) "
					 "AND (b.segpipe_from IS NULL OR segpipe_new.%1$s > b.segpipe_from) "
					 "AND segpipe_new.tableoid <> ALL ($3)",
					 mp->ts, mp->value, mp->v_type, mp->entry->key, mp->readings, mp->part, mp->eq_op);
	if (mp->hb != NULL)
		appendStringInfo(&s,
						 " UNION ALL SELECT h.ts, NULL::%1$s, h.key FROM %2$s AS h "
						 "WHERE h.%3$s %4$s b.segpipe_part "
						 "AND h.ts >= coalesce(b.segpipe_from, '-infinity'::pg_catalog.timestamptz) "
						 "AND (b.segpipe_from IS NULL OR h.ts > b.segpipe_from)",
						 mp->v_type, mp->hb, mp->part, mp->eq_op);
	return s.data;
}

/* the heartbeats due of a sensor, after g.segpipe_progress up to $1 */
static char *
heartbeat_times(MaintainPlans *mp)
{
	MaintainEntry *e = mp->entry;
	char	   *cal = NULL,
			   *quiet = NULL;

	if (e->hb_unit != NULL)
		cal = psprintf("SELECT h.h FROM %s.heartbeats(%s::pg_catalog.text, g.segpipe_progress, $1, %s::pg_catalog.text) AS h(h)",
					   mp->ext, quote_literal_cstr(e->hb_unit), quote_literal_cstr(e->hb_zone));
	/* (quiet_heartbeats() stops before its until: the due ones end at $1 included) */
	if (e->has_quiet)
		quiet = psprintf("SELECT q.q FROM %s.quiet_heartbeats(segpipe_l.%s::pg_catalog.timestamptz, "
						 "$1 + '1 microsecond'::pg_catalog.interval, %s::pg_catalog.interval) AS q(q)",
						 mp->ext, mp->ts, interval_literal(&e->quiet));
	if (cal && quiet)
		return psprintf("%s UNION %s", cal, quiet);
	return cal ? cal : quiet;
}

static char *
build(MaintainPlans *mp, MaintainStatement which)
{
	MaintainEntry *e = mp->entry;
	bool		keep = e->beyond == BEYOND_KEEP;

	switch (which)
	{
		case MS_INS_LOCK:
			return psprintf("INSERT INTO %1$s AS s (%2$s) SELECT u.p FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) "
							"ORDER BY u.i ON CONFLICT (%2$s) DO UPDATE SET state = s.state WHERE false",
							mp->state, mp->part);
		case MS_INS_READ:
			return psprintf("SELECT u.i, s.state, s.%2$s, s.ctid, s.tableoid FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) "
							"JOIN %1$s AS s ON s.%2$s %3$s u.p",
							mp->state, mp->part, mp->eq_op);
		case MS_INS_ROWS:
			return psprintf("SELECT segpipe_new.%1$s::%2$s%3$s, segpipe_new.%4$s::pg_catalog.timestamptz, "
							"segpipe_new.%5$s::%6$s, (\n%7$s\n) FROM segpipe_new AS segpipe_new",
							mp->part, mp->part_typ, mp->part_coll, mp->ts, mp->value, mp->v_type, e->key);
		case MS_INS_SAVE:
			return psprintf("UPDATE %1$s AS s SET state = u.st FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(p, st) "
							"WHERE s.%2$s %3$s u.p",
							mp->state, mp->part, mp->eq_op);
		case MS_INS_EMIT:
			return psprintf("INSERT INTO %1$s (%2$s, ts, key, port, value) SELECT * FROM ROWS FROM (pg_catalog.unnest($1), "
							"pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5))",
							mp->results, mp->part);
		case MS_INS_CKPT:
			return psprintf("INSERT INTO %1$s (%2$s, ts, state) SELECT * FROM ROWS FROM (pg_catalog.unnest($1), "
							"pg_catalog.unnest($2), pg_catalog.unnest($3)) ON CONFLICT DO NOTHING",
							mp->ckpt, mp->part);
		case MS_INS_SORTED:
			/* sensors whose new rows are out of order: run on from their states over their rows, sorted */
			return psprintf("WITH x AS (SELECT segpipe_new.%1$s AS part, segpipe_new.%2$s::pg_catalog.timestamptz AS ts, "
							"segpipe_new.%3$s::%4$s AS v, (\n%5$s\n) AS k FROM segpipe_new AS segpipe_new "
							"WHERE segpipe_new.%1$s %6$s ANY ($1)), "
							"g AS (SELECT s.%1$s AS part, s.state FROM %7$s AS s WHERE s.%1$s %6$s ANY ($1)), "
							"run AS (SELECT g.part, %8$s AS r FROM g JOIN x ON x.part %6$s g.part GROUP BY g.part), "
							"%9$s %10$s",
							mp->part, mp->ts, mp->value, mp->v_type, e->key, mp->eq_op, mp->state,
							run_call(mp, "g.state"), saves_sql(mp), emit_sql(mp));
		case MS_INS_LATE:
			/* under 'keep', every late row, so that those past the horizon are left out one by one */
			return psprintf("SELECT pg_catalog.array_agg(segpipe_new.%1$s), pg_catalog.array_agg(segpipe_new.%2$s::pg_catalog.timestamptz) "
							"FROM segpipe_new AS segpipe_new WHERE segpipe_new.%1$s %3$s ANY ($1)",
							mp->part, mp->ts, mp->eq_op);
		case MS_INS_LOCKREAD:
			return psprintf("SELECT u.i, s.state, s.%2$s, s.ctid, s.tableoid FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) "
							"LEFT JOIN LATERAL (SELECT s.state, s.%2$s, s.ctid, s.tableoid FROM %1$s AS s "
							"WHERE s.%2$s %3$s u.p FOR UPDATE OF s) AS s ON true",
							mp->state, mp->part, mp->eq_op);
		case MS_COR_KEEP:
			/* -infinity is a run from the first reading (set-up, rebuild), never left out */
			return psprintf("SELECT pg_catalog.array_agg(c.p ORDER BY c.n), pg_catalog.array_agg(c.t ORDER BY c.n) "
							"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) WITH ORDINALITY AS c(p, t, n) "
							"JOIN %1$s AS s ON s.%2$s %3$s c.p%4$s "
							"WHERE c.t = '-infinity'::pg_catalog.timestamptz OR %5$s.pipeline_progress(s.state) IS NULL "
							"OR c.t >= %5$s.pipeline_progress(s.state) - %6$s::pg_catalog.interval",
							mp->state, mp->part, mp->eq_op, mp->part_coll, mp->ext, mp->horizon);
		case MS_COR_ERROR:
			return psprintf("SELECT c.p::pg_catalog.text, c.t::pg_catalog.text, %6$s.pipeline_progress(s.state)::pg_catalog.text "
							"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS c(p, t) "
							"JOIN %1$s AS s ON s.%2$s %3$s c.p%4$s "
							"WHERE c.t < %6$s.pipeline_progress(s.state) - %5$s::pg_catalog.interval "
							"AND c.t <> '-infinity'::pg_catalog.timestamptz ORDER BY c.t LIMIT 1",
							mp->state, mp->part, mp->eq_op, mp->part_coll, mp->horizon, mp->ext);
		case MS_COR_LOCK:
			/* new ones inserted, the others locked, in their order: no two sessions wait in a cycle */
			return psprintf("INSERT INTO %1$s AS s (%2$s) SELECT DISTINCT c.p%3$s FROM pg_catalog.unnest($1) AS c(p) ORDER BY 1 "
							"ON CONFLICT (%2$s) DO UPDATE SET state = s.state WHERE false",
							mp->state, mp->part, mp->part_coll);
		case MS_COR_HB_GONE:
			return psprintf("DELETE FROM %1$s AS h WHERE h.%2$s %3$s ANY ($1) "
							"AND NOT EXISTS (SELECT 1 FROM %4$s AS segpipe_new "
							"WHERE segpipe_new.%2$s %3$s h.%2$s AND segpipe_new.tableoid <> ALL ($3))",
							mp->hb, mp->part, mp->eq_op, mp->readings);
		case MS_COR_DELETE:
			/* what the run will replace: checkpoints and results after the last checkpoint before the change */
			return psprintf("WITH c AS (SELECT c.p%3$s AS p, pg_catalog.min(c.t) AS t "
							"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS c(p, t) GROUP BY 1), "
							"b AS (SELECT c.p, (SELECT pg_catalog.max(k.ts) FROM %1$s AS k WHERE k.%2$s %4$s c.p AND k.ts < c.t) AS f FROM c), "
							"d AS (DELETE FROM %1$s AS k USING b WHERE k.%2$s %4$s b.p AND (b.f IS NULL OR k.ts > b.f)) "
							"DELETE FROM %5$s AS r USING b WHERE r.%2$s %4$s b.p AND (b.f IS NULL OR r.ts > b.f)",
							mp->ckpt, mp->part, mp->part_coll, mp->eq_op, mp->results);
		case MS_COR_RUN:

			/*
			 * the run from the last checkpoint left (or from the spec); a run
			 * from a checkpoint takes it again before its first new segment,
			 * and drops it when no segment begins right after it any more
			 */
			return psprintf("WITH b AS (SELECT c.p AS segpipe_part, k.ts AS segpipe_from, k.state AS segpipe_base "
							"FROM (SELECT DISTINCT c.p%1$s AS p FROM pg_catalog.unnest($1) AS c(p)) AS c "
							"LEFT JOIN LATERAL (SELECT k.ts, k.state FROM %2$s AS k WHERE k.%3$s %4$s c.p "
							"ORDER BY k.ts DESC LIMIT 1) AS k ON true), "
							"run AS (SELECT b.segpipe_part AS part, y.r FROM b CROSS JOIN LATERAL "
							"(SELECT %5$s AS r FROM (%6$s) AS x) AS y WHERE y.r IS NOT NULL), "
							"%7$s, "
							"kept AS (UPDATE %8$s AS s SET state = b.segpipe_base FROM b "
							"WHERE s.%3$s %4$s b.segpipe_part AND b.segpipe_base IS NOT NULL "
							"AND NOT EXISTS (SELECT 1 FROM run WHERE run.part %4$s b.segpipe_part)), "
							"stale AS (DELETE FROM %2$s AS k USING b WHERE k.%3$s %4$s b.segpipe_part AND k.ts = b.segpipe_from "
							"AND NOT EXISTS (SELECT 1 FROM run, pg_catalog.unnest(run.r[2:]) AS c(s) "
							"WHERE run.part %4$s b.segpipe_part AND %9$s.pipeline_progress(c.s) = b.segpipe_from)) "
							"%10$s",
							mp->part_coll, mp->ckpt, mp->part, mp->eq_op,
							run_call(mp, "coalesce(b.segpipe_base, $5)"), rows_sql(mp),
							saves_sql(mp), mp->state, mp->ext, emit_sql(mp));
		case MS_COR_GONE:
			/* a sensor without readings has no state */
			return psprintf("DELETE FROM %1$s AS s WHERE s.%2$s %3$s ANY ($1) "
							"AND NOT EXISTS (SELECT 1 FROM %4$s AS segpipe_new "
							"WHERE segpipe_new.%2$s %3$s s.%2$s AND segpipe_new.tableoid <> ALL ($3))",
							mp->state, mp->part, mp->eq_op, mp->readings);
		case MS_COR_PRUNE:
			return prune_sql(mp, "$4");
		case MS_COR_BASE:

			/*
			 * the latest checkpoint before $2; whether MS_COR_DELETE_SINCE
			 * has anything to delete (a change in a sensor's last segment
			 * has not); the address of the sensor's state row (locked by
			 * MS_COR_LOCK), where the run's state is written
			 */
			return psprintf("SELECT c.ts, c.state, s.ctid, s.%2$s, "
							"EXISTS (SELECT FROM %1$s AS k WHERE k.%2$s %3$s $1 "
							"AND k.ts >= coalesce(c.ts, '-infinity'::pg_catalog.timestamptz) AND (c.ts IS NULL OR k.ts > c.ts)) "
							"OR EXISTS (SELECT FROM %4$s AS r WHERE r.%2$s %3$s $1 "
							"AND r.ts >= coalesce($2, '-infinity'::pg_catalog.timestamptz)) "
							"FROM (SELECT) AS o LEFT JOIN LATERAL "
							"(SELECT k.ts, k.state FROM %1$s AS k WHERE k.%2$s %3$s $1 AND k.ts < $2 "
							"ORDER BY k.ts DESC LIMIT 1) AS c ON true "
							"LEFT JOIN %5$s AS s ON s.%2$s %3$s $1",
							mp->ckpt, mp->part, mp->eq_op, mp->results, mp->state);
		case MS_COR_DELETE1:
		case MS_COR_DELETE_SINCE:

			/*
			 * the checkpoints after the base; the results after it, or
			 * (_SINCE) from $2 on: those before it are what the run gives
			 * again, from the same readings
			 */
			return psprintf("WITH b AS (SELECT (SELECT pg_catalog.max(k.ts) FROM %1$s AS k WHERE k.%2$s %3$s $1 AND k.ts < $2) AS f), "
							"d AS (DELETE FROM %1$s AS k USING b WHERE k.%2$s %3$s $1 "
							"AND k.ts >= coalesce(b.f, '-infinity'::pg_catalog.timestamptz) AND (b.f IS NULL OR k.ts > b.f)) "
							"DELETE FROM %4$s AS r USING b WHERE r.%2$s %3$s $1 AND %5$s",
							mp->ckpt, mp->part, mp->eq_op, mp->results,
							which == MS_COR_DELETE_SINCE ?
							"r.ts >= coalesce($2, '-infinity'::pg_catalog.timestamptz)" :
							"r.ts >= coalesce(b.f, '-infinity'::pg_catalog.timestamptz) AND (b.f IS NULL OR r.ts > b.f)");
		case MS_COR_ROWS:
		case MS_COR_ROWS_FROM:
		case MS_COR_ROWS_ALL:
			/*
			 * as rows_sql, without heartbeats, in the order of ts only (ties
			 * are told apart by the caller); the last two without the
			 * conditions on parameters that MS_COR_ROWS evaluates on every
			 * row, for a base ($2 not null) and for none, when nothing is
			 * excluded (NULL ts are left out by each)
			 */
			return psprintf("SELECT segpipe_new.%1$s::pg_catalog.timestamptz AS ts, segpipe_new.%2$s::%3$s AS v, (\n%4$s\n) AS k "
							"FROM %5$s AS segpipe_new "
							"WHERE segpipe_new.%6$s %7$s $1 AND %8$s ORDER BY 1",
							mp->ts, mp->value, mp->v_type, e->key, mp->readings, mp->part, mp->eq_op,
							which == MS_COR_ROWS_FROM ? psprintf("segpipe_new.%s > $2", mp->ts) :
							which == MS_COR_ROWS_ALL ? psprintf("segpipe_new.%s >= '-infinity'::pg_catalog.timestamptz", mp->ts) :
							psprintf("segpipe_new.%1$s >= coalesce($2, '-infinity'::pg_catalog.timestamptz) "
									 "AND ($2 IS NULL OR segpipe_new.%1$s > $2) "
									 "AND segpipe_new.tableoid <> ALL ($3)", mp->ts));
		case MS_COR_SAVE:
			return psprintf("UPDATE %1$s AS s SET state = $2 WHERE s.%2$s %3$s $1",
							mp->state, mp->part, mp->eq_op);
		case MS_COR_STALE:
			return psprintf("DELETE FROM %1$s AS k WHERE k.%2$s %3$s $1 AND k.ts = $2",
							mp->ckpt, mp->part, mp->eq_op);
		case MS_INS_PRUNE:
			return prune_sql(mp, "$1");
		case MS_CHG_UPDATE:
			return psprintf("SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) "
							"FROM (SELECT u.p, %3$s AS t FROM (SELECT segpipe_old.%1$s AS p, segpipe_old.%2$s AS t FROM segpipe_old "
							"UNION ALL SELECT segpipe_new.%1$s, segpipe_new.%2$s FROM segpipe_new) AS u %4$s) AS c",
							mp->part, mp->ts, keep ? "u.t" : "pg_catalog.min(u.t)", keep ? "" : "GROUP BY 1");
		case MS_CHG_DELETE:
			return psprintf("SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) "
							"FROM (SELECT segpipe_old.%1$s AS p, %2$s AS t FROM segpipe_old %3$s) AS c",
							mp->part, keep ? psprintf("segpipe_old.%s", mp->ts) : psprintf("pg_catalog.min(segpipe_old.%s)", mp->ts),
							keep ? "" : "GROUP BY 1");
		case MS_CHG_CLEAR_HB:
			return mp->hb ? psprintf("DELETE FROM %s", mp->hb) : NULL;
		case MS_CHG_CLEAR_RESULTS:
			return psprintf("DELETE FROM %s", mp->results);
		case MS_CHG_CLEAR_CKPT:
			return psprintf("DELETE FROM %s", mp->ckpt);
		case MS_CHG_CLEAR_STATE:
			return psprintf("DELETE FROM %s", mp->state);
		case MS_CLOSE_LOCK:
			/* the sensors behind $1, locked in the state key's order (infinite progress has no heartbeats) */
			return psprintf("SELECT pg_catalog.array_agg(q.p ORDER BY q.p) FROM (SELECT s.%1$s AS p FROM %2$s AS s "
							"WHERE %3$s.pipeline_progress(s.state) < $1 AND pg_catalog.isfinite(%3$s.pipeline_progress(s.state)) "
							"ORDER BY s.%1$s FOR UPDATE OF s) AS q",
							mp->part, mp->state, mp->ext);
		case MS_CLOSE_RUN:

			/*
			 * each sensor's heartbeats due (after its progress, up to $1),
			 * keyed by the key expression over its latest reading at the
			 * heartbeat's ts without a value; run, saved and recorded
			 */
			return psprintf("WITH g AS (SELECT s.%1$s AS segpipe_part, s.state AS segpipe_state, "
							"%2$s.pipeline_progress(s.state) AS segpipe_progress FROM %3$s AS s WHERE s.%1$s %4$s ANY ($2)), "
							"x AS (SELECT g.segpipe_part AS part, y.ts, NULL::%5$s AS v, y.k FROM g CROSS JOIN LATERAL ("
							"SELECT segpipe_new.%6$s AS ts, (\n%7$s\n) AS k "
							"FROM (SELECT %8$s FROM (SELECT * FROM %9$s AS r WHERE r.%1$s %4$s g.segpipe_part "
							"ORDER BY r.%6$s DESC, r.%10$s DESC LIMIT 1) AS segpipe_l, LATERAL (%11$s) AS segpipe_hb(segpipe_h) "
							"WHERE segpipe_hb.segpipe_h > g.segpipe_progress AND segpipe_hb.segpipe_h <= $1) AS segpipe_new) AS y), "
							"run AS (SELECT g.segpipe_part AS part, %12$s AS r FROM g JOIN x ON x.part %4$s g.segpipe_part "
							"GROUP BY g.segpipe_part), "
							"%13$s, "
							"hb AS (INSERT INTO %14$s (%1$s, ts, key) SELECT x.part, x.ts, x.k FROM x), "
							"em AS (%15$s) "
							"SELECT pg_catalog.count(*) FROM x",
							mp->part, mp->ext, mp->state, mp->eq_op, mp->v_type, mp->ts, e->key,
							mp->hb_cols, mp->readings, mp->value, heartbeat_times(mp),
							run_call(mp, "g.segpipe_state"), saves_sql(mp), mp->hb, emit_sql(mp));
		case MS_REBUILD_ALL:
			return psprintf("SELECT pg_catalog.array_agg(u.p ORDER BY u.p) FROM "
							"(SELECT r.%1$s FROM %2$s AS r UNION SELECT s.%1$s FROM %3$s AS s) AS u(p)",
							mp->part, mp->readings, mp->state);
		case MS_REBUILD_COUNT:
			return psprintf("SELECT pg_catalog.count(*) FROM %1$s AS r WHERE r.%2$s %3$s ANY ($1)",
							mp->readings, mp->part, mp->eq_op);
		case MS_N:
			break;
	}
	elog(ERROR, "unrecognized maintenance statement %d", (int) which);
	pg_unreachable();
}

/* ---- the cache ---- */

static void
forget(MaintainPlans *mp)
{
	if (mp->cxt == NULL)
		return;					/* never made */
	for (int i = 0; i < MS_N; i++)
		if (mp->plans[i] != NULL)
			SPI_freeplan(mp->plans[i]);
	memset(mp->plans, 0, sizeof(mp->plans));
	maintain_cache_clear(&mp->cache);
	if (mp->cxt != NULL)
		MemoryContextDelete(mp->cxt);
	mp->cxt = NULL;
	mp->names_cxt = NULL;
	mp->entry = NULL;
	mp->valid = false;
}

static MaintainEntry *
copy_entry_into(const MaintainEntry *e, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	MaintainEntry *c = palloc(sizeof(MaintainEntry));

	*c = *e;
	c->part_col = pstrdup(e->part_col);
	c->ts_col = pstrdup(e->ts_col);
	c->value_col = pstrdup(e->value_col);
	c->key = pstrdup(e->key);
	c->spec = PointerGetDatum(PG_DETOAST_DATUM_COPY(e->spec));
	c->hb_unit = e->hb_unit ? pstrdup(e->hb_unit) : NULL;
	c->hb_zone = e->hb_zone ? pstrdup(e->hb_zone) : NULL;
	c->schedule = e->schedule ? pstrdup(e->schedule) : NULL;
	c->cron_job = e->cron_job ? pstrdup(e->cron_job) : NULL;
	MemoryContextSwitchTo(old);
	return c;
}

static void
lock_tables(const MaintainEntry *e)
{
	/* the readings first, as the statement that fired the trigger locked them */
	LockRelationOid(e->readings, AccessShareLock);
	LockRelationOid(e->state_rel, RowExclusiveLock);
	LockRelationOid(e->results, RowExclusiveLock);
	LockRelationOid(e->ckpt_rel, RowExclusiveLock);
	if (OidIsValid(e->hb_rel))
		LockRelationOid(e->hb_rel, RowExclusiveLock);
}

MaintainPlans *
maintain_plans_entry(int32 id)
{
	MaintainPlans *mp;
	MaintainEntry *e;
	bool		found;
	bool		same;
	uint64		changes;

	if (all_plans == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(int32);
		ctl.entrysize = sizeof(MaintainPlans);
		ctl.hcxt = TopMemoryContext;
		all_plans = hash_create("segpipe maintenance statements", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
		CacheRegisterSyscacheCallback(NAMESPACEOID, syscache_changed, (Datum) 0);
		CacheRegisterSyscacheCallback(TYPEOID, type_changed, (Datum) 0);
		CacheRegisterSyscacheCallback(OPEROID, syscache_changed, (Datum) 0);
		CacheRegisterSyscacheCallback(COLLOID, syscache_changed, (Datum) 0);
	}
	mp = hash_search(all_plans, &id, HASH_ENTER, &found);
	if (!found)
		memset((char *) mp + sizeof(int32), 0, sizeof(MaintainPlans) - sizeof(int32));
	/* no change of the catalog since the row was read: no scan of it */
	changes = maintain_catalog_changes();
	if (mp->entry != NULL && mp->catalog_changes == changes)
		return mp;
	e = maintain_entry_fresh(id, mp->entry, &same);
	if (same)
	{
		mp->catalog_changes = changes;
		return mp;
	}
	/* a row made again, or gone: nothing of the old one stays */
	forget(mp);
	if (e == NULL)
	{
		hash_search(all_plans, &id, HASH_REMOVE, NULL);
		return NULL;
	}
	PG_TRY();
	{
		mp->cxt = AllocSetContextCreate(TopMemoryContext, "segpipe maintenance statements",
										ALLOCSET_SMALL_SIZES);
		mp->entry = copy_entry_into(e, mp->cxt);
		memset(&mp->flinfo, 0, sizeof(FmgrInfo));
		mp->flinfo.fn_mcxt = mp->cxt;
		mp->flinfo.fn_oid = InvalidOid;
		maintain_cache_init(&mp->cache, mp->cxt);
		mp->valid = false;
		mp->catalog_changes = changes;
	}
	PG_CATCH();
	{
		if (mp->cxt != NULL)
			MemoryContextDelete(mp->cxt);
		hash_search(all_plans, &id, HASH_REMOVE, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return mp;
}

void
maintain_plans_ready(MaintainPlans *mp)
{
	MemoryContext old;

	/* locking takes the invalidations that came since: they may say the names changed */
	lock_tables(mp->entry);
	if (mp->valid && mp->generation == names_generation)
		return;
	/* the names again, and the statements with them; the kept runs stay */
	for (int i = 0; i < MS_N; i++)
	{
		if (mp->plans[i] != NULL)
			SPI_freeplan(mp->plans[i]);
		mp->plans[i] = NULL;
		mp->sql[i] = NULL;
	}
	if (mp->names_cxt != NULL)
		MemoryContextReset(mp->names_cxt);
	else
		mp->names_cxt = AllocSetContextCreate(mp->cxt, "segpipe maintenance names",
											  ALLOCSET_SMALL_SIZES);
	mp->generation = names_generation;
	old = MemoryContextSwitchTo(mp->names_cxt);
	look_up_names(mp);
	MemoryContextSwitchTo(old);
	mp->valid = true;
}

MaintainPlans *
maintain_plans_for(int32 id)
{
	MaintainPlans *mp = maintain_plans_entry(id);

	if (mp != NULL)
		maintain_plans_ready(mp);
	return mp;
}

SPIPlanPtr
maintain_plan(MaintainPlans *mp, MaintainStatement which, int nargs, Oid *argtypes)
{
	if (mp->plans[which] == NULL)
	{
		SPIPlanPtr	p;

		if (mp->sql[which] == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(mp->names_cxt);

			mp->sql[which] = build(mp, which);
			MemoryContextSwitchTo(old);
		}
		if (mp->sql[which] == NULL)
			elog(ERROR, "maintenance statement %d does not apply to these results", (int) which);

		/*
		 * Generic plans: a custom plan for each call's arrays would be
		 * planned again every time.
		 */
		p = SPI_prepare_cursor(mp->sql[which], nargs, argtypes, CURSOR_OPT_GENERIC_PLAN);
		if (p == NULL)
			elog(ERROR, "SPI_prepare_cursor failed for segpipe's maintenance statement %d: %s",
				 (int) which, SPI_result_code_string(SPI_result));
		if (SPI_keepplan(p) != 0)
			elog(ERROR, "SPI_keepplan failed");
		mp->plans[which] = p;
	}
	return mp->plans[which];
}

void
maintain_correct_argtypes(MaintainPlans *mp, Oid *argtypes)
{
	argtypes[0] = maintain_array_type(mp->part_type);
	argtypes[1] = TIMESTAMPTZARRAYOID;
	argtypes[2] = OIDARRAYOID;
	argtypes[3] = argtypes[0];
	argtypes[4] = mp->pipeline_type;
}

bool
maintain_sql_finds(const char *query, Oid arg, const char *what)
{
	Oid			t = OIDOID;
	Datum		v = ObjectIdGetDatum(arg);
	bool		found;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(query, 1, &t, &v, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read %s", what);
	found = SPI_processed > 0;
	SPI_finish();
	return found;
}
