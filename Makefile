# segpipe: PGXS build
#
#   make && make install      build and install into the server of PG_CONFIG
#                             (make PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config ...)
#   make installcheck         pg_regress suites against a running server
#                             (PGHOST, PGPORT, PGUSER as for psql; superuser)
#
# test/run-tests.sh does all of it in a throwaway cluster, with COPT=-Werror.

EXTENSION = segpipe
MODULE_big = segpipe
# The install script of the first version and the chain of upgrade scripts
# from it: CREATE EXTENSION runs segpipe--0.1.0.sql, then each upgrade
# script up to default_version, so a fresh install and an upgraded one run
# the same statements.  A released script never changes; a new version adds
# one upgrade script here.
DATA = src/segpipe--0.1.0.sql $(sort $(wildcard src/segpipe--*--*.sql))

# src/ has three layers, each including only its own headers and those of
# the layers below it: engine/ (the segment rule, the mesh executor, the
# rings and the operators), codec/ (JSON, the spec reader and writer, the
# state and the stored forms), server/ (the SQL-callable functions and what
# needs the server to run: key types and their I/O, resume, heartbeats).
# test/integration/layers.sh checks the rule.
OBJS = \
	src/engine/sp_sort.o \
	src/engine/sp_engine.o \
	src/engine/sp_visitor.o \
	src/engine/sp_ring.o \
	src/engine/sp_registry.o \
	src/engine/sp_time.o \
	src/engine/ops_trackers.o \
	src/engine/ops_window.o \
	src/engine/ops_compare.o \
	src/engine/ops_arith.o \
	src/engine/ops_dsp.o \
	src/engine/ops_time.o \
	src/engine/ops_lang.o \
	src/engine/ops_interp.o \
	src/engine/ops_vector.o \
	src/engine/sp_rpn.o \
	src/engine/ops_fused.o \
	src/engine/ops_burst.o \
	src/engine/ops_keyed.o \
	src/engine/ops_join.o \
	src/engine/ops_variable.o \
	src/engine/ops_trigger.o \
	src/engine/ops_shift.o \
	src/codec/sp_json.o \
	src/codec/sp_jscan.o \
	src/codec/sp_spec.o \
	src/codec/sp_spec_suggest.o \
	src/codec/sp_spec_param.o \
	src/codec/sp_spec_mesh.o \
	src/codec/sp_spec_nested.o \
	src/codec/sp_spec_program.o \
	src/codec/sp_spec_program_mesh.o \
	src/codec/sp_spec_write.o \
	src/codec/sp_spec_proto.o \
	src/codec/sp_state.o \
	src/codec/sp_codec.o \
	src/server/sp_config_cache.o \
	src/server/sp_key.o \
	src/server/sp_keyio.o \
	src/server/sp_settings.o \
	src/server/sp_resume.o \
	src/server/sp_rowvalue.o \
	src/server/pipeline_type.o \
	src/server/pipeline_cast.o \
	src/server/pipeline_access.o \
	src/server/pipeline_agg.o \
	src/server/pipeline_agg_row.o \
	src/server/pipeline_agg_ordered.o \
	src/server/maintain_insert.o \
	src/server/maintain_cache.o \
	src/server/maintain_state.o \
	src/server/maintain_catalog.o \
	src/server/maintain_sql.o \
	src/server/maintain_correct.o \
	src/server/maintain_admin.o \
	src/server/pipeline_punct.o \
	src/server/segment_agg.o \
	src/server/session_key.o \
	src/server/sp_heartbeat.o

REGRESS = setup spec_errors segment_rule punctuation trackers windowed mesh type_io arith_oracle filters dsp arithmetic state_bounds keys segment_key close_at_end upgrade stored_text pipeline_agg ordered pipeline_state segment_state maintain corrections maintain_insert watermark stages retention casts trusted punctuate heartbeats chaining hostile time program lang_ops prototypes nested vectors fused nested_vectors keyed more_ops join_ops timeshift maintain_hostile carry program_mesh maintain_upgrade
REGRESS_OPTS = --encoding=UTF8

# Warnings we want to hear about; test/run-tests.sh makes them errors with
# COPT=-Werror, a plain build does not (a newer compiler may warn more).
PG_CFLAGS = -Wall -Wmissing-prototypes -Wshadow=compatible-local -Wno-unused-parameter
PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/engine -I$(srcdir)/src/codec -I$(srcdir)/src/server

# the library's version (PostgreSQL 18's PG_MODULE_MAGIC_EXT, src/sp_compat.h)
# is segpipe.control's default_version
SEGPIPE_VERSION := $(shell sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" $(dir $(lastword $(MAKEFILE_LIST)))segpipe.control)
PG_CPPFLAGS += -DSEGPIPE_VERSION='"$(SEGPIPE_VERSION)"'

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: a changed struct must rebuild every
# object that sees it.
$(OBJS): $(wildcard src/*.h src/*/*.h)
