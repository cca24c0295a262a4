/*
 * sp_codec.h
 *	  The stored form of a `pipeline` value.
 *
 * After the varlena header:
 *
 *	uint8	version		1: configuration only; 2: configuration and state
 *	uint8	flags		must be 0
 *	uint16	reserved	must be 0
 *	uint32	config_len	bytes of configuration text that follow
 *	char	config[config_len]	canonical spec JSON, no NUL
 *	char	state[]		version 2 only: the rest of the value, the state's
 *						canonical JSON (sp_state.h), no NUL, not empty
 *
 * Version 1 is what 0.1.0 wrote, and what a value without state is still
 * written as; version 2 is written once a row has been processed.  Both
 * are read, through one entry point (sp_value_open) that detoasts and
 * checks every length.  The binary send/recv form is the same layout
 * without the varlena header, texts in the client encoding, integers in
 * network byte order.  The text form is the configuration's JSON with the
 * state as its last member, "state".
 */
#ifndef SP_CODEC_H
#define SP_CODEC_H

#include "lib/stringinfo.h"

#include "sp_compat.h"
#include "sp_engine.h"
#include "sp_state.h"

#define SP_FORMAT_CONFIG	1
#define SP_FORMAT_STATE		2

typedef struct PipelineValue
{
	int32		vl_len_;
	uint8		version;
	uint8		flags;
	uint16		reserved;
	uint32		config_len;
	char		config[FLEXIBLE_ARRAY_MEMBER];
} PipelineValue;

#define SP_HEADER_SIZE offsetof(PipelineValue, config)

/* A checked stored value's parts; state is NULL for version 1. */
typedef struct SpValueView
{
	const char *config;
	uint32		config_len;
	const char *state;
	uint32		state_len;
} SpValueView;

/*
 * The one entry point that reads a stored value: detoast, check the header
 * and every length (22P03 when malformed), and present either version as a
 * view.
 */
extern PipelineValue *sp_value_open(Datum d, SpValueView *view);

/* Check an already detoasted value; fills view. */
extern void sp_value_view(const PipelineValue *pv, SpValueView *view);

/* The parts as NUL-terminated strings (22P03 when one holds a NUL). */
extern char *sp_view_config_text(const SpValueView *view);
extern char *sp_view_state_text(const SpValueView *view);

/*
 * The state of view (which has one) read where it is stored, without a
 * copy (22P03 when it holds a NUL or is malformed); see sp_state_read_len.
 */
extern SpState *sp_view_read_state(const SpValueView *view, const SpConfig *cfg,
								   MemoryContext run_cxt, bool keep_emissions);

/*
 * The header of view's state (sp_state_read_header): false, and *st empty,
 * when it has none.  The configuration is not read.
 */
extern bool sp_view_read_header(const SpValueView *view, SpState *st);

/*
 * Raise 22P03 "invalid binary representation of type pipeline" with detail:
 * for a stored value or a wire message that is malformed.
 */
SP_NORETURN extern void sp_bad_value(const char *detail);

/*
 * The text form: the configuration's JSON, with the state (when there is
 * one) as its last member, "state".
 */
extern char *sp_value_text(const SpValueView *view);

/*
 * Split a text form into its configuration (returned, for the spec reader)
 * and the text of its "state" member (NULL when it has none); code is the
 * SQLSTATE of malformed text.
 */
extern char *sp_text_split(const char *text, char **state_text, int code);

/*
 * The wire form: read a message (22P03 when malformed; the texts come in
 * the client encoding and are returned in the server's), returning the
 * configuration's text and setting the state's (NULL for version 1); and
 * write a value's.
 */
extern char *sp_wire_read(StringInfo buf, char **state_text);
extern bytea *sp_wire_write(const PipelineValue *pv, const SpValueView *view);

/* Build a value holding cfg (canonical text), without state. */
extern PipelineValue *sp_value_from_config(const SpConfig *cfg);

/* Build a value holding cfg and st (version 2). */
extern PipelineValue *sp_value_build(const SpConfig *cfg, const SpState *st);

/* The same, from cfg's canonical text as sp_spec_write writes it. */
extern PipelineValue *sp_value_build_text(const char *config, uint32 config_len,
										  const SpState *st);

#endif							/* SP_CODEC_H */
