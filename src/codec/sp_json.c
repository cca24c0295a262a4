/*
 * sp_json.c
 *	  JSON reader (RFC 8259) in two passes over the text.
 *
 * Pass 1 checks the whole grammar and the limits without allocating, and
 * counts the nodes.  Pass 2 writes exactly that many 8-byte nodes into one
 * array, in pre-order, and checks each object for duplicate keys by sorting
 * its keys (O(m log m) for m members).  Strings and numbers stay in the
 * text: they are decoded when the spec reader asks for them.  So reading a
 * document costs time linear in its length and at most 4 bytes of memory per
 * character of text (a node per value or key, every one at least 2
 * characters long with its separator), plus the sort buffers (32 kB at
 * most).
 *
 * Input is untrusted: nesting depth, members per object and values per
 * document are bounded, every read stops at the terminating NUL, and every
 * error names the character where reading stopped.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "sp_compat.h"
#include "sp_json.h"
#include "sp_sort.h"

/*
 * Specs are shallow and small; a deeper or wider document is an attack or a
 * mistake.  The largest valid spec holds about 1.05 million values
 * (256 operators of 4096 coefficients).
 */
#define SPJ_MAX_DEPTH 64
#define SPJ_MAX_MEMBERS 4096
#define SPJ_MAX_VALUES 2000000

/* One value, a long string, can take long to scan: check every 1 MB of it. */
#define INTERRUPT_EVERY 1048576

/* SpJsonNode.info: kind in the low bits, then a flag, then the size */
#define INFO_KIND_MASK	0x7
#define INFO_ESCAPED	0x8		/* a string or key holding a backslash */
#define INFO_SIZE_SHIFT 4

typedef struct JsonReader
{
	const char *start;
	const char *p;
	const char *what;			/* "pipeline", used in messages */
	bool		utf8;			/* the database encoding is UTF8 */
	/* pass 1 */
	int			values;			/* values read so far */
	int			nodes;			/* values and keys */
	int			max_members;	/* in any one object */
	/* pass 2 */
	SpJsonNode *out;
	int			n;				/* nodes written */
	int32	   *keys;			/* one object's key nodes, being sorted */
	int32	   *sort_buf;
	int			dup;			/* the first duplicate key's node, or -1 */
} JsonReader;

/* ---- errors ---- */

static int
char_position(const JsonReader *r, const char *at)
{
	return pg_mbstrlen_with_len(r->start, (int) (at - r->start)) + 1;
}

SP_NORETURN static void
json_fail_at(JsonReader *r, const char *at, const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s", r->what),
			 errdetail("%s at character %d of the JSON text.",
					   msg, char_position(r, at))));
}

SP_NORETURN static void
json_fail(JsonReader *r, const char *msg)
{
	json_fail_at(r, r->p, msg);
}

/* ---- pass 1: the grammar and the limits, no allocation ---- */

static void check_value(JsonReader *r, int depth);

static void
skip_ws(JsonReader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

/* Four hex digits at r->p, or -1. */
static int
hex4(const char *s)
{
	int			v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* r->p at the 'u' of a \u escape whose backslash is at esc. */
static void
check_unicode_escape(JsonReader *r, const char *esc)
{
	int			cp = hex4(r->p + 1);

	if (cp < 0)
		json_fail_at(r, esc, "Invalid \\u escape");
	r->p += 5;
	if (cp >= 0xD800 && cp <= 0xDBFF)
	{
		int			lo = (r->p[0] == '\\' && r->p[1] == 'u') ? hex4(r->p + 2) : -1;

		if (lo < 0xDC00 || lo > 0xDFFF)
			json_fail_at(r, esc, "Unpaired surrogate in \\u escape");
		r->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	else if (cp >= 0xDC00 && cp <= 0xDFFF)
		json_fail_at(r, esc, "Unpaired surrogate in \\u escape");
	if (cp == 0)
		json_fail_at(r, esc, "Escape \\u0000 is not allowed");
	/* escapes yield UTF-8; in another encoding keep to ASCII */
	if (cp > 0x7F && !r->utf8)
		json_fail_at(r, esc, "Non-ASCII \\u escape in a non-UTF8 database");
}

static void
check_string(JsonReader *r)
{
	int			countdown = INTERRUPT_EVERY;

	Assert(*r->p == '"');
	r->p++;
	for (;;)
	{
		unsigned char c = (unsigned char) *r->p;
		const char *esc;

		if (--countdown == 0)
		{
			CHECK_FOR_INTERRUPTS();
			countdown = INTERRUPT_EVERY;
		}
		if (c == '"')
		{
			r->p++;
			return;
		}
		if (c == '\0')
			json_fail(r, "Unterminated string");
		if (c < 0x20)
			json_fail(r, "Control character in string");
		if (c != '\\')
		{
			r->p++;
			continue;
		}
		esc = r->p++;
		switch (*r->p)
		{
			case '"':
			case '\\':
			case '/':
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				r->p++;
				break;
			case 'u':
				check_unicode_escape(r, esc);
				break;
			default:
				json_fail(r, "Invalid escape in string");
		}
	}
}

const char *
sp_json_number_end(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.')
	{
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static void
check_number(JsonReader *r)
{
	const char *s = r->p;
	const char *p;
	char	   *end;
	double		v;

	/* the JSON number grammar first; strtod alone is too lenient */
	p = sp_json_number_end(s);
	if (p == NULL)
		json_fail(r, "Invalid number");

	/*
	 * strtod reads from the text itself, no copy.  It can only read past the
	 * token when a digit or an 'x' follows a leading "0" ("01", "0x1p9"),
	 * which is not JSON: the grammar error at p is then the one reported.
	 */
	errno = 0;
	v = strtod(s, &end);
	/* underflow to a denormal or zero is fine; overflow is not a float8 */
	if (end == p && errno == ERANGE && isinf(v))
		json_fail(r, "Number out of range for float8");
	r->p = p;
}

static void
check_word(JsonReader *r, const char *word)
{
	size_t		len = strlen(word);

	if (strncmp(r->p, word, len) != 0)
		json_fail(r, "Invalid token");
	r->p += len;
}

static void
check_container(JsonReader *r, int depth, bool is_object)
{
	char		close = is_object ? '}' : ']';
	int			members = 0;

	if (depth >= SPJ_MAX_DEPTH)
		json_fail(r, "Nesting too deep");
	r->p++;
	skip_ws(r);
	if (*r->p == close)
	{
		r->p++;
		return;
	}
	for (;;)
	{
		skip_ws(r);
		if (is_object)
		{
			if (*r->p != '"')
				json_fail(r, "Expected object key");
			if (members >= SPJ_MAX_MEMBERS)
				json_fail(r, psprintf("More than %d members in an object", SPJ_MAX_MEMBERS));
			members++;
			r->nodes++;
			check_string(r);
			skip_ws(r);
			if (*r->p != ':')
				json_fail(r, "Expected \":\"");
			r->p++;
		}
		check_value(r, depth + 1);
		skip_ws(r);
		if (*r->p == ',')
		{
			r->p++;
			continue;
		}
		if (*r->p == close)
		{
			r->p++;
			r->max_members = Max(r->max_members, members);
			return;
		}
		json_fail(r, is_object ? "Expected \",\" or \"}\"" : "Expected \",\" or \"]\"");
	}
}

static void
check_value(JsonReader *r, int depth)
{
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	skip_ws(r);
	if (++r->values > SPJ_MAX_VALUES)
		json_fail(r, psprintf("More than %d values in the document", SPJ_MAX_VALUES));
	r->nodes++;
	switch (*r->p)
	{
		case '{':
			check_container(r, depth, true);
			break;
		case '[':
			check_container(r, depth, false);
			break;
		case '"':
			check_string(r);
			break;
		case 't':
			check_word(r, "true");
			break;
		case 'f':
			check_word(r, "false");
			break;
		case 'n':
			check_word(r, "null");
			break;
		case '\0':
			json_fail(r, "Unexpected end of input");
		default:
			if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
				check_number(r);
			else
				json_fail(r, "Invalid token");
	}
}

/* ---- decoding strings in place ---- */

/* Reads the unescaped bytes of a string or key, one at a time. */
typedef struct StrCursor
{
	const char *p;				/* next character of the text */
	unsigned char pending[4];	/* the rest of a decoded \u escape */
	int			npending;
	int			next;
} StrCursor;

static void
cursor_init(StrCursor *c, const char *text, const SpJsonNode *v)
{
	c->p = text + v->pos + 1;
	c->npending = c->next = 0;
}

/* The next byte, or -1 at the end of the string.  The text is valid. */
static int
cursor_next(StrCursor *c)
{
	pg_wchar	cp;

	if (c->next < c->npending)
		return c->pending[c->next++];
	if (*c->p == '"')
		return -1;
	if (*c->p != '\\')
		return (unsigned char) *c->p++;
	c->p += 2;
	switch (c->p[-1])
	{
		case 'b':
			return '\b';
		case 'f':
			return '\f';
		case 'n':
			return '\n';
		case 'r':
			return '\r';
		case 't':
			return '\t';
		case 'u':
			cp = hex4(c->p);
			c->p += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF)
			{
				cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(c->p + 2) - 0xDC00);
				c->p += 6;
			}
			unicode_to_utf8(cp, c->pending);
			c->npending = pg_utf_mblen(c->pending);
			c->next = 1;
			return c->pending[0];
		default:				/* '"', '\\', '/' */
			return (unsigned char) c->p[-1];
	}
}

/* The raw length of a string's contents, between the quotes. */
static int
raw_length(const char *text, const SpJsonNode *v)
{
	const char *s = text + v->pos + 1;
	const char *p = s;

	while (*p != '"')
		p += (*p == '\\') ? 2 : 1;
	return (int) (p - s);
}

static int
key_compare(const char *text, const SpJsonNode *a, const SpJsonNode *b)
{
	StrCursor	ca,
				cb;
	int			x,
				y;

	if (((a->info | b->info) & INFO_ESCAPED) == 0)
	{
		const unsigned char *p = (const unsigned char *) text + a->pos + 1;
		const unsigned char *q = (const unsigned char *) text + b->pos + 1;

		while (*p == *q && *p != '"')
			p++, q++;
		if (*p == *q)
			return 0;
		return (*p == '"') ? -1 : (*q == '"') ? 1 : (int) *p - (int) *q;
	}
	cursor_init(&ca, text, a);
	cursor_init(&cb, text, b);
	do
	{
		x = cursor_next(&ca);
		y = cursor_next(&cb);
	} while (x == y && x >= 0);
	return x - y;
}

/* ---- pass 2: the nodes ---- */

static void build_value(JsonReader *r);

static void
set_node(JsonReader *r, int i, SpJsonKind kind, uint32 flags)
{
	r->out[i].info = (uint32) kind | flags | (1 << INFO_SIZE_SHIFT);
}

static void
set_size(JsonReader *r, int i)
{
	r->out[i].info = (r->out[i].info & ((1 << INFO_SIZE_SHIFT) - 1)) |
		((uint32) (r->n - i) << INFO_SIZE_SHIFT);
}

/* Past a string; returns INFO_ESCAPED when it holds a backslash. */
static uint32
skip_string(JsonReader *r)
{
	uint32		flags = 0;
	int			countdown = INTERRUPT_EVERY;

	for (r->p++; *r->p != '"'; r->p++)
	{
		if (--countdown == 0)
		{
			CHECK_FOR_INTERRUPTS();
			countdown = INTERRUPT_EVERY;
		}
		if (*r->p == '\\')
		{
			flags = INFO_ESCAPED;
			r->p++;
		}
	}
	r->p++;
	return flags;
}

/* Order of two key nodes by their unescaped text, for sp_sort_indexes. */
static int
key_order(const void *arg, int32 x, int32 y)
{
	const JsonReader *r = arg;

	return key_compare(r->start, &r->out[x], &r->out[y]);
}

/* Record the first duplicate key of the object at node obj, if any. */
static void
check_duplicates(JsonReader *r, int obj)
{
	const SpJsonNode *o = &r->out[obj];
	int			m = 0;
	int32	   *sorted;

	for (const SpJsonNode *k = sp_json_first(o); k; k = sp_json_next(o, k))
		r->keys[m++] = (int32) (k - r->out);
	if (m < 2)
		return;
	sorted = sp_sort_indexes(r->keys, r->sort_buf, m, key_order, r);
	/*
	 * The sort is stable, so of two equal keys the second comes later; nodes
	 * are in text order, so the smallest node is the first duplicate.
	 */
	for (int i = 1; i < m; i++)
		if (key_compare(r->start, &r->out[sorted[i - 1]], &r->out[sorted[i]]) == 0 &&
			(r->dup < 0 || sorted[i] < r->dup))
			r->dup = sorted[i];
}

static void
build_container(JsonReader *r, int i, bool is_object)
{
	char		close = is_object ? '}' : ']';

	CHECK_FOR_INTERRUPTS();
	set_node(r, i, is_object ? SPJ_OBJECT : SPJ_ARRAY, 0);
	r->p++;
	skip_ws(r);
	while (*r->p != close)
	{
		if (is_object)
		{
			int			k = r->n++;
			uint32		flags;

			skip_ws(r);
			r->out[k].pos = (uint32) (r->p - r->start);
			flags = skip_string(r);
			set_node(r, k, SPJ_KEY, flags);
			skip_ws(r);
			r->p++;				/* ':' */
			build_value(r);
			set_size(r, k);
		}
		else
			build_value(r);
		skip_ws(r);
		if (*r->p == ',')
			r->p++;
	}
	r->p++;
	set_size(r, i);
	if (is_object)
		check_duplicates(r, i);
}

static void
build_value(JsonReader *r)
{
	int			i = r->n++;

	skip_ws(r);
	r->out[i].pos = (uint32) (r->p - r->start);
	switch (*r->p)
	{
		case '{':
			build_container(r, i, true);
			break;
		case '[':
			build_container(r, i, false);
			break;
		case '"':
			set_node(r, i, SPJ_STRING, skip_string(r));
			break;
		case 't':
			set_node(r, i, SPJ_BOOL, 0);
			r->p += 4;
			break;
		case 'f':
			set_node(r, i, SPJ_BOOL, 0);
			r->p += 5;
			break;
		case 'n':
			set_node(r, i, SPJ_NULL, 0);
			r->p += 4;
			break;
		default:
			set_node(r, i, SPJ_NUMBER, 0);
			while (*r->p == '-' || *r->p == '+' || *r->p == '.' ||
				   *r->p == 'e' || *r->p == 'E' ||
				   (*r->p >= '0' && *r->p <= '9'))
				r->p++;
	}
}

SpJsonDoc *
sp_json_parse(const char *text, const char *what)
{
	JsonReader	r = {0};
	SpJsonDoc  *doc;

	/* offsets are 32-bit; a varlena is less than 1 GB anyway */
	if (strlen(text) >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s text is too long", what)));
	r.start = r.p = text;
	r.what = what;
	r.utf8 = GetDatabaseEncoding() == PG_UTF8;
	check_value(&r, 0);
	skip_ws(&r);
	if (*r.p != '\0')
		json_fail(&r, "Unexpected text after the JSON value");

	r.p = text;
	r.out = palloc(sizeof(SpJsonNode) * r.nodes);
	r.keys = palloc(sizeof(int32) * Max(r.max_members, 1));
	r.sort_buf = palloc(sizeof(int32) * Max(r.max_members, 1));
	r.dup = -1;
	build_value(&r);
	Assert(r.n == r.nodes);
	pfree(r.keys);
	pfree(r.sort_buf);

	doc = palloc(sizeof(SpJsonDoc));
	doc->text = text;
	doc->what = what;
	doc->nodes = r.out;
	doc->n_nodes = r.n;
	if (r.dup >= 0)
		json_fail_at(&r, text + r.out[r.dup].pos,
					 psprintf("Duplicate object key \"%s\"",
							  sp_json_shown(sp_json_string(doc, &r.out[r.dup]))));
	return doc;
}

/* ---- access ---- */

SpJsonKind
sp_json_kind(const SpJsonNode *v)
{
	return (SpJsonKind) (v->info & INFO_KIND_MASK);
}

static inline int
node_size(const SpJsonNode *v)
{
	return (int) (v->info >> INFO_SIZE_SHIFT);
}

const SpJsonNode *
sp_json_first(const SpJsonNode *v)
{
	SpJsonKind	kind = sp_json_kind(v);

	if ((kind != SPJ_ARRAY && kind != SPJ_OBJECT) || node_size(v) == 1)
		return NULL;
	return v + 1;
}

const SpJsonNode *
sp_json_next(const SpJsonNode *parent, const SpJsonNode *child)
{
	const SpJsonNode *n = child + node_size(child);

	return n < parent + node_size(parent) ? n : NULL;
}

int
sp_json_count(const SpJsonNode *v)
{
	int			n = 0;

	for (const SpJsonNode *c = sp_json_first(v); c; c = sp_json_next(v, c))
		n++;
	return n;
}

const SpJsonNode *
sp_json_get(const SpJsonDoc *doc, const SpJsonNode *obj, const char *name)
{
	if (obj == NULL || sp_json_kind(obj) != SPJ_OBJECT)
		return NULL;
	for (const SpJsonNode *k = sp_json_first(obj); k; k = sp_json_next(obj, k))
		if (sp_json_string_eq(doc, k, name))
			return sp_json_value(k);
	return NULL;
}

bool
sp_json_bool(const SpJsonDoc *doc, const SpJsonNode *v)
{
	Assert(sp_json_kind(v) == SPJ_BOOL);
	return doc->text[v->pos] == 't';
}

/*
 * The text was checked, and a JSON number is followed by a character strtod
 * does not take (white space, ',', ']', '}' or the end), so strtod reads the
 * token in place, exactly as float8in would.
 */
double
sp_json_number(const SpJsonDoc *doc, const SpJsonNode *v)
{
	Assert(sp_json_kind(v) == SPJ_NUMBER);
	return strtod(doc->text + v->pos, NULL);
}

char *
sp_json_string(const SpJsonDoc *doc, const SpJsonNode *v)
{
	int			len = raw_length(doc->text, v);
	char	   *out;

	Assert(sp_json_kind(v) == SPJ_STRING || sp_json_kind(v) == SPJ_KEY);
	if ((v->info & INFO_ESCAPED) == 0)
		return pnstrdup(doc->text + v->pos + 1, len);
	else
	{
		/* unescaping never lengthens: \uXXXX is 6 bytes, at most 3 in UTF-8 */
		StrCursor	c;
		int			n = 0,
					b;

		out = palloc(len + 1);
		cursor_init(&c, doc->text, v);
		while ((b = cursor_next(&c)) >= 0)
			out[n++] = (char) b;
		out[n] = '\0';
		return out;
	}
}

int
sp_json_string_length(const SpJsonDoc *doc, const SpJsonNode *v)
{
	StrCursor	c;
	int			n = 0;

	if ((v->info & INFO_ESCAPED) == 0)
		return raw_length(doc->text, v);
	cursor_init(&c, doc->text, v);
	while (cursor_next(&c) >= 0)
		n++;
	return n;
}

const char *
sp_json_shown(const char *s)
{
	int			len = strnlen(s, NAMEDATALEN);

	if (len < NAMEDATALEN)
		return s;
	return psprintf("%s...", pnstrdup(s, pg_mbcliplen(s, len, NAMEDATALEN - 1)));
}

bool
sp_json_string_eq(const SpJsonDoc *doc, const SpJsonNode *v, const char *s)
{
	const unsigned char *q = (const unsigned char *) s;

	if ((v->info & INFO_ESCAPED) == 0)
	{
		const char *p = doc->text + v->pos + 1;

		while (*p != '"' && *p == (char) *q)
			p++, q++;
		return *p == '"' && *q == '\0';
	}
	else
	{
		StrCursor	c;
		int			b;

		cursor_init(&c, doc->text, v);
		while ((b = cursor_next(&c)) >= 0 && b == *q)
			q++;
		return b < 0 && *q == '\0';
	}
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
		case SPJ_KEY:
			return "a string";
		case SPJ_ARRAY:
			return "an array";
		case SPJ_OBJECT:
			return "an object";
	}
	return "?";
}
