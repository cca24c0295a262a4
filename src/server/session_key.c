/*
 * session_key.c
 *	  session_key(ts, gap): a window function giving each row the key of its
 *	  session, sessions split by silence (docs/reference.md, "Sessions").
 *
 * A row starts a new session when the time since the row before it (in
 * the window's order) is longer than gap; its key is the timestamp of the
 * session's first row.  So two rows are in one session when a chain of
 * rows joins them, each within gap of the one before: Flink's session
 * windows, whose windows [t, t + gap) merge when they touch.  Like
 * segment_agg, it handles the current row only, with its state in
 * partition-local memory.
 */
#include "postgres.h"

#include "fmgr.h"
#include "common/int.h"
#include "utils/timestamp.h"
#include "windowapi.h"

PG_FUNCTION_INFO_V1(session_key);

typedef struct SessionState
{
	int64		next_pos;		/* the row we expect next */
	int64		gap;			/* microseconds */
	bool		has_row;
	TimestampTz last;
	TimestampTz start;
} SessionState;

/* The gap, read on the partition's first row: no months, not negative. */
static int64
read_gap(WindowObject winobj)
{
	bool		isnull;
	Datum		d = WinGetFuncArgCurrent(winobj, 1, &isnull);
	Interval   *iv;
	int64		us;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gap must not be null")));
	iv = DatumGetIntervalP(d);
	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gap must not contain months or years"),
				 errdetail("A gap is elapsed time; a day counts as 24 hours.")));
	if (pg_mul_s64_overflow(iv->day, USECS_PER_DAY, &us) ||
		pg_add_s64_overflow(us, iv->time, &us))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("gap is out of range")));
	if (us < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gap must not be negative")));
	return us;
}

/* session_key(ts timestamptz, gap interval) → timestamptz */
Datum
session_key(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	SessionState *ss = WinGetPartitionLocalMemory(winobj, sizeof(SessionState));
	int64		pos = WinGetCurrentPosition(winobj);
	bool		isnull;
	Datum		d;
	TimestampTz ts;

	if (pos == 0)
		ss->gap = read_gap(winobj);
	else if (unlikely(pos != ss->next_pos))
		elog(ERROR, "window function called out of order (position " INT64_FORMAT ")", pos);
	ss->next_pos = pos + 1;
	/* as segment_agg does: the executor may forget the rows before this one */
	if (pos % 16 == 0)
		WinSetMarkPosition(winobj, pos);

	d = WinGetFuncArgCurrent(winobj, 0, &isnull);
	if (isnull)
		PG_RETURN_NULL();		/* no time: no session, and nothing changes */
	ts = DatumGetTimestampTz(d);
	if (ss->has_row && ts < ss->last)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("row at %s is earlier than the row before it",
						pstrdup(timestamptz_to_str(ts))),
				 errdetail("session_key has seen a row at %s; rows must come in the order of their timestamps.",
						   pstrdup(timestamptz_to_str(ss->last))),
				 errhint("Order the window by the timestamp.")));
	/* both are timestamps, so the difference cannot overflow */
	if (!ss->has_row || ts - ss->last > ss->gap)
		ss->start = ts;
	ss->has_row = true;
	ss->last = ts;
	PG_RETURN_TIMESTAMPTZ(ss->start);
}
