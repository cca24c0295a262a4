/*
 * sp_jscan.h
 *	  A pull reader for JSON whose shape the caller knows: the state of a
 *	  pipeline value.
 *
 * The caller asks for what must come next ("an object", "the member
 * rows", "a number") and the reader checks it, so a state of any size is
 * read in one pass with no tree and no limit but the text's.  Every read
 * stops at the terminating NUL; every failure raises the reader's error
 * code with the character position.  Strings may use every JSON escape but
 * \u escapes above U+007F (the writer never produces them).
 *
 * The text need not be NUL-terminated: reading stops at its end, so a
 * state is read where it is stored, without a copy.
 */
#ifndef SP_JSCAN_H
#define SP_JSCAN_H

#include "sp_compat.h"

typedef struct SpScan
{
	const char *start;
	const char *p;
	const char *end;			/* just past the last character */
	int			code;			/* SQLSTATE raised on malformed input */
	const char *what;			/* what start is, for the error: "the state" */
} SpScan;

/* A NUL-terminated text. */
extern void sp_scan_init(SpScan *s, const char *text, int code);

/* len bytes of text, which contain no NUL. */
extern void sp_scan_init_len(SpScan *s, const char *text, size_t len, int code);

SP_NORETURN extern void sp_scan_fail(SpScan *s, const char *fmt,...) pg_attribute_printf(2, 3);

/* Skip white space; is the next character c?  (Consumes nothing else.) */
extern bool sp_scan_peek(SpScan *s, char c);

/* Consume c if it comes next. */
extern bool sp_scan_accept(SpScan *s, char c);
extern void sp_scan_expect(SpScan *s, char c);

/* Consume a literal null if it comes next. */
extern bool sp_scan_null(SpScan *s);

/* A string, decoded, palloc'd. */
extern char *sp_scan_string(SpScan *s);

/* A member name and its colon; the name must be 'name'. */
extern void sp_scan_member(SpScan *s, const char *name);

/* The text of a JSON number, palloc'd, checked against the grammar. */
extern char *sp_scan_number_text(SpScan *s);

/*
 * The same into buf (size bytes, NUL-terminated) when it fits, else
 * palloc'd: returns where it is.
 */
extern char *sp_scan_number(SpScan *s, char *buf, size_t size);

/*
 * How many values the array that starts at the current position holds,
 * counted without reading them (at most max + 1: beyond max the count
 * stops); nothing is consumed.  Malformed text is left to the reading that
 * follows.
 */
extern int64 sp_scan_count_values(SpScan *s, int64 max);

/* Skip any value; returns where it started (after white space). */
extern const char *sp_scan_skip(SpScan *s);

/* Nothing but white space may follow. */
extern void sp_scan_finish(SpScan *s);

#endif							/* SP_JSCAN_H */
