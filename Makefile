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

OBJS = \
	src/sp_json.o \
	src/sp_sort.o \
	src/sp_spec.o \
	src/sp_spec_write.o \
	src/sp_engine.o \
	src/sp_ring.o \
	src/sp_codec.o \
	src/sp_jscan.o \
	src/sp_state.o \
	src/sp_resume.o \
	src/sp_keyio.o \
	src/sp_registry.o \
	src/ops_trackers.o \
	src/ops_window.o \
	src/ops_compare.o \
	src/ops_arith.o \
	src/ops_dsp.o \
	src/sp_key.o \
	src/pipeline_type.o \
	src/pipeline_cast.o \
	src/sp_rowvalue.o \
	src/segment_agg.o \
	src/pipeline_agg.o \
	src/pipeline_agg_row.o \
	src/pipeline_access.o \
	src/pipeline_punct.o \
	src/sp_heartbeat.o

REGRESS = setup spec_errors segment_rule punctuation trackers windowed mesh type_io arith_oracle filters dsp arithmetic state_bounds keys segment_key close_at_end upgrade stored_text pipeline_agg pipeline_state segment_state maintain casts trusted punctuate heartbeats chaining hostile
REGRESS_OPTS = --encoding=UTF8

# Warnings we want to hear about; test/run-tests.sh makes them errors with
# COPT=-Werror, a plain build does not (a newer compiler may warn more).
PG_CFLAGS = -Wall -Wmissing-prototypes -Wno-unused-parameter

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: a changed struct must rebuild every
# object that sees it.
$(OBJS): $(wildcard src/*.h)
