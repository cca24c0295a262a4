/*
 * sp_time.h
 *	  What the operators that know time share: durations as a spec gives
 *	  them, the order of timestamps, and a window of time over a ring.
 *
 * Timestamps are PostgreSQL's TimestampTz, microseconds since 2000-01-01
 * 00:00 UTC, passed as int64 (the engine sees no SQL types).  A duration is
 * a number of microseconds; a day counts 24 hours, since the timestamps are
 * absolute and no time zone enters.
 */
#ifndef SP_TIME_H
#define SP_TIME_H

#include <math.h>

#include "datatype/timestamp.h"
#include "sp_compat.h"
#include "sp_operator.h"

#define SP_USECS_PER_SECOND	INT64CONST(1000000)
#define SP_USECS_PER_DAY	(INT64CONST(86400) * SP_USECS_PER_SECOND)

/*
 * The longest duration a spec may give: 100000 days (about 274 years), so
 * that any span within it is exact as a float8 (below 2^53 microseconds),
 * which lets rings of float8 hold the gaps between timestamps (see
 * SpTimeSpan).
 */
#define SP_MAX_DURATION		(INT64CONST(100000) * SP_USECS_PER_DAY)

/*
 * Parse a duration: PostgreSQL's interval syntax without months or years
 * (docs/reference.md, "Durations").  Returns NULL and sets *us, or returns
 * a message.  The result depends on the text alone, never on a session
 * setting (IntervalStyle, DateStyle).  The message is a sentence for a
 * detail.
 */
extern const char *sp_duration_parse(const char *text, int64 *us);

/* The canonical text of a duration, HH:MM:SS[.ffffff], palloc'd. */
extern char *sp_duration_text(int64 us);

/*
 * The resamplers' grids.  A grid's t0 is given as seconds since 1970-01-01
 * 00:00 UTC: as a TimestampTz, exact to the microsecond.
 */
static inline int64
sp_grid_t0(double seconds)
{
	return (int64) rint(seconds * 1e6) -
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SP_USECS_PER_DAY;
}

/*
 * base + steps, or PG_INT64_MAX when beyond: a grid point past every
 * timestamp, which no row reaches.  Differences of timestamps are taken
 * in uint64, exact for a later minus an earlier one: a segment may span
 * 4714 BC to 294276 AD, more than int64 holds.
 */
static inline int64
sp_grid_add(int64 base, uint64 steps)
{
	uint64		room = (uint64) PG_INT64_MAX - (uint64) base;

	return steps > room ? PG_INT64_MAX : (int64) ((uint64) base + steps);
}

/*
 * A timed operator's rows must come in the order of their timestamps:
 * ts earlier than last is an error naming the operator type.
 */
SP_NORETURN extern void sp_time_order_error(const char *what, int64 last, int64 ts);

static inline void
sp_time_order(const char *what, int64 count, int64 last, int64 ts)
{
	if (unlikely(count > 0 && ts < last))
		sp_time_order_error(what, last, ts);
}

/* A duration window's ring is full: 54000 naming the operator type. */
SP_NORETURN extern void sp_time_ring_full(const char *what, const SpParams *p, int64 limit);

/*
 * A window of time: which rows are held, with their timestamps kept as the
 * gaps between them in a ring of float8 beside the operator's values
 * (exact: a gap between two rows held at once is below the window, at
 * most SP_MAX_DURATION).  first and last are the timestamps of the oldest
 * and the newest row held; the oldest's gap is 0 when it entered an empty
 * window, and otherwise what it was when it entered.  With no row held,
 * first and last are the last row's, or zero before any.
 */
typedef struct SpTimeSpan
{
	int64		first;
	int64		last;
} SpTimeSpan;

/* Whether the oldest row held leaves the window (t - w, t]. */
static inline bool
sp_span_expires(const SpTimeSpan *s, const SpRing *gaps, int64 t, int64 w)
{
	return gaps->count > 0 && s->first <= t - w;
}

/* The oldest row leaves: its gap goes, and first moves to the next one. */
static inline void
sp_span_pop(SpTimeSpan *s, SpRing *gaps)
{
	(void) sp_ring_pop_oldest(gaps);
	if (gaps->count > 0)
		s->first += (int64) sp_ring_get(gaps, 0);
}

/*
 * A row at t enters (after the rows that leave have left): false when the
 * ring has no room, for the caller's error.
 */
static inline bool
sp_span_push(SpTimeSpan *s, SpRing *gaps, int64 t)
{
	if (sp_ring_full(gaps))
		return false;
	if (gaps->count == 0)
	{
		sp_ring_push(gaps, 0.0);
		s->first = t;
	}
	else
		sp_ring_push(gaps, (double) (t - s->last));
	s->last = t;
	return true;
}

/*
 * The parameters of a window that may be given in rows ("window_size") or
 * in time ("window", with "min_rows"): exactly one of the two, and the
 * canonical text shows the parameters of the mode given only.
 */
extern bool sp_window_in_rows(const SpParams *p);
extern bool sp_window_in_time(const SpParams *p);

#define SP_PARAM_WINDOW_ROWS(lo) \
	{"window_size", SP_PARAM_INT, offsetof(SpParams, window_size), false, 0, \
	 (lo), SP_MAX_WINDOW, NULL, sp_window_in_rows}
#define SP_PARAM_WINDOW_TIME \
	{"window", SP_PARAM_INTERVAL, offsetof(SpParams, window_us), false, 0, \
	 0, 0, NULL, sp_window_in_time}
#define SP_PARAM_MIN_ROWS \
	{"min_rows", SP_PARAM_INT, offsetof(SpParams, min_rows), false, 0, \
	 1, SP_MAX_WINDOW, NULL, sp_window_in_time}

/*
 * check_params of such an operator: one of the two given (either, or
 * none, when rows_too is false: CountNumber counts without a window),
 * min_rows only with a window of time, where it defaults to 1.
 */
extern const char *sp_window_check(SpParams *p, bool rows_too);

/* Write and read a span's fields (the ring is the operator's to visit). */
extern void sp_span_visit(SpTimeSpan *s, SpStateVisitor *v);

/*
 * Check a decoded span against its ring of gaps, for a window of w:
 * returns NULL or a message.
 */
extern const char *sp_span_check(const SpTimeSpan *s, const SpRing *gaps, int64 w);

#endif							/* SP_TIME_H */
