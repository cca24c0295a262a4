/*
 * sp_state.h
 *	  The state a `pipeline` value carries, as the JSON of its "state" member
 *	  (docs/design.md, "The state's text"):
 *
 *	{"key_type": "integer",			schema-qualified name of the key's type
 *	 "key": "3",						current key as the type's text, or null
 *	 "progress": "2026-01-01 00:00:00+00",	latest ts processed (UTC), or null
 *	 "rows": 10, "discarded": 1, "late": 0,
 *	 "buffer": [60, null],			per output port: the value held, or null
 *	 "operators": {"ma": {...}},		per operator with state, by id, its fields
 *									in its visitor's order; rings oldest first
 *	 "emissions": [["2026-01-01 00:00:04+00", "1", 1, 60]]}
 *									the last run's: ts, closed key, port, value
 *
 * A vector output port's value, in "buffer" and "emissions", is an array of
 * its lanes (at most SP_MAX_LANES; a vector_boolean's are 1 or 0).
 *
 * Floats are shortest-exact, with "NaN", "Infinity" and "-Infinity" as
 * strings; integers beyond 2^53 are decimal strings; timestamps are ISO
 * text in UTC.  Nothing depends on a session setting.  Reading checks every
 * member, length and count against the configuration and each operator's
 * decoded state with its check_state; anything wrong raises the caller's
 * error code (22P02 for text, 22P03 for binary input).
 */
#ifndef SP_STATE_H
#define SP_STATE_H

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"

#include "sp_engine.h"

typedef struct SpEmission
{
	TimestampTz ts;
	char	   *key;			/* the closed segment's key, as text */
	int			port;			/* 0-based */
	double		value;			/* a vector port's: its number of lanes */
	double	   *lanes;			/* a vector port's lanes, else NULL */
} SpEmission;

typedef struct SpState
{
	char	   *key_type;
	char	   *key;			/* NULL when there is no current key */
	bool		has_progress;
	TimestampTz progress;
	int64		rows;			/* rows processed, late ones excluded */
	int64		discarded;		/* unpaired rows */
	int64		late;			/* late rows dropped */
	SpRun	   *run;			/* operators and buffer; has_key iff key */
	int			n_emit;
	SpEmission *emit;
} SpState;

/* Append the state's JSON object. */
extern void sp_state_write(StringInfo buf, const SpState *st);

/*
 * Read a state's JSON text for cfg; its run is created in run_cxt, the rest
 * in the current context.
 */
extern SpState *sp_state_read(const char *text, const SpConfig *cfg,
							  MemoryContext run_cxt, int code);

/*
 * The same for len bytes of text (not NUL-terminated, no NUL in them),
 * read in place; the emissions are checked but kept only when
 * keep_emissions is set.  Reading costs the rings and little else.
 */
extern SpState *sp_state_read_len(const char *text, size_t len, const SpConfig *cfg,
								  MemoryContext run_cxt, int code, bool keep_emissions);

/*
 * Only the members that come before the run (key type, key, progress and
 * the counters), read from len bytes of a state's text without its
 * configuration: what the accessors need, at the cost of a few members.
 * st->run and the emissions are left empty.
 */
extern void sp_state_read_header(const char *text, size_t len, int code, SpState *st);

/* A timestamp as the state writes it: ISO, UTC. */
extern void sp_state_write_ts(StringInfo buf, TimestampTz ts);

#endif							/* SP_STATE_H */
