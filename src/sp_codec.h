/*
 * sp_codec.h
 *	  The stored form of a `pipeline` value.
 *
 * Layout (format version 1), after the varlena header:
 *
 *	uint8	version		SP_FORMAT_VERSION; anything else is refused
 *	uint8	flags		must be 0 in this version (state sections come later)
 *	uint16	reserved	must be 0
 *	uint32	config_len	bytes of configuration text that follow
 *	char	config[config_len]	canonical spec JSON, no NUL
 *
 * The binary send/recv form is the same bytes without the varlena header,
 * so the wire format carries the version too.  Every read checks lengths
 * before touching bytes and re-validates the configuration.
 */
#ifndef SP_CODEC_H
#define SP_CODEC_H

#include "sp_engine.h"

#define SP_FORMAT_VERSION 1

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

/* Build a value holding cfg (canonical text). */
extern PipelineValue *sp_value_from_config(const SpConfig *cfg);

/*
 * Raise 22P03 "invalid binary representation of type pipeline" with detail:
 * for a stored value or a wire message that is malformed.
 */
extern void sp_bad_value(const char *detail) pg_attribute_noreturn();

/* Check a stored value's header; raises 22P03 when it is malformed. */
extern void sp_value_check(const PipelineValue *pv);

/* Check a stored value and return its configuration. */
extern SpConfig *sp_value_config(const PipelineValue *pv);

#endif							/* SP_CODEC_H */
