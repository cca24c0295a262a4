/*
 * sp_keyio.h
 *	  Keys as text, independent of the session: a stored pipeline names its
 *	  key type by its schema-qualified name (an OID changes across dump and
 *	  restore) and holds keys as the type's output, produced under fixed
 *	  settings.
 *
 * Reading a stored value never resolves that name nor parses a key: the
 * name and the keys are only text then, so reading, copying, restoring or
 * printing a value runs no function that the value chose, and a value still
 * reads back after its key type changed or went away.  A key is parsed only
 * when a computation continues from it, with the input function of that
 * call's own key type (the caller's type, in the caller's query, as a cast
 * of a literal would be).
 */
#ifndef SP_KEYIO_H
#define SP_KEYIO_H

#include "fmgr.h"

/* A key type's text I/O functions, looked up once. */
typedef struct SpKeyIO
{
	Oid			type;
	uint32		settings;		/* the fixed settings its I/O reads */
	Oid			ioparam;
	FmgrInfo	in;
	FmgrInfo	out;
} SpKeyIO;

/* The name a stored state records for type. */
extern char *sp_keyio_type_name(Oid type);

extern void sp_keyio_init(SpKeyIO *io, Oid type, MemoryContext cxt);

/*
 * Fixed settings for key I/O: DateStyle ISO, IntervalStyle postgres,
 * TimeZone UTC, extra_float_digits 1 (shortest-exact), bytea_output hex,
 * lc_monetary C, array_nulls on, quote_all_identifiers off, search_path
 * pg_catalog; of them, those that io's type reads (sp_keyio.c lists them),
 * and of those only the ones not showing the fixed value already.  Allowed
 * in parallel workers (the changes are saved and undone).  Every
 * sp_keyio_to_text and sp_keyio_from_text call goes between begin and end.
 */
extern int	sp_keyio_begin(const SpKeyIO *io);
extern void sp_keyio_end(int nest);

/*
 * begin for keys of type, for a stretch of C code that converts many of
 * them: the begins and ends inside it set nothing for that type.  No user
 * code may run inside it but the key types' I/O functions.  On error,
 * abandon (the transaction's abort undoes the settings).
 */
extern int	sp_keyio_hold(Oid type);
extern void sp_keyio_release(int nest);
extern void sp_keyio_abandon(void);

extern char *sp_keyio_to_text(SpKeyIO *io, Datum key);

/*
 * A stored key read with io's type.  Whatever the type's input function
 * raises (a renamed enum label, a composite that gained an attribute, a
 * domain's check) becomes 22P02 naming the key and the type; only errors
 * that are not about the data (cancellation, out of memory, internal
 * errors) pass as they are.
 */
extern Datum sp_keyio_from_text(SpKeyIO *io, const char *text);

#endif							/* SP_KEYIO_H */
