/*
 * ops_shift.c
 *	  TimeShift: on a row at time T, the value its input had on the row at
 *	  exactly T - shift, if there was one (docs/reference.md, "TimeShift").
 *
 * The original's TimeShift passes each value on at once with its time moved
 * by shift, so that an operator that synchronises its ports pairs it with
 * the value of the later time.  In segpipe the mesh runs once per row and
 * an operator with several ports pairs the values of one row, so TimeShift
 * gives on the row at T what the original's shifted stream holds at T: the
 * value of T - shift.  It keeps the rows of [T - shift, T] as a window of
 * time (sp_time.h): a value leaves once no later row can ask for it, each
 * row enters and leaves once, O(1) amortised.
 *
 * Of several rows with one timestamp only the latest can be asked for (rows
 * come in the order of their timestamps, and shift is positive, so every
 * row at T - shift has arrived before a row at T asks), so a row at the
 * timestamp of the newest row held replaces its value: the window holds one
 * value per timestamp, and its gaps after the oldest are positive.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "sp_operator.h"
#include "sp_time.h"

#define SH_VALUES 0
#define SH_GAPS 1

typedef struct ShiftState
{
	SpTimeSpan	span;
} ShiftState;

static const SpParamDef shift_params[] = {
	{"shift", SP_PARAM_INTERVAL, offsetof(SpParams, window_us), true},
	SP_PARAM_END
};

static bool
shift_timed(const SpParams *p)
{
	return true;
}

static size_t
shift_state_size(const SpParams *p)
{
	return sizeof(ShiftState);
}

static int
shift_rings(const SpParams *p, int64 *limits)
{
	limits[SH_VALUES] = limits[SH_GAPS] = SP_RING_SHARE;
	return 2;
}

/*
 * The window (t - w, t] of sp_time.h with w = shift + 1 microsecond holds
 * [t - shift, t].  (shift is at most SP_MAX_DURATION: no overflow.)
 */
static inline int64
shift_window(const SpParams *p)
{
	return p->window_us + 1;
}

static bool
shift_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			  const double *in, double *out)
{
	ShiftState *s = state;
	SpRing	   *vals = &rings[SH_VALUES];
	SpRing	   *gaps = &rings[SH_GAPS];
	int64		w = shift_window(p);

	sp_time_order("TimeShift", gaps->count, s->span.last, ts);
	while (sp_span_expires(&s->span, gaps, ts, w))
	{
		(void) sp_ring_pop_oldest(vals);
		sp_span_pop(&s->span, gaps);
	}
	if (gaps->count > 0 && ts == s->span.last)
	{
		/* the latest row of a timestamp is the one a later row asks for */
		sp_ring_pop_newest(vals);
		sp_ring_push(vals, in[0]);
	}
	else
	{
		if (!sp_span_push(&s->span, gaps, ts))
			sp_time_ring_full("TimeShift", p, gaps->limit);
		sp_ring_push(vals, in[0]);
	}
	/* every row before ts - shift has left: the oldest is the candidate */
	if (s->span.first != ts - p->window_us)
		return false;
	*out = sp_ring_get(vals, 0);
	return true;
}

static void
shift_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	ShiftState *s = state;

	sp_span_visit(&s->span, v);
	v->ring(v, "values", &rings[SH_VALUES]);
	v->ring(v, "gaps", &rings[SH_GAPS]);
}

static const char *
shift_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ShiftState *s = state;
	const SpRing *gaps = &rings[SH_GAPS];
	const char *msg;

	if (rings[SH_VALUES].count != gaps->count)
		return "gaps and values do not agree";
	msg = sp_span_check(&s->span, gaps, shift_window(p));
	if (msg != NULL)
		return msg;
	/* one value per timestamp: what a run holds (see above) */
	for (int64 i = 1; i < gaps->count; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		if (sp_ring_get(gaps, i) == 0)
			return "two values held have one timestamp";
	}
	return NULL;
}

const SpOpType sp_op_time_shift = {
	.name = "TimeShift",
	.params = shift_params,
	.nin = 1,
	.state_size = shift_state_size,
	.rings = shift_rings,
	.timed = shift_timed,
	.step_at = shift_step_at,
	.visit = shift_visit,
	.check_state = shift_check,
};
