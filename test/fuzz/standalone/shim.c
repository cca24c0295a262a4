/*
 * shim.c
 *	  Stand-ins for the few server functions that the spec reader, the
 *	  engine and the operators call, so that they can be built and fuzzed
 *	  outside PostgreSQL (see fuzz_spec.c and test/fuzz/libfuzz.sh), or
 *	  built plain to count their work (work.c).
 *
 * palloc hands out malloc'd chunks owned by memory contexts: deleting a
 * context frees its chunks, and shim_free_all() releases everything, as the
 * end of a statement would.  An ERROR runs the error context callbacks and
 * long-jumps to the innermost PG_TRY, or to shim_error_jmp, as the server
 * would abort the statement.  StringInfo, psprintf and the shortest-exact
 * float printing come from libpgcommon and libpgport.
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
#include "utils/memutils.h"

#include "shim.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define SHIM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SHIM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef SHIM_POISON
#define SHIM_POISON(p, n) ((void) (p), (void) (n))
#define SHIM_UNPOISON(p, n) ((void) (p), (void) (n))
#endif

sigjmp_buf *shim_error_jmp = NULL;
sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;
char		shim_last_error[512];
volatile sig_atomic_t InterruptPending = false;

/* ---- memory: contexts that own their chunks ---- */

/*
 * A context frees its chunks when it is deleted, as the server's do, so that
 * AddressSanitizer catches anything still pointing into a deleted one (the
 * spec reader's parse tree, say).  pfree() and repalloc() poison the chunk
 * they let go of, so that a use after them is caught too; its memory goes
 * with its context.
 */
typedef struct ShimContext ShimContext;

typedef struct Chunk
{
	struct Chunk *next;
	ShimContext *context;
	size_t		size;
	max_align_t data[FLEXIBLE_ARRAY_MEMBER];
} Chunk;

struct ShimContext
{
	ShimContext *parent;
	ShimContext *firstchild;
	ShimContext *nextsibling;
	Chunk	   *chunks;
};

static ShimContext top_context;
MemoryContext CurrentMemoryContext = (MemoryContext) &top_context;

static void *
chunk_alloc(MemoryContext context, size_t size, bool zero)
{
	ShimContext *cxt = (ShimContext *) context;
	Chunk	   *c = zero ? calloc(1, offsetof(Chunk, data) + size) :
		malloc(offsetof(Chunk, data) + size);

	if (c == NULL)
		abort();
	c->next = cxt->chunks;
	c->context = cxt;
	c->size = size;
	cxt->chunks = c;
	return c->data;
}

void *
palloc(Size size)
{
	return chunk_alloc(CurrentMemoryContext, size, false);
}

void *
palloc0(Size size)
{
	return chunk_alloc(CurrentMemoryContext, size, true);
}

void *
palloc_extended(Size size, int flags)
{
	return chunk_alloc(CurrentMemoryContext, size, (flags & MCXT_ALLOC_ZERO) != 0);
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return chunk_alloc(context, size, false);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return chunk_alloc(context, size, true);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return chunk_alloc(context, size, false);
}

char *
MemoryContextStrdup(MemoryContext context, const char *string)
{
	size_t		len = strlen(string);
	char	   *out = chunk_alloc(context, len + 1, false);

	memcpy(out, string, len + 1);
	return out;
}

void *
repalloc(void *pointer, Size size)
{
	Chunk	   *old = (Chunk *) ((char *) pointer - offsetof(Chunk, data));
	void	   *p = chunk_alloc((MemoryContext) old->context, size, false);

	memcpy(p, pointer, Min(old->size, size));
	SHIM_POISON(old->data, old->size);
	return p;					/* the old chunk goes with its context */
}

void *
repalloc_huge(void *pointer, Size size)
{
	return repalloc(pointer, size);
}

void
pfree(void *pointer)
{
	Chunk	   *c = (Chunk *) ((char *) pointer - offsetof(Chunk, data));

	SHIM_POISON(c->data, c->size);
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

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name,
							  Size minContextSize, Size initBlockSize, Size maxBlockSize)
{
	ShimContext *cxt = calloc(1, sizeof(ShimContext));
	ShimContext *p = (ShimContext *) parent;

	if (cxt == NULL)
		abort();
	cxt->parent = p;
	cxt->nextsibling = p->firstchild;
	p->firstchild = cxt;
	return (MemoryContext) cxt;
}

static void
free_chunks(ShimContext *cxt)
{
	while (cxt->chunks)
	{
		Chunk	   *next = cxt->chunks->next;

		SHIM_UNPOISON(cxt->chunks->data, cxt->chunks->size);
		free(cxt->chunks);
		cxt->chunks = next;
	}
}

void
MemoryContextDelete(MemoryContext context)
{
	ShimContext *cxt = (ShimContext *) context;
	ShimContext **link;

	if (cxt == &top_context || (MemoryContext) cxt == CurrentMemoryContext)
		abort();				/* the server forbids both */
	while (cxt->firstchild)
		MemoryContextDelete((MemoryContext) cxt->firstchild);
	free_chunks(cxt);
	for (link = &cxt->parent->firstchild; *link != cxt; link = &(*link)->nextsibling)
		;
	*link = cxt->nextsibling;
	free(cxt);
}

void
shim_free_all(void)
{
	/* after an ERROR the current context may be one about to go */
	CurrentMemoryContext = (MemoryContext) &top_context;
	while (top_context.firstchild)
		MemoryContextDelete((MemoryContext) top_context.firstchild);
	free_chunks(&top_context);
}

/* ---- errors ---- */

static int	current_level;
static int	current_code;

bool
errstart(int elevel, const char *domain)
{
	current_level = elevel;
	current_code = ERRCODE_INTERNAL_ERROR;
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
	current_code = sqlerrcode;
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
RECORDER(errcontext_msg)

#define PLURAL_RECORDER(name) \
int \
name(const char *fmt_singular, const char *fmt_plural, unsigned long n, ...) \
{ \
	va_list		args; \
	va_start(args, n); \
	record(n == 1 ? fmt_singular : fmt_plural, args); \
	va_end(args); \
	return 0; \
}

PLURAL_RECORDER(errmsg_plural)
PLURAL_RECORDER(errdetail_plural)

int
set_errcontext_domain(const char *domain)
{
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (current_level >= ERROR)
	{
		/* the context lines, innermost first, as the server adds them */
		for (ErrorContextCallback *e = error_context_stack; e; e = e->previous)
			e->callback(e->arg);
		/* as the server's top level does when it catches the error */
		error_context_stack = NULL;
		pg_re_throw();
	}
}

void
pg_re_throw(void)
{
	if (PG_exception_stack != NULL)
		siglongjmp(*PG_exception_stack, 1);
	if (shim_error_jmp == NULL)
		abort();
	/* a PG_CATCH that rethrows has put back callbacks of frames about to go */
	error_context_stack = NULL;
	siglongjmp(*shim_error_jmp, 1);
}

/* the error being handled: its code and what was recorded of its text */
ErrorData *
CopyErrorData(void)
{
	ErrorData  *edata = palloc0(sizeof(ErrorData));

	edata->elevel = ERROR;
	edata->sqlerrcode = current_code;
	edata->message = pstrdup(shim_last_error);
	return edata;
}

void
FlushErrorState(void)
{
}

void
ReThrowError(ErrorData *edata)
{
	current_level = edata->elevel;
	current_code = edata->sqlerrcode;
	strlcpy(shim_last_error, edata->message, sizeof(shim_last_error));
	pg_re_throw();
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

/* as the server's, for UTF8: the bytes of whole characters within limit */
int
pg_mbcliplen(const char *mbstr, int len, int limit)
{
	int			clen = 0;

	while (len > 0 && *mbstr)
	{
		int			l = pg_utf_mblen((const unsigned char *) mbstr);

		if (clen + l > limit)
			break;
		clen += l;
		if (clen == limit)
			break;
		len -= l;
		mbstr += l;
	}
	return clen;
}

/* as the server's, for UTF8: never reads at or past mbstr + limit */
int
pg_mbstrlen_with_len(const char *mbstr, int limit)
{
	int			len = 0;

	while (limit > 0 && *mbstr)
	{
		int			l = pg_utf_mblen((const unsigned char *) mbstr);

		limit -= l;
		mbstr += l;
		len++;
	}
	return len;
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
