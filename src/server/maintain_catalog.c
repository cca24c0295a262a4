/*
 * maintain_catalog.c
 *	  The catalog of maintained results (maintain_catalog.h).
 *
 * The table is found through the extension, by OID: its schema is the
 * extension's, it is a member of the extension, and its owner is the role
 * that ran the extension's script (a superuser).  Rows are read with heap
 * scans and written with heap inserts and deletes, never by SQL that names
 * it, so that no role's objects of the same name take its place.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "sp_compat.h"
#include "maintain_catalog.h"

/* the catalog's table, as found last (catalog_relid) */
static Oid	cached_rel = InvalidOid;

/*
 * Bumped by every invalidation of the catalog's table: segpipe's writes of
 * it send one (catalog_changed), so that every backend reads a row again
 * only after a change, not on every statement.
 */
static uint64 catalog_changes = 1;
static bool catalog_callback = false;


PG_FUNCTION_INFO_V1(segpipe_catalog_register);

#define CATALOG_NAME "segpipe_catalog"

/*
 * The columns, in order: the one statement of the table's shape that C
 * reads; sql/segpipe--0.9.0--0.10.0.sql creates it, and every open checks
 * that the two agree.
 */
enum
{
	C_ID = 1, C_RESULTS, C_READINGS, C_STATE, C_CKPT, C_HB, C_VIEW, C_INDEX,
	C_PART, C_TS, C_VALUE, C_KEY, C_KEY_TYPE, C_SPEC, C_LATE, C_HORIZON,
	C_BEYOND, C_WATERMARK, C_HB_UNIT, C_HB_ZONE, C_QUIET, C_SCHEDULE, C_CRON_JOB,
	C_SHARD_OF, N_COLS = C_SHARD_OF
};

static const Oid column_types[N_COLS] = {
	INT4OID, REGCLASSOID, REGCLASSOID, REGCLASSOID, REGCLASSOID, REGCLASSOID, REGCLASSOID,
	NAMEOID, NAMEOID, NAMEOID, NAMEOID, TEXTOID, REGTYPEOID, InvalidOid /* pipeline */ ,
	TEXTOID, INTERVALOID, TEXTOID, INTERVALOID, TEXTOID, TEXTOID, INTERVALOID, TEXTOID, TEXTOID,
	INT4OID
};

static const char *const late_names[] = {"correct", "error", "drop"};
static const char *const beyond_names[] = {"replay", "error", "keep"};

/* ---- the table ---- */

/* the extension's schema (commands/extension.c keeps its own lookup static before 16) */
Oid
maintain_schema_of_extension(Oid ext)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

Oid
maintain_owner_of_extension(Oid ext)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			owner = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return owner;
}

Oid
maintain_rel_owner(Oid relid)
{
	HeapTuple	t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(t))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(t))->relowner;
	ReleaseSysCache(t);
	return owner;
}

Oid
maintain_extension_schema(void)
{
	Oid			ext = get_extension_oid("segpipe", true);
	Oid			nsp;

	if (!OidIsValid(ext) || !OidIsValid(nsp = maintain_schema_of_extension(ext)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"segpipe\" is not installed in this database")));
	return nsp;
}

Oid
maintain_extension_table(const char *name, const char *what, bool missing_ok)
{
	Oid			ext = get_extension_oid("segpipe", true);
	Oid			relid;

	if (!OidIsValid(ext))
	{
		if (missing_ok)
			return InvalidOid;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"segpipe\" is not installed in this database")));
	}
	relid = get_relname_relid(name, maintain_schema_of_extension(ext));
	if (!OidIsValid(relid) || getExtensionOfObject(RelationRelationId, relid) != ext ||
		!superuser_arg(maintain_rel_owner(relid)))
	{
		if (missing_ok)
			return InvalidOid;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s is missing", what),
				 errdetail("The extension's schema has no table \"%s\" of the extension, owned by a superuser.",
						   name),
				 errhint("Run ALTER EXTENSION segpipe UPDATE.")));
	}
	return relid;
}

/* the catalog's OID, checked as the header says; cached per backend */
static Oid
catalog_relid(void)
{
	static Oid	cached_nsp = InvalidOid;
	Oid			relid;

	/*
	 * The table found before, still there under its name in the same
	 * schema: a member of the extension cannot be dropped or renamed but by
	 * the extension's own scripts, and dropping the extension drops it.
	 */
	if (OidIsValid(cached_rel))
	{
		HeapTuple	t = SearchSysCache1(RELOID, ObjectIdGetDatum(cached_rel));
		bool		same = false;

		if (HeapTupleIsValid(t))
		{
			Form_pg_class c = (Form_pg_class) GETSTRUCT(t);

			same = c->relnamespace == cached_nsp && strcmp(NameStr(c->relname), CATALOG_NAME) == 0 &&
				superuser_arg(c->relowner);
			ReleaseSysCache(t);
		}
		if (same)
			return cached_rel;
	}
	relid = maintain_extension_table(CATALOG_NAME, "segpipe's catalog of maintained results", false);
	cached_nsp = get_rel_namespace(relid);
	cached_rel = relid;
	return relid;
}

static Relation
catalog_open(LOCKMODE mode)
{
	Relation	rel = table_open(catalog_relid(), mode);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		ok = desc->natts == N_COLS;

	for (int i = 0; ok && i < N_COLS; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		ok = !a->attisdropped &&
			(OidIsValid(column_types[i]) ? a->atttypid == column_types[i]
			 : get_typ_typrelid(a->atttypid) == InvalidOid);
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("segpipe's catalog of maintained results is not as this version of segpipe made it"),
				 errhint("Run ALTER EXTENSION segpipe UPDATE.")));
	return rel;
}

Oid
maintain_catalog_relid(void)
{
	return catalog_relid();
}

Oid
maintain_pipeline_type(void)
{
	Relation	rel = catalog_open(AccessShareLock);
	Oid			t = TupleDescAttr(RelationGetDescr(rel), C_SPEC - 1)->atttypid;

	table_close(rel, AccessShareLock);
	return t;
}

static void
catalog_invalidated(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == cached_rel)
		catalog_changes++;
}

uint64
maintain_catalog_changes(void)
{
	if (!catalog_callback)
	{
		CacheRegisterRelcacheCallback(catalog_invalidated, (Datum) 0);
		catalog_callback = true;
	}
	return catalog_changes;
}

/*
 * After a write of the catalog: every backend's cached rows are read again
 * (at its commit for the others, at once here).
 */
static void
catalog_changed(Relation rel)
{
	CacheInvalidateRelcache(rel);
}

/* ---- reading ---- */

static char *
text_or_null(Datum *values, bool *nulls, int col)
{
	return nulls[col - 1] ? NULL : TextDatumGetCString(values[col - 1]);
}

static int
policy_of(const char *s, const char *const *names, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("segpipe's catalog of maintained results holds an invalid %s \"%s\"", what, s)));
	pg_unreachable();
}

/*
 * The index set-up made is kept by name (an index is restored after the
 * data, so a regclass of it could not be read back): the index of that
 * name in the readings' schema, when it is one of the readings'.
 */
static Oid
index_of_readings(const char *name, Oid readings)
{
	Oid			nsp = get_rel_namespace(readings);
	Oid			idx = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
	HeapTuple	t;
	bool		ours = false;

	if (OidIsValid(idx) && HeapTupleIsValid(t = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(idx))))
	{
		ours = ((Form_pg_index) GETSTRUCT(t))->indrelid == readings;
		ReleaseSysCache(t);
	}
	return ours ? idx : InvalidOid;
}

static MaintainEntry *
entry_from_tuple(HeapTuple tup, TupleDesc desc)
{
	Datum		values[N_COLS];
	bool		nulls[N_COLS];
	MaintainEntry *e = palloc0(sizeof(MaintainEntry));
	static const int required[] = {C_ID, C_RESULTS, C_READINGS, C_STATE, C_CKPT, C_PART, C_TS,
	C_VALUE, C_KEY, C_KEY_TYPE, C_SPEC, C_LATE, C_BEYOND};

	heap_deform_tuple(tup, desc, values, nulls);
	for (int i = 0; i < lengthof(required); i++)
		if (nulls[required[i] - 1])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("segpipe's catalog of maintained results has a row without %s",
							NameStr(TupleDescAttr(desc, required[i] - 1)->attname))));
	e->id = DatumGetInt32(values[C_ID - 1]);
	e->results = DatumGetObjectId(values[C_RESULTS - 1]);
	e->readings = DatumGetObjectId(values[C_READINGS - 1]);
	e->state_rel = DatumGetObjectId(values[C_STATE - 1]);
	e->ckpt_rel = DatumGetObjectId(values[C_CKPT - 1]);
	e->hb_rel = nulls[C_HB - 1] ? InvalidOid : DatumGetObjectId(values[C_HB - 1]);
	e->view_rel = nulls[C_VIEW - 1] ? InvalidOid : DatumGetObjectId(values[C_VIEW - 1]);
	e->index_rel = nulls[C_INDEX - 1] ? InvalidOid
		: index_of_readings(NameStr(*DatumGetName(values[C_INDEX - 1])), e->readings);
	e->part_col = pstrdup(NameStr(*DatumGetName(values[C_PART - 1])));
	e->ts_col = pstrdup(NameStr(*DatumGetName(values[C_TS - 1])));
	e->value_col = pstrdup(NameStr(*DatumGetName(values[C_VALUE - 1])));
	e->key = text_or_null(values, nulls, C_KEY);
	e->key_type = DatumGetObjectId(values[C_KEY_TYPE - 1]);
	/* a stored value: detoasted and copied; pipeline_in checked it when written */
	e->spec = PointerGetDatum(PG_DETOAST_DATUM_COPY(values[C_SPEC - 1]));
	e->late = policy_of(text_or_null(values, nulls, C_LATE), late_names, lengthof(late_names),
						"late-row policy");
	e->beyond = policy_of(text_or_null(values, nulls, C_BEYOND), beyond_names,
						  lengthof(beyond_names), "beyond_horizon policy");
	if ((e->has_horizon = !nulls[C_HORIZON - 1]))
		e->horizon = *DatumGetIntervalP(values[C_HORIZON - 1]);
	if ((e->has_watermark = !nulls[C_WATERMARK - 1]))
		e->watermark = *DatumGetIntervalP(values[C_WATERMARK - 1]);
	e->hb_unit = text_or_null(values, nulls, C_HB_UNIT);
	e->hb_zone = text_or_null(values, nulls, C_HB_ZONE);
	if ((e->has_quiet = !nulls[C_QUIET - 1]))
		e->quiet = *DatumGetIntervalP(values[C_QUIET - 1]);
	e->schedule = text_or_null(values, nulls, C_SCHEDULE);
	e->cron_job = text_or_null(values, nulls, C_CRON_JOB);
	e->shard_of = nulls[C_SHARD_OF - 1] ? 0 : DatumGetInt32(values[C_SHARD_OF - 1]);
	if (e->has_watermark != OidIsValid(e->hb_rel) ||
		(e->beyond == BEYOND_KEEP && !e->has_horizon))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("segpipe's catalog of maintained results has a row whose options do not agree"),
				 errdetail("Row %d.", e->id)));
	e->xmin = HeapTupleHeaderGetXmin(tup->t_data);
	e->tid = tup->t_self;
	return e;
}

/* the entries matching one key (or all, col 0), as an array */
static MaintainEntry **
entries_where(int col, Datum value, int *n)
{
	Relation	rel = catalog_open(AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	int			cap = 8;
	MaintainEntry **out = palloc(sizeof(MaintainEntry *) * cap);

	*n = 0;
	if (col != 0)
		ScanKeyInit(&key, col, BTEqualStrategyNumber,
					col == C_ID ? F_INT4EQ : F_OIDEQ, value);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, col != 0 ? 1 : 0, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		if (*n == cap)
			out = repalloc(out, sizeof(MaintainEntry *) * (cap *= 2));
		out[(*n)++] = entry_from_tuple(tup, RelationGetDescr(rel));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

MaintainEntry *
maintain_entry_fresh(int32 id, MaintainEntry *cached, bool *same)
{
	Relation	rel = catalog_open(AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	MaintainEntry *e = NULL;

	*same = false;
	ScanKeyInit(&key, C_ID, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(id));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		if (cached != NULL && cached->xmin == HeapTupleHeaderGetXmin(tup->t_data) &&
			ItemPointerEquals(&cached->tid, &tup->t_self))
		{
			e = cached;
			*same = true;
		}
		else
			e = entry_from_tuple(tup, RelationGetDescr(rel));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return e;
}

MaintainEntry *
maintain_entry_by_results(Oid results)
{
	int			n;
	MaintainEntry **e = entries_where(C_RESULTS, ObjectIdGetDatum(results), &n);

	return n == 1 ? e[0] : NULL;
}

MaintainEntry *
maintain_entry_of_shard(int32 shard_of, Oid readings)
{
	int			n;
	MaintainEntry **e = entries_where(C_READINGS, ObjectIdGetDatum(readings), &n);

	for (int i = 0; i < n; i++)
		if (e[i]->shard_of == shard_of)
			return e[i];
	return NULL;
}

MaintainEntry *
maintain_entry_required(Oid results)
{
	MaintainEntry *e = maintain_entry_by_results(results);
	char	   *name;

	if (e != NULL)
		return e;
	name = get_rel_name(results);
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 name ? errmsg("\"%s\" is not a results table maintained by segpipe", name)
			 : errmsg("relation with OID %u does not exist", results),
			 errdetail("segpipe's catalog of maintained results (view segpipe_maintained) has no row for it.")));
	pg_unreachable();
}

MaintainEntry **
maintain_entries_all(int *n)
{
	return entries_where(0, (Datum) 0, n);
}

/* ---- writing ---- */

static void
require_owner(Oid relid, const char *what)
{
	if (!OidIsValid(relid))
		return;
	if (get_rel_relkind(relid) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!SP_CLASS_OWNERCHECK(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of %s %s", what, get_rel_name(relid)),
				 errdetail("Only the owner of the readings registers maintained results, for tables of its own.")));
}

/*
 * segpipe_catalog_register(...): the catalog's row of a set-up, as
 * segpipe_maintain() calls it once it made the tables; returns its id.
 * Any role may call it, for tables it owns: the row then says what
 * segpipe_maintain would have said, and makes nothing run.
 */
Datum
segpipe_catalog_register(PG_FUNCTION_ARGS)
{
	Relation	rel;
	Datum		values[N_COLS];
	bool		nulls[N_COLS];
	HeapTuple	tup;
	int			n;
	MaintainEntry **all;
	int32		id = 1;
	static const int required[] = {C_RESULTS, C_READINGS, C_STATE, C_CKPT, C_PART, C_TS,
	C_VALUE, C_KEY, C_KEY_TYPE, C_SPEC, C_LATE, C_BEYOND};

	for (int i = 0; i < lengthof(required); i++)
		if (PG_ARGISNULL(required[i] - 2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument %d of segpipe_catalog_register must not be null", required[i] - 1)));
	for (int c = C_RESULTS; c <= N_COLS; c++)
	{
		nulls[c - 1] = PG_ARGISNULL(c - 2);
		values[c - 1] = nulls[c - 1] ? (Datum) 0 : PG_GETARG_DATUM(c - 2);
	}
	require_owner(PG_GETARG_OID(C_READINGS - 2), "table");
	for (int c = C_RESULTS; c <= C_INDEX; c++)
		if (!nulls[c - 1])
			require_owner(DatumGetObjectId(values[c - 1]), "relation");
	if (!nulls[C_INDEX - 1])
	{
		Oid			idx = DatumGetObjectId(values[C_INDEX - 1]);

		if (index_of_readings(get_rel_name(idx), PG_GETARG_OID(C_READINGS - 2)) != idx)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not an index of the readings", get_rel_name(idx))));
		values[C_INDEX - 1] = DirectFunctionCall1(namein, CStringGetDatum(get_rel_name(idx)));
	}
	if (!nulls[C_SHARD_OF - 1] && DatumGetInt32(values[C_SHARD_OF - 1]) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard_of must be the id of a row of segpipe's catalog on the coordinator")));
	(void) policy_of(TextDatumGetCString(values[C_LATE - 1]), late_names, lengthof(late_names),
					 "late-row policy");
	(void) policy_of(TextDatumGetCString(values[C_BEYOND - 1]), beyond_names,
					 lengthof(beyond_names), "beyond_horizon policy");
	if (nulls[C_WATERMARK - 1] != nulls[C_HB - 1] ||
		(strcmp(TextDatumGetCString(values[C_BEYOND - 1]), "keep") == 0 && nulls[C_HORIZON - 1]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the options of maintained results do not agree"),
				 errdetail("A watermark goes with a heartbeat table, beyond_horizon 'keep' with a horizon.")));

	/* one writer at a time: ids are taken in order */
	rel = catalog_open(ShareRowExclusiveLock);
	all = maintain_entries_all(&n);
	for (int i = 0; i < n; i++)
	{
		if (all[i]->results == PG_GETARG_OID(C_RESULTS - 2))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("\"%s\" is maintained already", get_rel_name(all[i]->results))));
		id = Max(id, all[i]->id + 1);
	}
	values[C_ID - 1] = Int32GetDatum(id);
	nulls[C_ID - 1] = false;
	tup = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tup);
	catalog_changed(rel);
	table_close(rel, NoLock);
	CommandCounterIncrement();
	PG_RETURN_INT32(id);
}

void
maintain_entry_delete(const MaintainEntry *e)
{
	Relation	rel = catalog_open(ShareRowExclusiveLock);
	ItemPointerData tid = e->tid;

	CatalogTupleDelete(rel, &tid);
	catalog_changed(rel);
	table_close(rel, NoLock);
	CommandCounterIncrement();
}
