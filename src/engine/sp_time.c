/*
 * sp_time.c
 *	  Durations, the order of timestamps, and windows of time (sp_time.h).
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "common/int.h"
#include "miscadmin.h"
#include "utils/timestamp.h"

#include "sp_time.h"

/*
 * Units of a duration, as PostgreSQL's interval input spells them (its
 * table of deltas in datetime.c), from microseconds to weeks.
 */
typedef struct DurationUnit
{
	const char *word;
	int64		us;
} DurationUnit;

static const DurationUnit units[] = {
	{"microsecond", 1}, {"microseconds", 1}, {"microsecon", 1}, {"us", 1},
	{"usec", 1}, {"usecs", 1}, {"usecond", 1}, {"useconds", 1},
	{"millisecond", 1000}, {"milliseconds", 1000}, {"millisecon", 1000},
	{"ms", 1000}, {"msec", 1000}, {"msecs", 1000}, {"msecond", 1000},
	{"mseconds", 1000},
	{"second", SP_USECS_PER_SECOND}, {"seconds", SP_USECS_PER_SECOND},
	{"s", SP_USECS_PER_SECOND}, {"sec", SP_USECS_PER_SECOND},
	{"secs", SP_USECS_PER_SECOND},
	{"minute", 60 * SP_USECS_PER_SECOND}, {"minutes", 60 * SP_USECS_PER_SECOND},
	{"m", 60 * SP_USECS_PER_SECOND}, {"min", 60 * SP_USECS_PER_SECOND},
	{"mins", 60 * SP_USECS_PER_SECOND},
	{"hour", 3600 * SP_USECS_PER_SECOND}, {"hours", 3600 * SP_USECS_PER_SECOND},
	{"h", 3600 * SP_USECS_PER_SECOND}, {"hr", 3600 * SP_USECS_PER_SECOND},
	{"hrs", 3600 * SP_USECS_PER_SECOND},
	{"day", SP_USECS_PER_DAY}, {"days", SP_USECS_PER_DAY}, {"d", SP_USECS_PER_DAY},
	{"week", 7 * SP_USECS_PER_DAY}, {"weeks", 7 * SP_USECS_PER_DAY},
	{"w", 7 * SP_USECS_PER_DAY},
	{NULL, 0}
};

/* Units whose length varies, or that PostgreSQL reads as months. */
static const char *const calendar_units[] = {
	"month", "months", "mon", "mons", "year", "years", "y", "yr", "yrs",
	"decade", "decades", "dec", "decs", "century", "centuries", "c", "cent",
	"millennium", "millennia", "mil", "mils", NULL
};

/* Add q * unit (q's fraction given as its digits) to *acc; false on overflow. */
static bool
add_quantity(int64 *acc, int64 whole, const char *frac, int nfrac, int64 unit)
{
	int64		v;

	if (pg_mul_s64_overflow(whole, unit, &v) || pg_add_s64_overflow(*acc, v, acc))
		return false;
	if (nfrac > 0)
	{
		/* as PostgreSQL does: the fraction in float8, rounded to microseconds */
		char		buf[64];
		double		f;

		if (nfrac > 40)
			nfrac = 40;
		buf[0] = '0';
		buf[1] = '.';
		memcpy(buf + 2, frac, nfrac);
		buf[nfrac + 2] = '\0';
		f = rint(strtod(buf, NULL) * (double) unit);
		if (pg_add_s64_overflow(*acc, (int64) f, acc))
			return false;
	}
	return true;
}

/* Read digits at *p: their value (false past int64), and *p moved past them. */
static bool
read_digits(const char **p, int64 *v, int *n)
{
	*v = 0;
	*n = 0;
	while (isdigit((unsigned char) **p))
	{
		if (pg_mul_s64_overflow(*v, 10, v) || pg_add_s64_overflow(*v, **p - '0', v))
			return false;
		(*p)++;
		(*n)++;
	}
	return true;
}

const char *
sp_duration_parse(const char *text, int64 *us)
{
	const char *p = text;
	int64		acc = 0;
	bool		any = false;
	bool		clock = false;

	while (isspace((unsigned char) *p))
		p++;
	if (*p == '@')
		p++;
	for (;;)
	{
		int64		whole;
		int			nwhole;
		const char *frac = NULL;
		int			nfrac = 0;

		while (isspace((unsigned char) *p))
			p++;
		if (*p == '\0')
			break;
		if (*p == '-' || *p == '+')
			return "A duration has no sign.";
		if (!isdigit((unsigned char) *p) && *p != '.')
		{
			/* a word without a quantity: "ago", or a unit alone */
			const char *w = p;

			while (isalpha((unsigned char) *p))
				p++;
			if (p - w == 3 && pg_strncasecmp(w, "ago", 3) == 0)
				return "A duration has no sign (\"ago\").";
			return "A number is missing before a unit.";
		}
		if (!read_digits(&p, &whole, &nwhole))
			return "It is out of range.";
		if (*p == ':')
		{
			/* HH:MM[:SS[.ffffff]], once */
			int64		mm,
						ss = 0;
			int			n;

			if (clock)
				return "It has two times of day.";
			clock = true;
			p++;
			if (!read_digits(&p, &mm, &n) || n == 0)
				return "Minutes are missing after \":\".";
			if (mm >= 60)
				return "Minutes of a time of day must be below 60.";
			if (*p == ':')
			{
				p++;
				if (!read_digits(&p, &ss, &n) || n == 0)
					return "Seconds are missing after \":\".";
				if (ss >= 60)
					return "Seconds of a time of day must be below 60.";
				if (*p == '.')
				{
					/* the digits may be many: only their text is used */
					frac = ++p;
					while (isdigit((unsigned char) *p))
					{
						p++;
						nfrac++;
					}
				}
			}
			if (!add_quantity(&acc, whole, "", 0, 3600 * SP_USECS_PER_SECOND) ||
				!add_quantity(&acc, mm, "", 0, 60 * SP_USECS_PER_SECOND) ||
				!add_quantity(&acc, ss, frac, nfrac, SP_USECS_PER_SECOND))
				return "It is out of range.";
			any = true;
			continue;
		}
		if (*p == '.')
		{
			frac = ++p;
			/* the digits may be many: only their text is used */
			while (isdigit((unsigned char) *p))
			{
				p++;
				nfrac++;
			}
		}
		if (nwhole == 0 && nfrac == 0)
			return "A number is missing.";
		while (isspace((unsigned char) *p))
			p++;
		{
			const char *w = p;
			int			len;
			const DurationUnit *u;

			while (isalpha((unsigned char) *p))
				p++;
			len = p - w;
			/*
			 * A whole number before a time of day counts days, as in
			 * PostgreSQL's "1 02:00:00".
			 */
			if (len == 0 && nfrac == 0 && !clock && isdigit((unsigned char) *p))
			{
				const char *q = p;

				while (isdigit((unsigned char) *q))
					q++;
				if (*q == ':')
				{
					if (!add_quantity(&acc, whole, "", 0, SP_USECS_PER_DAY))
						return "It is out of range.";
					continue;
				}
			}
			if (len == 0)
				return "A number has no unit (such as \"seconds\").";
			for (const char *const *c = calendar_units; *c; c++)
				if ((int) strlen(*c) == len && pg_strncasecmp(w, *c, len) == 0)
					return "Months and years are not durations: their length varies.";
			for (u = units; u->word; u++)
				if ((int) strlen(u->word) == len && pg_strncasecmp(w, u->word, len) == 0)
					break;
			if (u->word == NULL)
				return "A unit is not known.";
			if (!add_quantity(&acc, whole, frac, nfrac, u->us))
				return "It is out of range.";
			any = true;
		}
	}
	if (!any)
		return "It is empty.";
	if (acc <= 0)
		return "It is not positive (fractions of a microsecond are rounded).";
	if (acc > SP_MAX_DURATION)
		return "It is longer than 100000 days.";
	*us = acc;
	return NULL;
}

char *
sp_duration_text(int64 us)
{
	int64		secs = us / SP_USECS_PER_SECOND;
	int64		frac = us % SP_USECS_PER_SECOND;
	char	   *s = psprintf("%02lld:%02d:%02d", (long long) (secs / 3600),
							 (int) (secs / 60 % 60), (int) (secs % 60));

	if (frac != 0)
	{
		char		digits[8];
		int			n = 6;

		snprintf(digits, sizeof(digits), "%06d", (int) frac);
		while (digits[n - 1] == '0')
			n--;
		digits[n] = '\0';
		s = psprintf("%s.%s", s, digits);
	}
	return s;
}

void
sp_time_order_error(const char *what, int64 last, int64 ts)
{
	/* timestamptz_to_str returns a static buffer: copy each */
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("row at %s is earlier than the row before it",
					pstrdup(timestamptz_to_str(ts))),
			 errdetail("%s has seen a row at %s; rows must reach it in the order of their timestamps.",
					   what, pstrdup(timestamptz_to_str(last))),
			 errhint("Order the window or the aggregate by the timestamp.")));
}

void
sp_time_ring_full(const char *what, const SpParams *p, int64 limit)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("window of %s holds too many rows", sp_duration_text(p->window_us)),
			 errdetail("%s can hold " INT64_FORMAT " rows in its window: the pipeline's state is limited to " INT64_FORMAT " bytes.",
					   what, limit, SP_MAX_STATE_BYTES),
			 errhint("Use a shorter window, or fewer rows per window.")));
}

bool
sp_window_in_rows(const SpParams *p)
{
	return p->window_us == 0;
}

bool
sp_window_in_time(const SpParams *p)
{
	return p->window_us != 0;
}

const char *
sp_window_check(SpParams *p, bool rows_too)
{
	/* absent, window_size and min_rows are 0 (below their minimum) */
	if (p->window_size != 0 && p->window_us != 0)
		return "\"window_size\" and \"window\" cannot both be given";
	if (rows_too && p->window_size == 0 && p->window_us == 0)
		return "parameter \"window_size\" or \"window\" is required";
	if (p->window_us == 0 && p->min_rows != 0)
		return "\"min_rows\" applies only to a \"window\" of time";
	if (p->window_us != 0 && p->min_rows == 0)
		p->min_rows = 1;
	return NULL;
}

void
sp_span_visit(SpTimeSpan *s, SpStateVisitor *v)
{
	v->i64(v, "first", &s->first);
	v->i64(v, "last", &s->last);
}

const char *
sp_span_check(const SpTimeSpan *s, const SpRing *gaps, int64 w)
{
	int64		span;
	int64		sum = 0;

	if (gaps->count == 0)
		return (s->first == 0 && s->last == 0) ? NULL :
			"first and last must be 0 with no row held";
	if (!IS_VALID_TIMESTAMP(s->first) || !IS_VALID_TIMESTAMP(s->last) ||
		s->first > s->last)
		return "first and last are not timestamps in order";
	span = s->last - s->first;
	if (span >= w)
		return "first is not within the window of last";
	for (int64 i = 0; i < gaps->count; i++)
	{
		double		g = sp_ring_get(gaps, i);

		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		/* also refuses NaN and fractions */
		if (!(g >= 0 && g <= (double) SP_MAX_DURATION) || g != floor(g))
			return "a gap is not a number of microseconds in range";
		if (i > 0)
		{
			sum += (int64) g;
			if (sum > span)
				return "gaps do not add up to last - first";
		}
	}
	if (sum != span)
		return "gaps do not add up to last - first";
	return NULL;
}
