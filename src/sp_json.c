/*
 * sp_json.c
 *	  Recursive-descent JSON reader (RFC 8259) producing a small DOM.
 *
 * Input is untrusted: nesting depth is bounded, every read is bounds-checked
 * against the terminating NUL, and all errors are reported with the character
 * position.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "sp_json.h"

/*
 * Specs are shallow and small; a deep document, or an object so large that
 * the duplicate-key check (quadratic) would take long, is an attack or a
 * mistake.
 */
#define SPJ_MAX_DEPTH 64
#define SPJ_MAX_MEMBERS 4096
/* the largest valid spec holds about 1.05 million numbers (256 x 4096) */
#define SPJ_MAX_VALUES 2000000

typedef struct JsonReader
{
	const char *start;
	const char *p;
	const char *what;			/* "pipeline", used in messages */
	int			values;			/* values read so far */
} JsonReader;

static SpJson *parse_value(JsonReader *r, int depth);

static void
pg_attribute_noreturn()
json_fail(JsonReader *r, const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s", r->what),
			 errdetail("%s at character %d of the JSON text.",
					   msg, (int) (r->p - r->start) + 1)));
}

static void
skip_ws(JsonReader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static SpJson *
new_node(SpJsonKind kind)
{
	SpJson	   *j = palloc0(sizeof(SpJson));

	j->kind = kind;
	return j;
}

static int
hex4(JsonReader *r)
{
	int			v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = r->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			json_fail(r, "Invalid \\u escape");
	}
	r->p += 4;
	return v;
}

static char *
parse_string(JsonReader *r)
{
	StringInfoData buf;

	Assert(*r->p == '"');
	r->p++;
	initStringInfo(&buf);
	for (;;)
	{
		unsigned char c = (unsigned char) *r->p;

		if (c == '\0')
			json_fail(r, "Unterminated string");
		if (c < 0x20)
			json_fail(r, "Control character in string");
		if (c == '"')
		{
			r->p++;
			break;
		}
		if (c != '\\')
		{
			appendStringInfoChar(&buf, (char) c);
			r->p++;
			continue;
		}
		r->p++;
		switch (*r->p)
		{
			case '"':
			case '\\':
			case '/':
				appendStringInfoChar(&buf, *r->p);
				r->p++;
				break;
			case 'b':
				appendStringInfoChar(&buf, '\b');
				r->p++;
				break;
			case 'f':
				appendStringInfoChar(&buf, '\f');
				r->p++;
				break;
			case 'n':
				appendStringInfoChar(&buf, '\n');
				r->p++;
				break;
			case 'r':
				appendStringInfoChar(&buf, '\r');
				r->p++;
				break;
			case 't':
				appendStringInfoChar(&buf, '\t');
				r->p++;
				break;
			case 'u':
				{
					pg_wchar	cp;
					unsigned char utf8[8];

					r->p++;
					cp = hex4(r);
					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						pg_wchar	lo;

						if (r->p[0] != '\\' || r->p[1] != 'u')
							json_fail(r, "Unpaired surrogate in \\u escape");
						r->p += 2;
						lo = hex4(r);
						if (lo < 0xDC00 || lo > 0xDFFF)
							json_fail(r, "Unpaired surrogate in \\u escape");
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					else if (cp >= 0xDC00 && cp <= 0xDFFF)
						json_fail(r, "Unpaired surrogate in \\u escape");
					if (cp == 0)
						json_fail(r, "Escape \\u0000 is not allowed");
					/* escapes yield UTF-8; elsewhere keep to ASCII */
					if (cp > 0x7F && GetDatabaseEncoding() != PG_UTF8)
						json_fail(r, "Non-ASCII \\u escape in a non-UTF8 database");
					unicode_to_utf8(cp, utf8);
					appendBinaryStringInfo(&buf, (char *) utf8, pg_utf_mblen(utf8));
					break;
				}
			default:
				json_fail(r, "Invalid escape in string");
		}
	}
	return buf.data;
}

static SpJson *
parse_number(JsonReader *r)
{
	const char *s = r->p;
	const char *p = s;
	char	   *tmp;
	SpJson	   *j;

	/* Validate the JSON number grammar first; strtod alone is too lenient. */
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		json_fail(r, "Invalid number");
	if (*p == '.')
	{
		p++;
		if (!(*p >= '0' && *p <= '9'))
			json_fail(r, "Invalid number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			json_fail(r, "Invalid number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	tmp = pnstrdup(s, p - s);
	j = new_node(SPJ_NUMBER);
	errno = 0;
	j->num = strtod(tmp, NULL);
	/* Underflow to a denormal or zero is fine; overflow is not a float8. */
	if (errno == ERANGE && isinf(j->num))
		json_fail(r, "Number out of range for float8");
	pfree(tmp);
	r->p = p;
	return j;
}

static bool
match_word(JsonReader *r, const char *word)
{
	size_t		len = strlen(word);

	if (strncmp(r->p, word, len) != 0)
		return false;
	r->p += len;
	return true;
}

static SpJson *
parse_container(JsonReader *r, int depth, bool is_object)
{
	SpJson	   *j = new_node(is_object ? SPJ_OBJECT : SPJ_ARRAY);
	char		close = is_object ? '}' : ']';
	int			cap = 4;

	if (depth >= SPJ_MAX_DEPTH)
		json_fail(r, "Nesting too deep");
	j->items = palloc(sizeof(SpJson *) * cap);
	if (is_object)
		j->keys = palloc(sizeof(char *) * cap);
	r->p++;
	skip_ws(r);
	if (*r->p == close)
	{
		r->p++;
		return j;
	}
	for (;;)
	{
		char	   *key = NULL;

		skip_ws(r);
		if (is_object)
		{
			if (*r->p != '"')
				json_fail(r, "Expected object key");
			if (j->n >= SPJ_MAX_MEMBERS)
				json_fail(r, psprintf("More than %d members in an object", SPJ_MAX_MEMBERS));
			key = parse_string(r);
			for (int i = 0; i < j->n; i++)
				if (strcmp(j->keys[i], key) == 0)
					json_fail(r, psprintf("Duplicate object key \"%s\"", key));
			skip_ws(r);
			if (*r->p != ':')
				json_fail(r, "Expected \":\"");
			r->p++;
		}
		if (j->n == cap)
		{
			cap *= 2;
			j->items = repalloc(j->items, sizeof(SpJson *) * cap);
			if (is_object)
				j->keys = repalloc(j->keys, sizeof(char *) * cap);
		}
		if (is_object)
			j->keys[j->n] = key;
		j->items[j->n++] = parse_value(r, depth + 1);
		skip_ws(r);
		if (*r->p == ',')
		{
			r->p++;
			continue;
		}
		if (*r->p == close)
		{
			r->p++;
			return j;
		}
		json_fail(r, is_object ? "Expected \",\" or \"}\"" : "Expected \",\" or \"]\"");
	}
}

static SpJson *
parse_value(JsonReader *r, int depth)
{
	SpJson	   *j;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (++r->values > SPJ_MAX_VALUES)
		json_fail(r, psprintf("More than %d values in the document", SPJ_MAX_VALUES));
	skip_ws(r);
	switch (*r->p)
	{
		case '{':
			return parse_container(r, depth, true);
		case '[':
			return parse_container(r, depth, false);
		case '"':
			j = new_node(SPJ_STRING);
			j->str = parse_string(r);
			return j;
		case 't':
		case 'f':
			j = new_node(SPJ_BOOL);
			j->b = (*r->p == 't');
			if (!match_word(r, j->b ? "true" : "false"))
				json_fail(r, "Invalid token");
			return j;
		case 'n':
			if (!match_word(r, "null"))
				json_fail(r, "Invalid token");
			return new_node(SPJ_NULL);
		case '\0':
			json_fail(r, "Unexpected end of input");
		default:
			if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
				return parse_number(r);
			json_fail(r, "Invalid token");
	}
}

SpJson *
sp_json_parse(const char *text, const char *what)
{
	JsonReader	r;
	SpJson	   *j;

	r.start = r.p = text;
	r.what = what;
	r.values = 0;
	j = parse_value(&r, 0);
	skip_ws(&r);
	if (*r.p != '\0')
		json_fail(&r, "Unexpected text after the JSON value");
	return j;
}

SpJson *
sp_json_get(const SpJson *obj, const char *key)
{
	if (obj == NULL || obj->kind != SPJ_OBJECT)
		return NULL;
	for (int i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

const char *
sp_json_kind_name(SpJsonKind kind)
{
	switch (kind)
	{
		case SPJ_NULL:
			return "null";
		case SPJ_BOOL:
			return "a boolean";
		case SPJ_NUMBER:
			return "a number";
		case SPJ_STRING:
			return "a string";
		case SPJ_ARRAY:
			return "an array";
		case SPJ_OBJECT:
			return "an object";
	}
	return "?";
}
