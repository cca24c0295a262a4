/*
 * maintain_cache.c
 *	  The runs whose states a backend's insert trigger wrote last
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

void
maintain_cache_clear(StateCache *c)
{
	MemoryContextReset(c->cxt);
	kept_in_backend -= c->bytes;
	c->n = c->max = 0;
	c->runs = NULL;
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

AggState *
maintain_cache_take(StateCache *c, int *pos, Datum part, Datum state,
					Oid key_coll, FmgrInfo *cmp, Oid coll, MemoryContext cxt,
					MemoryContext *as_cxt)
{
	if (key_coll != c->key_coll)
		return NULL;
	while (*pos < c->n)
	{
		CachedRun  *r = &c->runs[*pos];
		int32		order = DatumGetInt32(FunctionCall2Coll(cmp, coll, r->part, part));
		AggState   *as;

		if (order > 0)
			return NULL;
		(*pos)++;
		if (order < 0)
			continue;
		if (r->as == NULL || !same_bytes(state, r->state))
			return NULL;
		as = r->as;
		MemoryContextSetParent(r->cxt, cxt);
		*as_cxt = r->cxt;
		r->as = NULL;
		r->cxt = NULL;
		return as;
	}
	return NULL;
}

bool
maintain_cache_address(StateCache *c, int *pos, Datum part, FmgrInfo *cmp, Oid coll,
					   ItemPointer tid)
{
	while (*pos < c->n)
	{
		CachedRun  *r = &c->runs[*pos];
		int32		order = DatumGetInt32(FunctionCall2Coll(cmp, coll, r->part, part));

		if (order > 0)
			return false;
		(*pos)++;
		if (order < 0)
			continue;
		if (r->as == NULL || !ItemPointerIsValid(&r->tid))
			return false;
		ItemPointerCopy(&r->tid, tid);
		return true;
	}
	return false;
}

bool
maintain_cache_keep(StateCache *c, Datum part, int16 typlen, bool typbyval,
					Datum state, ItemPointer tid, Oid rel, Oid key_coll,
					AggState *as, MemoryContext as_cxt)
{
	Size		bytes = MemoryContextMemAllocated(as_cxt, true) + VARSIZE_ANY(DatumGetPointer(state));
	MemoryContext old;
	CachedRun  *r;

	if (c->bytes + bytes > MAINTAIN_CACHE_BYTES ||
		kept_in_backend + bytes > MAINTAIN_CACHE_BACKEND_BYTES)
		return false;
	old = MemoryContextSwitchTo(c->cxt);
	if (c->n == c->max)
	{
		c->max = Max(16, c->max * 2);
		c->runs = c->runs ? repalloc(c->runs, sizeof(CachedRun) * c->max) :
			palloc(sizeof(CachedRun) * c->max);
	}
	r = &c->runs[c->n++];
	c->key_coll = key_coll;
	/* kept beyond the statement: never a pointer into TOAST data */
	r->part = typlen == -1 ? PointerGetDatum(PG_DETOAST_DATUM_COPY(part)) :
		datumCopy(part, typbyval, typlen);
	r->state = palloc(VARSIZE_ANY(DatumGetPointer(state)));
	memcpy(r->state, DatumGetPointer(state), VARSIZE_ANY(DatumGetPointer(state)));
	r->as = as;
	r->cxt = as_cxt;
	if (tid != NULL && ItemPointerIsValid(tid))
	{
		ItemPointerCopy(tid, &r->tid);
		c->rel = rel;
	}
	else
		ItemPointerSetInvalid(&r->tid);
	MemoryContextSetParent(as_cxt, c->cxt);
	c->bytes += bytes;
	kept_in_backend += bytes;
	MemoryContextSwitchTo(old);
	return true;
}
