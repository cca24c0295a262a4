/*
 * maintain_changed.c
 *	  The sensors an UPDATE or a DELETE of the readings touched, and from
 *	  when, read from its transition tables (maintain_changed.h).
 *
 * MS_CHG_UPDATE and MS_CHG_DELETE say the same in SQL; a statement costs
 * more than the change of one reading takes to read (an executor started
 * and ended, an aggregate, two arrays), so where the sensor column is an
 * integer, as in most tables, the rows are read here.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "maintain_changed.h"

/* one row of a transition table: its sensor, as an integer, and its ts */
typedef struct ChangedRow
{
	int64		part;
	TimestampTz ts;
	bool		tsnull;
} ChangedRow;

static int
changed_row_cmp(const void *a, const void *b)
{
	int64		x = ((const ChangedRow *) a)->part;
	int64		y = ((const ChangedRow *) b)->part;

	return (x > y) - (x < y);
}

/* an integer column's value as int64, and back */
static int64
part_of(Datum d, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

static Datum
part_datum(int64 v, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) v);
		case INT4OID:
			return Int32GetDatum((int32) v);
		default:
			return Int64GetDatum(v);
	}
}

/*
 * Append the rows of one transition table; false at a NULL sensor (the
 * statement groups those as SQL does).
 */
static bool
read_rows(Tuplestorestate *store, TupleDesc desc, AttrNumber part_att, AttrNumber ts_att,
		  Oid part_type, ChangedRow **rows, int64 *n, int64 *size)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	int			ptr;
	bool		ok = true;

	/* a read pointer of its own, as a scan of the transition table has */
	ptr = tuplestore_alloc_read_pointer(store, EXEC_FLAG_REWIND);
	tuplestore_select_read_pointer(store, ptr);
	tuplestore_rescan(store);
	while (tuplestore_gettupleslot(store, true, false, slot))
	{
		bool		isnull;
		Datum		part = slot_getattr(slot, part_att, &isnull);
		ChangedRow *r;

		if (isnull)
		{
			ok = false;
			break;
		}
		if (*n == *size)
		{
			*size *= 2;
			*rows = repalloc_huge(*rows, sizeof(ChangedRow) * *size);
		}
		r = &(*rows)[(*n)++];
		r->part = part_of(part, part_type);
		r->ts = DatumGetTimestampTz(slot_getattr(slot, ts_att, &r->tsnull));
	}
	tuplestore_select_read_pointer(store, 0);
	ExecDropSingleTupleTableSlot(slot);
	return ok;
}

bool
maintain_changed(MaintainPlans *mp, TriggerData *td, Datum *parts, Datum *since)
{
	TupleDesc	desc = RelationGetDescr(td->tg_relation);
	Oid			part_type = mp->part_type;
	int			part_att = SPI_fnumber(desc, mp->entry->part_col);
	int			ts_att = SPI_fnumber(desc, mp->entry->ts_col);
	bool		keep = mp->entry->beyond == BEYOND_KEEP;
	ChangedRow *rows;
	int64		n = 0,
				size = 16,
				out = 0;
	Datum	   *pv,
			   *tv;
	bool	   *tnulls;
	int			dims[1];
	int			lbs[1] = {1};
	int16		len;
	bool		byval;
	char		align;

	/* integers only, as the readings have them now; else the statement */
	if (part_type != INT2OID && part_type != INT4OID && part_type != INT8OID)
		return false;
	if (part_att <= 0 || ts_att <= 0 ||
		TupleDescAttr(desc, part_att - 1)->atttypid != part_type ||
		TupleDescAttr(desc, ts_att - 1)->atttypid != TIMESTAMPTZOID)
		return false;

	rows = palloc(sizeof(ChangedRow) * size);
	if (!read_rows(td->tg_oldtable, desc, part_att, ts_att, part_type, &rows, &n, &size) ||
		(td->tg_newtable != NULL &&
		 !read_rows(td->tg_newtable, desc, part_att, ts_att, part_type, &rows, &n, &size)))
		return false;
	if (n == 0)
	{
		*parts = (Datum) 0;		/* as array_agg of no rows: nothing to correct */
		return true;
	}

	/* under 'keep' every row; else each sensor once, with its earliest ts (min() skips NULLs) */
	if (!keep)
	{
		qsort(rows, n, sizeof(ChangedRow), changed_row_cmp);
		for (int64 i = 0; i < n; i++)
		{
			if (out > 0 && rows[out - 1].part == rows[i].part)
			{
				ChangedRow *g = &rows[out - 1];

				if (!rows[i].tsnull && (g->tsnull || rows[i].ts < g->ts))
				{
					g->ts = rows[i].ts;
					g->tsnull = false;
				}
			}
			else
				rows[out++] = rows[i];
		}
	}
	else
		out = n;
	if (out > MaxArraySize)
		return false;

	pv = palloc(sizeof(Datum) * out);
	tv = palloc(sizeof(Datum) * out);
	tnulls = palloc(sizeof(bool) * out);
	for (int64 i = 0; i < out; i++)
	{
		pv[i] = part_datum(rows[i].part, part_type);
		tv[i] = TimestampTzGetDatum(rows[i].ts);
		tnulls[i] = rows[i].tsnull;
	}
	dims[0] = (int) out;
	get_typlenbyvalalign(part_type, &len, &byval, &align);
	*parts = PointerGetDatum(construct_array(pv, (int) out, part_type, len, byval, align));
	*since = PointerGetDatum(construct_md_array(tv, tnulls, 1, dims, lbs, TIMESTAMPTZOID,
												sizeof(TimestampTz), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	return true;
}
