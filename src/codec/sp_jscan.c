/*
 * sp_jscan.c
 *	  The pull reader of JSON (see sp_jscan.h).
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "sp_jscan.h"
#include "sp_json.h"

/* The state nests three deep; anything deeper is refused at once. */
#define SCAN_MAX_DEPTH 16

void
sp_scan_init(SpScan *s, const char *text, int code)
{
	sp_scan_init_len(s, text, strlen(text), code);
}

void
sp_scan_init_len(SpScan *s, const char *text, size_t len, int code)
{
	s->start = s->p = text;
	s->end = text + len;
	s->code = code;
	s->what = "the state";
}

/* The current character, '\0' at the end. */
static inline char
cur(const SpScan *s)
{
	return (s->p < s->end) ? *s->p : '\0';
}

void
sp_scan_fail(SpScan *s, const char *fmt,...)
{
	StringInfoData msg;

	initStringInfo(&msg);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&msg, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	ereport(ERROR,
			(errcode(s->code),
			 errmsg("invalid pipeline state"),
			 errdetail("%s at character %d of %s.",
					   msg.data, (int) (s->p - s->start) + 1, s->what)));
}

static void
skip_ws(SpScan *s)
{
	while (s->p < s->end &&
		   (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

bool
sp_scan_peek(SpScan *s, char c)
{
	skip_ws(s);
	return s->p < s->end && *s->p == c;
}

bool
sp_scan_accept(SpScan *s, char c)
{
	if (!sp_scan_peek(s, c))
		return false;
	s->p++;
	return true;
}

void
sp_scan_expect(SpScan *s, char c)
{
	if (!sp_scan_accept(s, c))
		sp_scan_fail(s, "Expected \"%c\"", c);
}

bool
sp_scan_null(SpScan *s)
{
	skip_ws(s);
	if (s->end - s->p < 4 || strncmp(s->p, "null", 4) != 0)
		return false;
	s->p += 4;
	return true;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
sp_scan_string(SpScan *s)
{
	const char *end;
	char	   *out;
	char	   *o;

	skip_ws(s);
	if (cur(s) != '"')
		sp_scan_fail(s, "Expected a string");
	s->p++;
	/* the decoded string is no longer than its text: size it exactly */
	for (end = s->p; end < s->end && *end != '"' && *end != '\0'; end++)
		if (*end == '\\' && end + 1 < s->end && end[1] != '\0')
			end++;
	out = o = palloc(end - s->p + 1);
	for (;;)
	{
		char		c = cur(s);

		if (c == '\0')
			sp_scan_fail(s, "Unterminated string");
		if ((unsigned char) c < 0x20)
			sp_scan_fail(s, "Control character in a string");
		s->p++;
		if (c == '"')
			break;
		if (c != '\\')
		{
			*o++ = c;
			continue;
		}
		c = cur(s);
		if (c != '\0')
			s->p++;
		switch (c)
		{
			case '"':
			case '\\':
			case '/':
				*o++ = c;
				break;
			case 'b':
				*o++ = '\b';
				break;
			case 'f':
				*o++ = '\f';
				break;
			case 'n':
				*o++ = '\n';
				break;
			case 'r':
				*o++ = '\r';
				break;
			case 't':
				*o++ = '\t';
				break;
			case 'u':
				{
					int			v = 0;

					for (int i = 0; i < 4; i++)
					{
						int			d = (s->p + i < s->end) ? hex_digit(s->p[i]) : -1;

						if (d < 0)
							sp_scan_fail(s, "Invalid \\u escape");
						v = (v << 4) | d;
					}
					if (v == 0 || v > 0x7F)
						sp_scan_fail(s, "Unsupported \\u escape (only U+0001 to U+007F)");
					s->p += 4;
					*o++ = (char) v;
					break;
				}
			default:
				s->p--;
				sp_scan_fail(s, "Invalid escape");
		}
	}
	*o = '\0';
	return out;
}

void
sp_scan_member(SpScan *s, const char *name)
{
	const char *at;
	char	   *got;

	skip_ws(s);
	at = s->p;
	got = sp_scan_string(s);
	if (strcmp(got, name) != 0)
	{
		s->p = at;
		sp_scan_fail(s, "Expected member \"%s\"", name);
	}
	pfree(got);
	sp_scan_expect(s, ':');
}

/* Where the JSON number at p ends (within end), or NULL: the grammar. */
static const char *
number_end(const char *p, const char *end)
{
#define DIGIT(q) ((q) < end && *(q) >= '0' && *(q) <= '9')
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (DIGIT(p))
		while (DIGIT(p))
			p++;
	else
		return NULL;
	if (p < end && *p == '.')
	{
		p++;
		if (!DIGIT(p))
			return NULL;
		while (DIGIT(p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!DIGIT(p))
			return NULL;
		while (DIGIT(p))
			p++;
	}
	return p;
#undef DIGIT
}

char *
sp_scan_number(SpScan *s, char *buf, size_t size)
{
	const char *p;
	size_t		len;
	char	   *text;

	skip_ws(s);
	p = number_end(s->p, s->end);
	if (p != NULL)
	{
		len = p - s->p;
		text = (len < size) ? buf : palloc(len + 1);
		memcpy(text, s->p, len);
		text[len] = '\0';
		s->p = p;
		return text;
	}
	sp_scan_fail(s, "Expected a number");
}

char *
sp_scan_number_text(SpScan *s)
{
	return sp_scan_number(s, NULL, 0);
}

int64
sp_scan_count_values(SpScan *s, int64 max)
{
	const char *p = s->p;
	int			depth = 0;
	int64		n = 0;
	bool		any = false;

	while (p < s->end && *p != '[')
		p++;
	for (p++; p < s->end && n <= max; p++)
	{
		switch (*p)
		{
			case '"':
				/* a string: to its closing quote */
				for (p++; p < s->end && *p != '"'; p++)
					if (*p == '\\')
						p++;
				any = true;
				break;
			case '[':
			case '{':
				depth++;
				any = true;
				break;
			case ']':
			case '}':
				if (depth-- == 0)
					return any ? n + 1 : 0;
				break;
			case ',':
				if (depth == 0)
					n++;
				break;
			case ' ':
			case '\t':
			case '\n':
			case '\r':
				break;
			default:
				any = true;
				break;
		}
	}
	return n + (any ? 1 : 0);
}

static void
skip_value(SpScan *s, int depth)
{
	check_stack_depth();
	if (depth > SCAN_MAX_DEPTH)
		sp_scan_fail(s, "Nesting too deep");
	skip_ws(s);
	switch (cur(s))
	{
		case '"':
			(void) sp_scan_string(s);
			return;
		case '{':
		case '[':
			{
				char		close = (cur(s) == '{') ? '}' : ']';
				bool		object = (close == '}');
				int64		n = 0;

				s->p++;
				if (sp_scan_accept(s, close))
					return;
				do
				{
					if ((++n & 0xFFFF) == 0)
						CHECK_FOR_INTERRUPTS();
					if (object)
					{
						(void) sp_scan_string(s);
						sp_scan_expect(s, ':');
					}
					skip_value(s, depth + 1);
				} while (sp_scan_accept(s, ','));
				sp_scan_expect(s, close);
				return;
			}
		case 't':
			if (s->end - s->p >= 4 && strncmp(s->p, "true", 4) == 0)
			{
				s->p += 4;
				return;
			}
			break;
		case 'f':
			if (s->end - s->p >= 5 && strncmp(s->p, "false", 5) == 0)
			{
				s->p += 5;
				return;
			}
			break;
		case 'n':
			if (sp_scan_null(s))
				return;
			break;
		default:
			if (cur(s) == '-' || (cur(s) >= '0' && cur(s) <= '9'))
			{
				pfree(sp_scan_number_text(s));
				return;
			}
			break;
	}
	sp_scan_fail(s, "Invalid token");
}

const char *
sp_scan_skip(SpScan *s)
{
	const char *start;

	skip_ws(s);
	start = s->p;
	skip_value(s, 0);
	return start;
}

void
sp_scan_finish(SpScan *s)
{
	skip_ws(s);
	if (s->p < s->end)
		sp_scan_fail(s, "Unexpected text after the state");
}
