/*
 * sp_heartbeat.c
 *	  Heartbeats: the timestamps of punctuation rows a source that says
 *	  nothing should still send, so that downstream segments close on time.
 *
 * heartbeats(unit, start, stop, zone) yields the instants at which
 * date_trunc(unit, ts, zone) changes, the moments a key computed that way
 * starts a new segment.  They are found by walking the zone's local clock
 * and its offset changes, not by converting local unit starts back to
 * instants: a local time that occurs twice (the hour repeated when clocks
 * go back) or never (the hour skipped) has no single instant, while the
 * instant at which the key changes always exists.  date_trunc keeps the
 * offset of ts for units below a day (so the hour lived twice is two keys,
 * two heartbeats) and looks the offset up again for a day and longer (so a
 * day in Berlin is one key of 23 or 25 hours); the walk does the same.
 *
 * quiet_heartbeats(since, until, quiet) yields since + quiet, since +
 * 2 quiet, ... strictly before `until`: the heartbeats of a source silent
 * from `since` to `until`.
 *
 * The walk reaches both ends of the timestamp range: local times there may
 * lie outside it (a zone east of UTC on the last day, west of it on the
 * first, and the start of a millennium that began before 4713 BC), so the
 * local calendar is computed in a frame shifted by 2000 years where the
 * server's own date arithmetic applies, then shifted back (see
 * frame_shift).  A unit whose start cannot be an instant in the range ends
 * the walk, so a stop at the last instant gives every row up to it.
 *
 * Both return one row per call (ValuePerCall): nothing is built ahead, so
 * in a select list they stream, and in FROM the executor's tuplestore
 * spills to disk past work_mem, as for generate_series.  Their bounds must
 * be finite; nothing else limits a range, as nothing limits
 * generate_series.  Neither reads a session setting: the zone is an
 * argument and intervals are measured in elapsed time.
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "sp_compat.h"

PG_FUNCTION_INFO_V1(sp_heartbeats);
PG_FUNCTION_INFO_V1(sp_quiet_heartbeats);

/* seconds from the Unix epoch to the PostgreSQL epoch */
#define SP_EPOCH_DIFF \
	((pg_time_t) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)

typedef struct HbWalk
{
	pg_tz	   *zone;
	text	   *unit_name;		/* for timestamp_trunc */
	Interval	step;			/* one unit, on the local calendar */
	TimestampTz t;				/* the latest boundary (or start) */
	long		off;			/* the zone's offset at t, seconds east */
	Timestamp	unit;			/* the local unit t is in */
	bool		keeps_offset;	/* below a day: the key carries the offset */
	TimestampTz stop;
	bool		first;			/* start not looked at yet */
} HbWalk;

static void
check_finite(TimestampTz a, TimestampTz b)
{
	if (TIMESTAMP_NOT_FINITE(a) || TIMESTAMP_NOT_FINITE(b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("heartbeat bounds must be finite")));
}

/* The zone's offset (seconds east of UTC) at instant t. */
static long
offset_at(pg_tz *zone, TimestampTz t)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(t, &tz, &tm, &fsec, NULL, zone) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	return -tz;
}

/*
 * 2000 Gregorian years: five cycles of 400 years, each 146097 days (whole
 * weeks), so a date and its weekday, leap years, and the starts of
 * decades, centuries and millennia all repeat 2000 years apart.
 */
#define SHIFT_USECS		(INT64CONST(730485) * USECS_PER_DAY)

/*
 * Within this of an end of the range (1100 years: more than a millennium
 * plus a day of offset), local calendar arithmetic may leave the range.
 */
#define EDGE_USECS		(INT64CONST(1100 * 366) * USECS_PER_DAY)

/*
 * The shift that brings the local time 'local' (microseconds from
 * 2000-01-01, possibly outside the timestamp range near its ends) to where
 * a unit's start and the next unit's are valid timestamps: 2000 years up
 * near the lower end (still before 1 BC, where date_trunc's rules for
 * decades, centuries and millennia differ), down near the upper end, none
 * in between.
 */
static int64
frame_shift(Timestamp local)
{
	if (local < MIN_TIMESTAMP + EDGE_USECS)
		return SHIFT_USECS;
	if (local > END_TIMESTAMP - EDGE_USECS)
		return -SHIFT_USECS;
	return 0;
}

static Timestamp
trunc_valid(HbWalk *w, Timestamp local)
{
	return DatumGetTimestamp(DirectFunctionCall2(timestamp_trunc,
												 PointerGetDatum(w->unit_name),
												 TimestampGetDatum(local)));
}

/* The local unit (a timestamp without zone) holding local time local. */
static Timestamp
trunc_local(HbWalk *w, Timestamp local)
{
	int64		shift = frame_shift(local);

	/* the start is at most a millennium earlier: no overflow either way */
	return trunc_valid(w, local + shift) - shift;
}

/*
 * The start of the local unit after w->unit; false when it is beyond what
 * a timestamp can hold (it can then start no instant in the range).
 */
static bool
next_local_unit(HbWalk *w, Timestamp *next)
{
	int64		shift = frame_shift(w->unit);
	Timestamp	n;

	n = DatumGetTimestamp(DirectFunctionCall2(timestamp_pl_interval,
											  TimestampGetDatum(w->unit + shift),
											  PointerGetDatum(&w->step)));
	n = trunc_valid(w, n);
	if (n <= w->unit + shift)
		elog(ERROR, "local calendar unit did not advance");
	return !pg_sub_s64_overflow(n, shift, next);
}

/* Local time at instant t (in the range) and offset off: never overflows. */
static Timestamp
local_time(TimestampTz t, long off)
{
	return t + (int64) off * USECS_PER_SEC;
}

/*
 * Whether date_trunc's key differs between (unit a, offset a) and (unit b,
 * offset b): the local unit's start at the instant's own offset below a
 * day, the local unit alone from a day up.
 */
static bool
key_differs(const HbWalk *w, Timestamp unit_a, long off_a, Timestamp unit_b, long off_b)
{
	if (w->keeps_offset)
		return unit_a - (int64) off_a * USECS_PER_SEC != unit_b - (int64) off_b * USECS_PER_SEC;
	return unit_a != unit_b;
}

/*
 * The zone's first transition strictly after t, if it has one.  The time
 * zone library speaks whole seconds and transitions fall on whole seconds,
 * so the first transition after t is the first one at or after the next
 * whole second.
 */
static bool
next_transition(pg_tz *zone, TimestampTz t, TimestampTz *tr)
{
	pg_time_t	s = t / USECS_PER_SEC;
	pg_time_t	b;
	long		before_off,
				after_off;
	int			before_dst,
				after_dst;
	int64		usec;

	if (t < 0 && t % USECS_PER_SEC != 0)
		s--;					/* floor */
	s += SP_EPOCH_DIFF;
	if (pg_next_dst_boundary(&s, &before_off, &before_dst, &b,
							 &after_off, &after_dst, zone) != 1)
		return false;
	if (b <= s)
	{
		/* only the zone's first transition is returned "at or after" s */
		s = b + 1;
		if (pg_next_dst_boundary(&s, &before_off, &before_dst, &b,
								 &after_off, &after_dst, zone) != 1 || b < s)
			return false;
	}
	if (pg_mul_s64_overflow((int64) (b - SP_EPOCH_DIFF), USECS_PER_SEC, &usec) ||
		!IS_VALID_TIMESTAMP(usec))
		return false;
	*tr = usec;
	return true;
}

/*
 * The next instant after w->t at which the local unit changes: either the
 * local clock reaches the next unit at the current offset, or the offset
 * changes first and the clock jumps into another unit.
 */
static TimestampTz
next_boundary(HbWalk *w)
{
	for (;;)
	{
		Timestamp	next_unit;
		TimestampTz cand;
		TimestampTz tr;

		CHECK_FOR_INTERRUPTS();
		/* no next unit, or one that starts after the range: no candidate */
		if (!next_local_unit(w, &next_unit) ||
			pg_sub_s64_overflow(next_unit, (int64) w->off * USECS_PER_SEC, &cand) ||
			!IS_VALID_TIMESTAMP(cand))
			cand = DT_NOEND;
		if (next_transition(w->zone, w->t, &tr) && tr <= cand)
		{
			long		off = offset_at(w->zone, tr);
			Timestamp	unit = trunc_local(w, local_time(tr, off));
			bool		differs = key_differs(w, w->unit, w->off, unit, off);

			w->t = tr;
			w->off = off;
			w->unit = unit;
			if (differs)
				return tr;
			continue;			/* the key is the same on both sides */
		}
		if (cand == DT_NOEND)
			return cand;		/* after every stop: the walk ends */
		w->t = cand;
		w->unit = next_unit;
		return cand;
	}
}

/*
 * One unit of the local calendar, for a date_trunc unit name; *keeps_offset
 * says whether date_trunc keeps the offset of its argument for it.
 */
static void
unit_step(text *unit_name, Interval *step, bool *keeps_offset)
{
	char	   *low = downcase_truncate_identifier(VARDATA_ANY(unit_name),
												   VARSIZE_ANY_EXHDR(unit_name),
												   false);
	int			val;
	int			type = DecodeUnits(0, low, &val);

	memset(step, 0, sizeof(Interval));
	*keeps_offset = (type == UNITS &&
					 (val == DTK_MICROSEC || val == DTK_MILLISEC || val == DTK_SECOND ||
					  val == DTK_MINUTE || val == DTK_HOUR));
	if (type == UNITS)
		switch (val)
		{
			case DTK_MICROSEC:
				step->time = 1;
				return;
			case DTK_MILLISEC:
				step->time = 1000;
				return;
			case DTK_SECOND:
				step->time = USECS_PER_SEC;
				return;
			case DTK_MINUTE:
				step->time = USECS_PER_MINUTE;
				return;
			case DTK_HOUR:
				step->time = USECS_PER_HOUR;
				return;
			case DTK_DAY:
				step->day = 1;
				return;
			case DTK_WEEK:
				step->day = 7;
				return;
			case DTK_MONTH:
				step->month = 1;
				return;
			case DTK_QUARTER:
				step->month = 3;
				return;
			case DTK_YEAR:
				step->month = MONTHS_PER_YEAR;
				return;
			case DTK_DECADE:
				step->month = 10 * MONTHS_PER_YEAR;
				return;
			case DTK_CENTURY:
				step->month = 100 * MONTHS_PER_YEAR;
				return;
			case DTK_MILLENNIUM:
				step->month = 1000 * MONTHS_PER_YEAR;
				return;
		}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unit \"%s\" not recognized", text_to_cstring(unit_name)),
			 errhint("Use a unit of date_trunc: microseconds, milliseconds, second, minute, hour, day, week, month, quarter, year, decade, century or millennium.")));
}

static pg_tz *
zone_named(text *name)
{
	char	   *zone_name = text_to_cstring(name);
	pg_tz	   *zone = pg_tzset(zone_name);

	if (zone == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time zone \"%s\" not recognized", zone_name),
				 errhint("Heartbeats take a time zone name, as listed in pg_timezone_names, not an abbreviation.")));
	return zone;
}

/*
 * heartbeats(unit text, start timestamptz, stop timestamptz, zone text)
 *	 -> SETOF timestamptz
 *
 * The instants t in [start, stop] at which date_trunc(unit, t, zone)
 * differs from its value one microsecond earlier, ascending.
 */
Datum
sp_heartbeats(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	HbWalk	   *w;
	TimestampTz t;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TimestampTz start = PG_GETARG_TIMESTAMPTZ(1);
		TimestampTz stop = PG_GETARG_TIMESTAMPTZ(2);

		check_finite(start, stop);
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		w = palloc0(sizeof(HbWalk));
		w->unit_name = PG_GETARG_TEXT_P_COPY(0);
		unit_step(w->unit_name, &w->step, &w->keeps_offset);
		w->zone = zone_named(PG_GETARG_TEXT_PP(3));
		w->t = start;
		w->stop = stop;
		w->first = true;
		MemoryContextSwitchTo(old);
		funcctx->user_fctx = w;
	}
	funcctx = SRF_PERCALL_SETUP();
	w = funcctx->user_fctx;

	if (w->first)
	{
		w->first = false;
		if (w->t > w->stop)
			SRF_RETURN_DONE(funcctx);
		w->off = offset_at(w->zone, w->t);
		w->unit = trunc_local(w, local_time(w->t, w->off));
		/* start is itself a boundary when the unit changes there */
		if (w->t > MIN_TIMESTAMP)
		{
			TimestampTz prev = w->t - 1;
			long		prev_off = offset_at(w->zone, prev);
			Timestamp	prev_unit = trunc_local(w, local_time(prev, prev_off));

			if (key_differs(w, prev_unit, prev_off, w->unit, w->off))
				SRF_RETURN_NEXT(funcctx, TimestampTzGetDatum(w->t));
		}
	}
	t = next_boundary(w);
	if (t > w->stop)
		SRF_RETURN_DONE(funcctx);
	SRF_RETURN_NEXT(funcctx, TimestampTzGetDatum(t));
}

typedef struct QuietWalk
{
	TimestampTz next;
	TimestampTz until;
	int64		quiet;			/* microseconds */
	bool		done;
} QuietWalk;

/*
 * quiet_heartbeats(since timestamptz, until timestamptz, quiet interval)
 *	 -> SETOF timestamptz
 *
 * since + k * quiet for k = 1, 2, ... while strictly before `until`.  The
 * quiet period is elapsed time, as date_bin measures a stride: a day is 24
 * hours, and months, which have no fixed length, are refused.
 */
Datum
sp_quiet_heartbeats(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	QuietWalk  *q;
	TimestampTz t;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TimestampTz since = PG_GETARG_TIMESTAMPTZ(0);
		TimestampTz until = PG_GETARG_TIMESTAMPTZ(1);
		Interval   *quiet = PG_GETARG_INTERVAL_P(2);
		int64		usec;

		check_finite(since, until);
		if (quiet->month != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("quiet period must not contain months or years"),
					 errdetail("A quiet period is elapsed time; a day counts as 24 hours.")));
		if (pg_mul_s64_overflow(quiet->day, USECS_PER_DAY, &usec) ||
			pg_add_s64_overflow(usec, quiet->time, &usec))
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("interval out of range")));
		if (usec <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("quiet period must be greater than zero")));
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		q = palloc0(sizeof(QuietWalk));
		q->next = since;
		q->until = until;
		q->quiet = usec;
		MemoryContextSwitchTo(old);
		funcctx->user_fctx = q;
	}
	funcctx = SRF_PERCALL_SETUP();
	q = funcctx->user_fctx;

	/* until is finite, so a sum below it never leaves the range */
	if (q->done || pg_add_s64_overflow(q->next, q->quiet, &t) || t >= q->until)
	{
		q->done = true;
		SRF_RETURN_DONE(funcctx);
	}
	q->next = t;
	SRF_RETURN_NEXT(funcctx, TimestampTzGetDatum(t));
}
