/*
 * sp_keyio.h
 *	  Keys as text, independent of the session: a stored pipeline names its
 *	  key type by its schema-qualified name (an OID changes across dump and
 *	  restore) and holds keys as the type's output, produced and read back
 *	  under fixed settings.
 */
#ifndef SP_KEYIO_H
#define SP_KEYIO_H

#include "fmgr.h"

/* A key type's text I/O functions, looked up once. */
typedef struct SpKeyIO
{
	Oid			type;
	Oid			ioparam;
	FmgrInfo	in;
	FmgrInfo	out;
} SpKeyIO;

/* The name a stored state records for type. */
extern char *sp_keyio_type_name(Oid type);

/*
 * The type a stored name denotes; a name that is not the canonical name of
 * an existing type raises 'code' (22P02 or 22P03).
 */
extern Oid	sp_keyio_type_from_name(const char *name, int code);

extern void sp_keyio_init(SpKeyIO *io, Oid type, MemoryContext cxt);

/*
 * Fixed settings for key I/O: DateStyle ISO, IntervalStyle postgres,
 * TimeZone UTC, extra_float_digits 1 (shortest-exact), bytea_output hex,
 * lc_monetary C, search_path pg_catalog.  Allowed in parallel workers (the
 * changes are saved and undone).  Every sp_keyio_to_text and
 * sp_keyio_from_text call goes between begin and end.
 */
extern int	sp_keyio_begin(void);
extern void sp_keyio_end(int nest);

extern char *sp_keyio_to_text(SpKeyIO *io, Datum key);
extern Datum sp_keyio_from_text(SpKeyIO *io, const char *text);

#endif							/* SP_KEYIO_H */
