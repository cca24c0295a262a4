/*
 * sp_key.h
 *	  Control keys of any SQL type: the type's equality, and the current key
 *	  of a run.
 *
 * The segment rule compares each row's key with the current one, using the
 * key type's default equality (its btree or hash operator class) with the
 * call's collation.  Common by-value types compare their Datums inline, with
 * no function call; text and bytea under a deterministic collation compare
 * bytes; everything else calls the equality function.  segment_agg,
 * segment_key and pipeline_agg use this.
 */
#ifndef SP_KEY_H
#define SP_KEY_H

#include <math.h>

#include "fmgr.h"

#include "sp_engine.h"

/* How two keys of one type are compared. */
typedef enum SpKeyCompare
{
	SP_KEYCMP_BOOL,
	SP_KEYCMP_CHAR,
	SP_KEYCMP_INT16,
	SP_KEYCMP_INT32,			/* int4, date, oid, enums */
	SP_KEYCMP_INT64,			/* int8, timestamp, timestamptz, time */
	SP_KEYCMP_FLOAT4,
	SP_KEYCMP_FLOAT8,
	SP_KEYCMP_BYTES,			/* text and bytea under a deterministic collation */
	SP_KEYCMP_CALL				/* the equality function */
} SpKeyCompare;

/* A key type, looked up once per query. */
typedef struct SpKeyType
{
	Oid			type;
	Oid			collation;
	int16		typlen;
	bool		typbyval;
	SpKeyCompare cmp;
	FmgrInfo	eq;				/* the equality function (every kind has it) */
} SpKeyType;

/*
 * Look up type's equality; raises 42P18 when the call could not tell the
 * type (InvalidOid), 42883 naming the type when it has no equality.
 * The function lookup data is kept in cxt.
 */
extern void sp_key_type_init(SpKeyType *kt, Oid type, Oid collation,
							 MemoryContext cxt);

/*
 * A run's keys: the current one, and the key of the segment that the last
 * boundary closed (kept until the next boundary, so that it can be
 * reported).  By-reference keys are copies in cxt, made when a key becomes
 * current; at most these two are alive.
 */
typedef struct SpKeyState
{
	SpKeyType  *kt;				/* not const: the equality keeps a cache */
	MemoryContext cxt;
	bool		has_key;
	bool		has_closed;
	Datum		key;
	Datum		closed;
} SpKeyState;

/* An empty state (no current key) for keys of type kt, copied into cxt. */
extern void sp_key_state_init(SpKeyState *ks, SpKeyType *kt,
							  MemoryContext cxt);

/* Make key the current key; the current one, if any, becomes the closed one. */
extern void sp_key_replace(SpKeyState *ks, Datum key);

/* The open segment closes without a new key: current becomes closed. */
extern void sp_key_close(SpKeyState *ks);

/*
 * Take the closed key away from the state, which then no longer frees it:
 * for a caller that keeps the keys of the segments that emitted.  Its
 * memory is the state's context.
 */
static inline Datum
sp_key_take_closed(SpKeyState *ks)
{
	Assert(ks->has_closed);
	ks->has_closed = false;
	return ks->closed;
}

/* The generic and toasted cases of sp_keys_equal. */
extern bool sp_key_equal_call(SpKeyType *kt, Datum a, Datum b);

static pg_attribute_always_inline bool
sp_float8_key_equal(double a, double b)
{
	/* float8eq: NaN equals NaN, -0 equals 0 */
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b;
}

/* Are two non-NULL keys of type kt equal?  Inline: it runs on every row. */
static pg_attribute_always_inline bool
sp_keys_equal(SpKeyType *kt, Datum a, Datum b)
{
	switch (kt->cmp)
	{
		case SP_KEYCMP_BOOL:
			return DatumGetBool(a) == DatumGetBool(b);
		case SP_KEYCMP_CHAR:
			return DatumGetChar(a) == DatumGetChar(b);
		case SP_KEYCMP_INT16:
			return DatumGetInt16(a) == DatumGetInt16(b);
		case SP_KEYCMP_INT32:
			return DatumGetInt32(a) == DatumGetInt32(b);
		case SP_KEYCMP_INT64:
			return DatumGetInt64(a) == DatumGetInt64(b);
		case SP_KEYCMP_FLOAT4:
			return sp_float8_key_equal(DatumGetFloat4(a), DatumGetFloat4(b));
		case SP_KEYCMP_FLOAT8:
			return sp_float8_key_equal(DatumGetFloat8(a), DatumGetFloat8(b));
		case SP_KEYCMP_BYTES:
			{
				const struct varlena *x = (const struct varlena *) DatumGetPointer(a);
				const struct varlena *y = (const struct varlena *) DatumGetPointer(b);

				if (VARATT_IS_EXTERNAL(x) || VARATT_IS_COMPRESSED(x) ||
					VARATT_IS_EXTERNAL(y) || VARATT_IS_COMPRESSED(y))
					return sp_key_equal_call(kt, a, b);
				return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
					memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
			}
		case SP_KEYCMP_CALL:
			break;
	}
	return sp_key_equal_call(kt, a, b);
}

/*
 * The segment rule's key tracking for one row: NULL, the same key, or a new
 * one (which becomes current).  A new key while there was one is a
 * boundary; ks->closed then holds the key of the segment it closed.
 */
static inline SpKeyEvent
sp_key_track(SpKeyState *ks, bool isnull, Datum key)
{
	if (isnull)
		return SP_KEY_NULL;
	if (ks->has_key && sp_keys_equal(ks->kt, ks->key, key))
		return SP_KEY_SAME;
	if (ks->kt->typbyval)
	{
		/* nothing to copy, nothing to free */
		ks->has_closed = ks->has_key;
		ks->closed = ks->key;
		ks->has_key = true;
		ks->key = key;
	}
	else
		sp_key_replace(ks, key);
	return SP_KEY_NEW;
}

#endif							/* SP_KEY_H */
