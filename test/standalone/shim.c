/*
 * shim.c
 *	  Stand-ins for the few server functions that the spec reader, the
 *	  engine and the operators call, so that they can be built and fuzzed
 *	  outside PostgreSQL (see fuzz_spec.c and test/libfuzz.sh).
 *
 * palloc hands out malloc'd chunks that shim_free_all() releases, as a
 * memory context reset would.  An ERROR long-jumps to shim_error_jmp, as
 * the server would abort the statement.  StringInfo, psprintf and the
 * shortest-exact float printing come from libpgcommon and libpgport.
 */
#include "postgres.h"

#include <math.h>
#include <setjmp.h>

#include "common/shortest_dec.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/json.h"

#include "shim.h"

sigjmp_buf *shim_error_jmp = NULL;
char		shim_last_error[512];
volatile sig_atomic_t InterruptPending = false;

/* ---- memory: every chunk remembered until shim_free_all() ---- */

typedef struct Chunk
{
	struct Chunk *next;
	size_t		size;
	max_align_t data[FLEXIBLE_ARRAY_MEMBER];
} Chunk;

static Chunk *chunks = NULL;

static void *
chunk_alloc(size_t size, bool zero)
{
	Chunk	   *c = zero ? calloc(1, offsetof(Chunk, data) + size) :
		malloc(offsetof(Chunk, data) + size);

	if (c == NULL)
		abort();
	c->next = chunks;
	c->size = size;
	chunks = c;
	return c->data;
}

void *
palloc(Size size)
{
	return chunk_alloc(size, false);
}

void *
palloc0(Size size)
{
	return chunk_alloc(size, true);
}

void *
palloc_extended(Size size, int flags)
{
	return chunk_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0);
}

/* One pretend context: every chunk goes with shim_free_all(). */
MemoryContext CurrentMemoryContext = NULL;

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return chunk_alloc(size, true);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return chunk_alloc(size, false);
}

void *
repalloc(void *pointer, Size size)
{
	Chunk	   *old = (Chunk *) ((char *) pointer - offsetof(Chunk, data));
	void	   *p = chunk_alloc(size, false);

	memcpy(p, pointer, Min(old->size, size));
	return p;					/* the old chunk goes with shim_free_all() */
}

void
pfree(void *pointer)
{
	/* freed with everything else at the end of the input */
}

char *
pstrdup(const char *in)
{
	return pnstrdup(in, strlen(in));
}

char *
pnstrdup(const char *in, Size len)
{
	char	   *out;

	len = strnlen(in, len);
	out = palloc(len + 1);
	memcpy(out, in, len);
	out[len] = '\0';
	return out;
}

void
shim_free_all(void)
{
	while (chunks)
	{
		Chunk	   *next = chunks->next;

		free(chunks);
		chunks = next;
	}
}

/* ---- errors ---- */

static int	current_level;

bool
errstart(int elevel, const char *domain)
{
	current_level = elevel;
	shim_last_error[0] = '\0';
	return elevel >= ERROR;		/* lower levels print nothing here */
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errcode(int sqlerrcode)
{
	return 0;
}

static void
record(const char *fmt, va_list args)
{
	size_t		used = strlen(shim_last_error);

	if (used < sizeof(shim_last_error) - 2)
	{
		if (used > 0)
			shim_last_error[used++] = ' ';
		vsnprintf(shim_last_error + used, sizeof(shim_last_error) - used, fmt, args);
	}
}

#define RECORDER(name) \
int \
name(const char *fmt, ...) \
{ \
	va_list		args; \
	va_start(args, fmt); \
	record(fmt, args); \
	va_end(args); \
	return 0; \
}

RECORDER(errmsg)
RECORDER(errmsg_internal)
RECORDER(errdetail)
RECORDER(errdetail_internal)
RECORDER(errhint)

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (current_level >= ERROR)
	{
		if (shim_error_jmp == NULL)
			abort();
		siglongjmp(*shim_error_jmp, 1);
	}
}

void
float_overflow_error(void)
{
	ereport(ERROR, (errmsg("value out of range: overflow")));
}

void
float_underflow_error(void)
{
	ereport(ERROR, (errmsg("value out of range: underflow")));
}

void
float_zero_divide_error(void)
{
	ereport(ERROR, (errmsg("division by zero")));
}

/* ---- the rest ---- */

void
check_stack_depth(void)
{
}

void
ProcessInterrupts(void)
{
}

int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

int
float8_cmp_internal(float8 a, float8 b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) ? 1 : (a < b) ? -1 : 0;
}

char *
float8out_internal(float8 num)
{
	char	   *buf = palloc(DOUBLE_SHORTEST_DECIMAL_LEN + 1);

	if (isnan(num))
		return strcpy(buf, "NaN");
	if (isinf(num))
		return strcpy(buf, num > 0 ? "Infinity" : "-Infinity");
	double_to_shortest_decimal_buf(num, buf);
	return buf;
}

void
escape_json(StringInfo buf, const char *str)
{
	appendStringInfoChar(buf, '"');
	for (const char *p = str; *p; p++)
	{
		switch (*p)
		{
			case '"':
				appendStringInfoString(buf, "\\\"");
				break;
			case '\\':
				appendStringInfoString(buf, "\\\\");
				break;
			case '\n':
				appendStringInfoString(buf, "\\n");
				break;
			default:
				if ((unsigned char) *p < ' ')
					appendStringInfo(buf, "\\u%04x", (int) *p);
				else
					appendStringInfoChar(buf, *p);
		}
	}
	appendStringInfoChar(buf, '"');
}
