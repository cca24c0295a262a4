/*
 * sp_ring.h
 *	  A ring of float8 values that grows with what it holds, up to a limit.
 *
 * Every windowed operator keeps its window in rings: the sliding sums, the
 * extrema deques, the filters' delay lines.  Storage is allocated on the
 * first push and doubles as values arrive, never beyond the limit that the
 * operator's parameters set, so a segment of three rows costs three slots
 * however large the window; a ring read from a state is allocated once at
 * its size (sp_ring_reserve).  Clearing keeps the storage: a reset at a
 * boundary is O(1), and a ring never holds more than the largest segment
 * of its partition needed.
 *
 * The engine owns the rings (they are not part of an operator's zeroed
 * state); an operator reaches its own through the array passed to step.
 */
#ifndef SP_RING_H
#define SP_RING_H

#include "utils/palloc.h"

typedef struct SpRing
{
	double	   *buf;			/* NULL until the first push */
	int64		cap;			/* slots allocated */
	int64		limit;			/* most values it may hold */
	int64		head;			/* slot of the oldest value */
	int64		count;			/* values held */
	MemoryContext cxt;			/* where buf grows */
} SpRing;

extern void sp_ring_init(SpRing *r, int64 limit, MemoryContext cxt);
extern void sp_ring_grow(SpRing *r);

/* Make room for n values (at most limit) at once, when there is less. */
extern void sp_ring_reserve(SpRing *r, int64 n);

/* Replace the contents with vals[0..n), oldest first; false if n > limit. */
extern bool sp_ring_load(SpRing *r, const double *vals, int64 n);

/* Replace the contents of dst with those of src (rings of the same limit). */
extern void sp_ring_copy(SpRing *dst, const SpRing *src);

static inline void
sp_ring_clear(SpRing *r)
{
	r->head = 0;
	r->count = 0;
}

static inline bool
sp_ring_full(const SpRing *r)
{
	return r->count == r->limit;
}

/* The i-th oldest value held, 0 <= i < count. */
static inline double
sp_ring_get(const SpRing *r, int64 i)
{
	int64		s = r->head + i;

	if (s >= r->cap)
		s -= r->cap;
	return r->buf[s];
}

/* The k-th newest value held (k = 0: the newest). */
static inline double
sp_ring_newest(const SpRing *r, int64 k)
{
	return sp_ring_get(r, r->count - 1 - k);
}

/* Append x; the caller makes room first when the ring is full. */
static inline void
sp_ring_push(SpRing *r, double x)
{
	int64		s;

	Assert(r->count < r->limit);
	if (r->count == r->cap)
		sp_ring_grow(r);
	s = r->head + r->count;
	if (s >= r->cap)
		s -= r->cap;
	r->buf[s] = x;
	r->count++;
}

static inline double
sp_ring_pop_oldest(SpRing *r)
{
	double		x = r->buf[r->head];

	Assert(r->count > 0);
	if (++r->head == r->cap)
		r->head = 0;
	r->count--;
	return x;
}

static inline void
sp_ring_pop_newest(SpRing *r)
{
	Assert(r->count > 0);
	r->count--;
}

#endif							/* SP_RING_H */
