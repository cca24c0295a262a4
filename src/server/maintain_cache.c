/*
 * maintain_cache.c
 *	  The runs whose states a backend's insert trigger wrote
 *	  (maintain_cache.h).
 */
#include "postgres.h"

#include "utils/datum.h"
#include "utils/memutils.h"

#include "sp_compat.h"
#include "maintain_cache.h"

/* What every trigger's cache holds, in this backend. */
static Size kept_in_backend = 0;

void
maintain_cache_init(StateCache *c, MemoryContext parent)
{
	memset(c, 0, sizeof(StateCache));
	c->cxt = AllocSetContextCreate(parent, "segpipe insert trigger runs",
								   ALLOCSET_DEFAULT_SIZES);
}

/*
 * Let go of a kept run's memory; the entry stays, as a husk with its part,
 * until maintain_cache_kept.
 */
static void
drop_run(StateCache *c, CachedRun *r)
{
	if (r->cxt != NULL)
		MemoryContextDelete(r->cxt);
	if (r->state != NULL)
		pfree(r->state);
	c->bytes -= r->bytes;
	kept_in_backend -= r->bytes;
	r->as = NULL;
	r->cxt = NULL;
	r->state = NULL;
	r->bytes = 0;
}

void
maintain_cache_clear(StateCache *c)
{
	/* the runs' contexts are children of c->cxt */
	MemoryContextReset(c->cxt);
	kept_in_backend -= c->bytes;
	c->n = c->max = 0;
	c->runs = NULL;
	c->n_new = c->max_new = 0;
	c->new_runs = NULL;
	c->bytes = 0;
	c->rel = InvalidOid;
}

/* A stored state's bytes equal to kept: a compressed or external one never is. */
static bool
same_bytes(Datum stored, const struct varlena *kept)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(stored);

	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		return false;
	return VARSIZE_ANY_EXHDR(v) == VARSIZE_ANY_EXHDR(kept) &&
		memcmp(VARDATA_ANY(v), VARDATA_ANY(kept), VARSIZE_ANY_EXHDR(kept)) == 0;
}

/*
 * The entry of sensor part, walking from *pos in sort order (cmp under
 * coll), as the sensors are asked for; NULL when there is none.
 */
static CachedRun *
find(StateCache *c, int *pos, Datum part, FmgrInfo *cmp, Oid coll)
{
	while (*pos < c->n)
	{
		CachedRun  *r = &c->runs[*pos];
		int32		order = DatumGetInt32(FunctionCall2Coll(cmp, coll, r->part, part));

		if (order > 0)
			return NULL;
		(*pos)++;
		if (order == 0)
			return r;
	}
	return NULL;
}

AggState *
maintain_cache_take(StateCache *c, int *pos, Datum part, Datum state,
					Oid key_coll, FmgrInfo *cmp, Oid coll, MemoryContext cxt,
					MemoryContext *as_cxt)
{
	CachedRun  *r;
	AggState   *as;

	if (key_coll != c->key_coll)
		return NULL;
	r = find(c, pos, part, cmp, coll);
	if (r == NULL || r->as == NULL)
		return NULL;
	if (!same_bytes(state, r->state))
	{
		/* another writer came in between: this run will not serve again */
		drop_run(c, r);
		return NULL;
	}
	as = r->as;
	MemoryContextSetParent(r->cxt, cxt);
	*as_cxt = r->cxt;
	/* the run is the statement's now */
	r->cxt = NULL;
	drop_run(c, r);
	return as;
}

bool
maintain_cache_address(StateCache *c, int *pos, Datum part, FmgrInfo *cmp, Oid coll,
					   ItemPointer tid)
{
	CachedRun  *r = find(c, pos, part, cmp, coll);

	if (r == NULL || r->as == NULL || !ItemPointerIsValid(&r->tid))
		return false;
	ItemPointerCopy(&r->tid, tid);
	return true;
}

/* Room for bytes more within both caps? */
static bool
fits(StateCache *c, Size bytes)
{
	return c->bytes + bytes <= MAINTAIN_CACHE_BYTES &&
		kept_in_backend + bytes <= MAINTAIN_CACHE_BACKEND_BYTES;
}

/*
 * Make room for bytes more by letting go of the runs kept longest ago
 * (those of the earliest statement still kept), one by one; false when
 * none is left and there is still no room.
 */
static bool
make_room(StateCache *c, Size bytes)
{
	while (!fits(c, bytes))
	{
		uint64		oldest = PG_UINT64_MAX;

		for (int i = 0; i < c->n; i++)
			if (c->runs[i].as != NULL && c->runs[i].stamp < oldest)
				oldest = c->runs[i].stamp;
		if (oldest == PG_UINT64_MAX)
			return false;
		for (int i = 0; i < c->n && !fits(c, bytes); i++)
			if (c->runs[i].as != NULL && c->runs[i].stamp == oldest)
				drop_run(c, &c->runs[i]);
	}
	return true;
}

bool
maintain_cache_keep(StateCache *c, Datum part, int16 typlen, bool typbyval,
					Datum state, ItemPointer tid, Oid rel, Oid key_coll,
					AggState *as, MemoryContext as_cxt)
{
	Size		bytes = MemoryContextMemAllocated(as_cxt, true) + VARSIZE_ANY(DatumGetPointer(state));
	MemoryContext old;
	CachedRun  *r;

	/* runs kept under another key collation would never be taken again */
	if (key_coll != c->key_coll)
	{
		for (int i = 0; i < c->n; i++)
			if (c->runs[i].as != NULL)
				drop_run(c, &c->runs[i]);
		c->key_coll = key_coll;
	}
	/* addresses in another table are no addresses */
	if (tid != NULL && ItemPointerIsValid(tid) && rel != c->rel)
	{
		for (int i = 0; i < c->n; i++)
			ItemPointerSetInvalid(&c->runs[i].tid);
		c->rel = rel;
	}
	if (!make_room(c, bytes))
		return false;

	old = MemoryContextSwitchTo(c->cxt);
	if (c->n_new == c->max_new)
	{
		c->max_new = Max(16, c->max_new * 2);
		c->new_runs = c->new_runs ? repalloc(c->new_runs, sizeof(CachedRun) * c->max_new) :
			palloc(sizeof(CachedRun) * c->max_new);
	}
	r = &c->new_runs[c->n_new++];
	/* kept beyond the statement: never a pointer into TOAST data */
	r->part = typlen == -1 ? PointerGetDatum(PG_DETOAST_DATUM_COPY(part)) :
		datumCopy(part, typbyval, typlen);
	r->part_copied = !typbyval;
	r->state = palloc(VARSIZE_ANY(DatumGetPointer(state)));
	memcpy(r->state, DatumGetPointer(state), VARSIZE_ANY(DatumGetPointer(state)));
	r->as = as;
	r->cxt = as_cxt;
	if (tid != NULL && ItemPointerIsValid(tid))
		ItemPointerCopy(tid, &r->tid);
	else
		ItemPointerSetInvalid(&r->tid);
	r->stamp = c->stamp + 1;
	r->bytes = bytes;
	MemoryContextSetParent(as_cxt, c->cxt);
	c->bytes += bytes;
	kept_in_backend += bytes;
	MemoryContextSwitchTo(old);
	return true;
}

/* An entry leaves the array: its part too. */
static void
forget(StateCache *c, CachedRun *r)
{
	drop_run(c, r);
	if (r->part_copied)
		pfree(DatumGetPointer(r->part));
}

void
maintain_cache_begin(StateCache *c)
{
	for (int j = 0; j < c->n_new; j++)
		forget(c, &c->new_runs[j]);
	c->n_new = 0;
}

void
maintain_cache_kept(StateCache *c, FmgrInfo *cmp, Oid coll)
{
	CachedRun  *merged;
	int			n = 0,
				i = 0,
				j = 0;

	merged = MemoryContextAlloc(c->cxt, sizeof(CachedRun) * Max(c->n + c->n_new, 1));
	while (i < c->n || j < c->n_new)
	{
		CachedRun  *r = (i < c->n) ? &c->runs[i] : NULL;
		int32		order;

		if (r != NULL && r->as == NULL)
		{
			/* taken, or let go of */
			forget(c, r);
			i++;
			continue;
		}
		if (r == NULL)
			order = 1;
		else if (j == c->n_new)
			order = -1;
		else
			order = DatumGetInt32(FunctionCall2Coll(cmp, coll, r->part, c->new_runs[j].part));
		if (order < 0)
		{
			merged[n++] = *r;
			i++;
			continue;
		}
		if (order == 0)
		{
			/* the statement's run of the sensor replaces the one before */
			forget(c, r);
			i++;
		}
		merged[n++] = c->new_runs[j++];
	}
	if (c->runs != NULL)
		pfree(c->runs);
	c->runs = merged;
	c->n = c->max = n;
	c->n_new = 0;
	c->stamp++;
}
