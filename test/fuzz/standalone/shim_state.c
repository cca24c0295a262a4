/*
 * shim_state.c
 *	  Stand-ins for the server functions that the state codec, the
 *	  `pipeline` type's I/O and pipeline_agg call (see fuzz_state.c): UTC
 *	  timestamps in the one form the state writes, three key types (double
 *	  precision, bigint, text) in place of src/server/sp_keyio.c, the type cache
 *	  entries of their equalities, the aggregate call context, and the
 *	  binary message buffer.
 *
 * The calendar is written independently of the server's (days from the
 * civil date, proleptic Gregorian), so that the seeds written by the real
 * server, read back here byte for byte (test/fuzz/libfuzz.sh), check it.
 * Anything a production caller does not need aborts rather than guess.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "sp_keyio.h"
#include "shim.h"

Oid			shim_key_type = FLOAT8OID;
MemoryContext shim_agg_context = NULL;

/* ---- the calendar ---- */

#define EPOCH_1970_TO_2000_DAYS 10957

/* days since 2000-01-01 of a proleptic Gregorian date (year 0 is 1 BC) */
static int64
days_from_civil(int64 y, int m, int d)
{
	int64		era,
				yoe,
				doy,
				doe;

	y -= (m <= 2);
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468 - EPOCH_1970_TO_2000_DAYS;
}

static void
civil_from_days(int64 z, int *y, int *m, int *d)
{
	int64		era,
				doe,
				yoe,
				doy,
				mp;

	z += 719468 + EPOCH_1970_TO_2000_DAYS;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = (int) (yoe + era * 400 + (*m <= 2));
}

int
timestamp2tm(Timestamp dt, int *tzp, struct pg_tm *tm, fsec_t *fsec,
			 const char **tzn, pg_tz *attimezone)
{
	int64		days,
				usec;

	if (tzp != NULL || tzn != NULL || attimezone != NULL)
		abort();				/* the state works in UTC only */
	if (!IS_VALID_TIMESTAMP(dt))
		return -1;
	days = dt / USECS_PER_DAY;
	usec = dt % USECS_PER_DAY;
	if (usec < 0)
	{
		usec += USECS_PER_DAY;
		days--;
	}
	memset(tm, 0, sizeof(*tm));
	civil_from_days(days, &tm->tm_year, &tm->tm_mon, &tm->tm_mday);
	tm->tm_hour = (int) (usec / USECS_PER_HOUR);
	tm->tm_min = (int) (usec / USECS_PER_MINUTE % 60);
	tm->tm_sec = (int) (usec / USECS_PER_SEC % 60);
	*fsec = (fsec_t) (usec % USECS_PER_SEC);
	tm->tm_isdst = -1;
	return 0;
}

/* ISO: "YYYY-MM-DD HH:MM:SS[.ffffff]+00[ BC]", the fraction without trailing zeros */
void
EncodeDateTime(struct pg_tm *tm, fsec_t fsec, bool print_tz, int tz,
			   const char *tzn, int style, char *str)
{
	int			year = tm->tm_year > 0 ? tm->tm_year : 1 - tm->tm_year;
	char	   *p = str;

	if (style != USE_ISO_DATES || tz != 0 || tzn != NULL)
		abort();
	p += sprintf(p, "%04d-%02d-%02d %02d:%02d:%02d", year, tm->tm_mon,
				 tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec);
	if (fsec != 0)
	{
		p += sprintf(p, ".%06d", (int) fsec);
		while (p[-1] == '0')
			*--p = '\0';
	}
	if (print_tz && tm->tm_isdst >= 0)
		p += sprintf(p, "+00");
	if (tm->tm_year <= 0)
		sprintf(p, " BC");
}

void
EncodeSpecialTimestamp(Timestamp dt, char *str)
{
	if (dt == DT_NOBEGIN)
		strcpy(str, "-infinity");
	else if (dt == DT_NOEND)
		strcpy(str, "infinity");
	else
		abort();
}

/* n decimal digits at *p, advancing it; -1 when they are not there */
static int64
digits(const char **p, int min, int max)
{
	int64		v = 0;
	int			n = 0;

	while (n < max && **p >= '0' && **p <= '9')
	{
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n >= min ? v : -1;
}

static void
bad_timestamp(const char *text)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
			 errmsg("invalid input syntax for type timestamp with time zone: \"%s\"", text)));
}

static void
out_of_range(const char *text)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_FIELD_OVERFLOW),
			 errmsg("date/time field value out of range: \"%s\"", text)));
}

/* Only what the state writes: ISO in UTC, or infinity. */
Datum
timestamptz_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	const char *p = text;
	int64		year,
				mon,
				day,
				hour,
				min,
				sec,
				usec = 0;
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int64		days;
	TimestampTz ts;

	if (strcmp(text, "infinity") == 0)
		PG_RETURN_TIMESTAMPTZ(DT_NOEND);
	if (strcmp(text, "-infinity") == 0)
		PG_RETURN_TIMESTAMPTZ(DT_NOBEGIN);
	if ((year = digits(&p, 4, 7)) < 0 || *p++ != '-' ||
		(mon = digits(&p, 2, 2)) < 0 || *p++ != '-' ||
		(day = digits(&p, 2, 2)) < 0 || *p++ != ' ' ||
		(hour = digits(&p, 2, 2)) < 0 || *p++ != ':' ||
		(min = digits(&p, 2, 2)) < 0 || *p++ != ':' ||
		(sec = digits(&p, 2, 2)) < 0)
		bad_timestamp(text);
	if (*p == '.')
	{
		const char *f = ++p;

		if ((usec = digits(&p, 1, 6)) < 0)
			bad_timestamp(text);
		for (int i = p - f; i < 6; i++)
			usec *= 10;
	}
	if (strncmp(p, "+00", 3) != 0)
		bad_timestamp(text);
	p += 3;
	if (*p != '\0' && strcmp(p, " BC") != 0)
		bad_timestamp(text);
	if (year == 0 || mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] ||
		hour > 23 || min > 59 || sec > 59)
		out_of_range(text);
	if (*p != '\0')
		year = 1 - year;		/* 1 BC is year 0 */
	if (mon == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)))
		out_of_range(text);
	days = days_from_civil(year, (int) mon, (int) day);
	/* judged in days first: microseconds of a 7-digit year overflow int64 */
	if (days < MIN_TIMESTAMP / USECS_PER_DAY - 1 || days > END_TIMESTAMP / USECS_PER_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range: \"%s\"", text)));
	ts = days * USECS_PER_DAY + ((hour * 60 + min) * 60 + sec) * USECS_PER_SEC + usec;
	if (!IS_VALID_TIMESTAMP(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range: \"%s\"", text)));
	PG_RETURN_TIMESTAMPTZ(ts);
}

const char *
timestamptz_to_str(TimestampTz t)
{
	static char buf[MAXDATELEN + 1];
	struct pg_tm tm;
	fsec_t		fsec;

	if (TIMESTAMP_NOT_FINITE(t))
		EncodeSpecialTimestamp(t, buf);
	else if (timestamp2tm(t, NULL, &tm, &fsec, NULL, NULL) == 0)
	{
		tm.tm_isdst = 0;
		EncodeDateTime(&tm, fsec, true, 0, NULL, USE_ISO_DATES, buf);
	}
	else
		strcpy(buf, "(timestamp out of range)");
	return buf;
}

/* ---- function calls ---- */

static Datum
direct_call(PGFunction func, Oid collation, int nargs, const Datum *args)
{
	LOCAL_FCINFO(fcinfo, 3);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, nargs, collation, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		fcinfo->args[i].value = args[i];
		fcinfo->args[i].isnull = false;
	}
	result = (*func) (fcinfo);
	if (fcinfo->isnull)
		abort();				/* as the server: a direct call never returns NULL */
	return result;
}

Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	return direct_call(func, collation, 1, &arg1);
}

Datum
DirectFunctionCall3Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2, Datum arg3)
{
	Datum		args[3] = {arg1, arg2, arg3};

	return direct_call(func, collation, 3, args);
}

int
AggCheckCallContext(FunctionCallInfo fcinfo, MemoryContext *aggcontext)
{
	if (shim_agg_context == NULL)
		return 0;
	if (aggcontext)
		*aggcontext = shim_agg_context;
	return AGG_CONTEXT_AGGREGATE;
}

Oid
get_fn_expr_argtype(FmgrInfo *flinfo, int argnum)
{
	return shim_key_type;		/* only the key's type is asked for */
}

/* ---- values ---- */

struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum))
		abort();				/* the harness makes no short or toasted values */
	return datum;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	return pg_detoast_datum(datum);
}

Datum
datumCopy(Datum value, bool typByVal, int typLen)
{
	Size		size;
	void	   *copy;

	if (typByVal)
		return value;
	if (typLen != -1)
		abort();
	size = VARSIZE_ANY(DatumGetPointer(value));
	copy = palloc(size);
	memcpy(copy, DatumGetPointer(value), size);
	return PointerGetDatum(copy);
}

/* ---- key types: double precision, bigint, text ---- */

static const struct
{
	Oid			type;
	const char *name;
	int16		typlen;
	bool		typbyval;
	Oid			eq;
}			key_types[] = {
	{FLOAT8OID, "double precision", 8, true, F_FLOAT8EQ},
	{INT8OID, "bigint", 8, true, F_INT8EQ},
	{TEXTOID, "pg_catalog.text", -1, false, F_TEXTEQ},
};

static int
key_type_index(Oid type)
{
	for (int i = 0; i < lengthof(key_types); i++)
		if (key_types[i].type == type)
			return i;
	abort();
}

TypeCacheEntry *
lookup_type_cache(Oid type_id, int flags)
{
	static TypeCacheEntry entries[lengthof(key_types)];
	int			i = key_type_index(type_id);
	TypeCacheEntry *tc = &entries[i];

	memset(tc, 0, sizeof(*tc));
	tc->type_id = type_id;
	tc->typlen = key_types[i].typlen;
	tc->typbyval = key_types[i].typbyval;
	tc->eq_opr_finfo.fn_oid = key_types[i].eq;
	return tc;
}

void
fmgr_info_copy(FmgrInfo *dstinfo, FmgrInfo *srcinfo, MemoryContext destcxt)
{
	memcpy(dstinfo, srcinfo, sizeof(FmgrInfo));
	dstinfo->fn_mcxt = destcxt;
}

bool
get_collation_isdeterministic(Oid colloid)
{
	return true;
}

Datum
FunctionCall2Coll(FmgrInfo *flinfo, Oid collation, Datum arg1, Datum arg2)
{
	abort();					/* the three key types compare inline */
}

char *
format_type_be(Oid type_oid)
{
	return pstrdup(key_types[key_type_index(type_oid)].name);
}

char *
sp_keyio_type_name(Oid type)
{
	return format_type_be(type);
}

Oid
shim_key_type_from_name(const char *name, int code)
{
	for (int i = 0; i < lengthof(key_types); i++)
		if (strcmp(key_types[i].name, name) == 0)
			return key_types[i].type;
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid pipeline state"),
			 errdetail("Key type \"%s\" does not exist.", name)));
}

void
sp_keyio_init(SpKeyIO *io, Oid type, MemoryContext cxt)
{
	memset(io, 0, sizeof(*io));
	io->type = type;
	(void) key_type_index(type);
}

int
sp_keyio_begin(const SpKeyIO *io)
{
	return 1;
}

void
sp_keyio_end(int nest)
{
}

char *
sp_keyio_to_text(SpKeyIO *io, Datum key)
{
	switch (io->type)
	{
		case FLOAT8OID:
			return float8out_internal(DatumGetFloat8(key));
		case INT8OID:
			return psprintf(INT64_FORMAT, DatumGetInt64(key));
		default:
			return pnstrdup(VARDATA_ANY(DatumGetPointer(key)),
							VARSIZE_ANY_EXHDR(DatumGetPointer(key)));
	}
}

static void
bad_key(const char *type, const char *text, int code)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid input syntax for type %s: \"%s\"", type, text)));
}

Datum
sp_keyio_from_text(SpKeyIO *io, const char *text)
{
	char	   *end;

	errno = 0;
	switch (io->type)
	{
		case FLOAT8OID:
			{
				double		v = strtod(text, &end);

				if (end == text || *end != '\0')
					bad_key("double precision", text, ERRCODE_INVALID_TEXT_REPRESENTATION);
				if (errno == ERANGE && (v == 0.0 || isinf(v)))
					bad_key("double precision", text, ERRCODE_INVALID_TEXT_REPRESENTATION);
				return Float8GetDatum(v);
			}
		case INT8OID:
			{
				int64		v = strtoi64(text, &end, 10);

				if (end == text || *end != '\0')
					bad_key("bigint", text, ERRCODE_INVALID_TEXT_REPRESENTATION);
				if (errno == ERANGE)
					bad_key("bigint", text, ERRCODE_INVALID_TEXT_REPRESENTATION);
				return Int64GetDatum(v);
			}
		default:
			return PointerGetDatum(cstring_to_text(text));
	}
}

text *
cstring_to_text(const char *s)
{
	size_t		len = strlen(s);
	text	   *t = palloc(VARHDRSZ + len);

	SET_VARSIZE(t, VARHDRSZ + len);
	memcpy(VARDATA(t), s, len);
	return t;
}

/* ---- binary messages (UTF8 on both sides) ---- */

int
pg_get_client_encoding(void)
{
	return PG_UTF8;
}

char *
pg_server_to_client(const char *s, int len)
{
	return unconstify(char *, s);
}

void
pq_begintypsend(StringInfo buf)
{
	initStringInfo(buf);
	appendStringInfoSpaces(buf, VARHDRSZ);
}

bytea *
pq_endtypsend(StringInfo buf)
{
	SET_VARSIZE(buf->data, buf->len);
	return (bytea *) buf->data;
}

void
pq_sendbytes(StringInfo buf, const char *data, int datalen)
{
	appendBinaryStringInfo(buf, data, datalen);
}

static void
short_message(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("insufficient data left in message")));
}

int
pq_getmsgbyte(StringInfo msg)
{
	if (msg->cursor >= msg->len)
		short_message();
	return (unsigned char) msg->data[msg->cursor++];
}

unsigned int
pq_getmsgint(StringInfo msg, int b)
{
	unsigned int v = 0;

	if (b != 1 && b != 2 && b != 4)
		abort();
	if (msg->len - msg->cursor < b)
		short_message();
	for (int i = 0; i < b; i++)
		v = (v << 8) | (unsigned char) msg->data[msg->cursor++];
	return v;
}

char *
pq_getmsgtext(StringInfo msg, int rawbytes, int *nbytes)
{
	char	   *s;

	if (rawbytes < 0 || rawbytes > msg->len - msg->cursor)
		short_message();
	s = pnstrdup(msg->data + msg->cursor, rawbytes);
	msg->cursor += rawbytes;
	*nbytes = rawbytes;
	return s;
}
