/*
 * sp_ring.c
 *	  Growing a ring, and loading one from a decoded state or another ring.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "sp_ring.h"

/* The first allocation; small segments never need more. */
#define SP_RING_MIN_CAP 16

void
sp_ring_init(SpRing *r, int64 limit, MemoryContext cxt)
{
	memset(r, 0, sizeof(SpRing));
	r->limit = limit;
	r->cxt = cxt;
}

/*
 * Double the storage (at most up to the limit) and lay the values out
 * oldest first.  Called when count == cap < limit.
 */
void
sp_ring_grow(SpRing *r)
{
	int64		cap = Min(Max(r->cap * 2, SP_RING_MIN_CAP), r->limit);
	double	   *buf;
	int64		first;

	Assert(r->count == r->cap && r->cap < r->limit);
	buf = MemoryContextAllocHuge(r->cxt, sizeof(double) * cap);
	if (r->count > 0)
	{
		/* the held values are buf[head..cap) then buf[0..head) */
		first = r->cap - r->head;
		memcpy(buf, r->buf + r->head, sizeof(double) * first);
		memcpy(buf + first, r->buf, sizeof(double) * r->head);
	}
	if (r->buf)
		pfree(r->buf);
	r->buf = buf;
	r->cap = cap;
	r->head = 0;
}

void
sp_ring_reserve(SpRing *r, int64 n)
{
	double	   *buf;

	Assert(n <= r->limit);
	if (n <= r->cap)
		return;
	buf = MemoryContextAllocHuge(r->cxt, sizeof(double) * n);
	if (r->count > 0)
	{
		int64		first = Min(r->count, r->cap - r->head);

		memcpy(buf, r->buf + r->head, sizeof(double) * first);
		memcpy(buf + first, r->buf, sizeof(double) * (r->count - first));
	}
	if (r->buf)
		pfree(r->buf);
	r->buf = buf;
	r->cap = n;
	r->head = 0;
}

bool
sp_ring_load(SpRing *r, const double *vals, int64 n)
{
	if (n < 0 || n > r->limit)
		return false;
	sp_ring_clear(r);
	for (int64 i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		sp_ring_push(r, vals[i]);
	}
	return true;
}

void
sp_ring_copy(SpRing *dst, const SpRing *src)
{
	int64		first;

	Assert(dst->limit == src->limit);
	sp_ring_clear(dst);
	if (src->count == 0)
		return;
	if (dst->cap < src->count)
	{
		/* exactly what src holds: later pushes grow it as usual */
		if (dst->buf)
			pfree(dst->buf);
		dst->buf = MemoryContextAllocHuge(dst->cxt, sizeof(double) * src->count);
		dst->cap = src->count;
	}
	/* src's values, oldest first, are buf[head..) then wrap to buf[0..) */
	first = Min(src->count, src->cap - src->head);
	memcpy(dst->buf, src->buf + src->head, sizeof(double) * first);
	memcpy(dst->buf + first, src->buf, sizeof(double) * (src->count - first));
	dst->count = src->count;
}
