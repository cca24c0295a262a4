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
# The install script and the update scripts are built from src/sql/, where
# each SQL object is defined once (src/sql/build.sh says how): the install
# script of the default version, and an update script to it from each
# released version.  A release adds its version to SEGPIPE_UPDATES_FROM.
# The released versions' own scripts are test fixtures (test/released/,
# make install-released), for the upgrade tests only.
SEGPIPE_UPDATES_FROM = 0.1.0 0.2.0 0.3.0 0.4.0 0.5.0 0.6.0 0.7.0 0.8.0 0.9.0
DATA_built = segpipe--$(SEGPIPE_VERSION).sql \
	$(foreach v,$(SEGPIPE_UPDATES_FROM),segpipe--$(v)--$(SEGPIPE_VERSION).sql)

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
	src/server/maintain_changed.o \
	src/server/maintain_rerun.o \
	src/server/maintain_admin.o \
	src/server/maintain_citus.o \
	src/server/maintain_tables.o \
	src/server/maintain_drops.o \
	src/server/pipeline_punct.o \
	src/server/segment_agg.o \
	src/server/session_key.o \
	src/server/sp_heartbeat.o

REGRESS = setup spec_errors segment_rule punctuation trackers windowed mesh type_io arith_oracle filters dsp arithmetic state_bounds keys segment_key close_at_end upgrade stored_text pipeline_agg ordered pipeline_state segment_state maintain corrections maintain_insert watermark stages retention casts trusted punctuate heartbeats chaining hostile time program lang_ops prototypes nested vectors fused nested_vectors keyed more_ops join_ops timeshift maintain_hostile carry program_mesh maintain_upgrade maintain_rerun
# the suites that start from a released version (CREATE EXTENSION segpipe
# VERSION '0.4.0', then ALTER EXTENSION segpipe UPDATE): they need the
# released scripts installed (make install-released), which test/run-tests.sh
# and the version matrix do; a package's installcheck has only the built ones
REGRESS_RELEASED = upgrade maintain_insert trusted hostile maintain_upgrade
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

# the scripts, from src/sql/ (every topic file and delta is a prerequisite:
# a change to one rebuilds them all)
SEGPIPE_SQL_SOURCES = $(wildcard $(srcdir)/src/sql/*.sql $(srcdir)/src/sql/updates/*.sql) $(srcdir)/src/sql/build.sh
segpipe--$(SEGPIPE_VERSION).sql: $(SEGPIPE_SQL_SOURCES)
	sh $(srcdir)/src/sql/build.sh $(SEGPIPE_VERSION) >$@.tmp && mv $@.tmp $@
segpipe--%--$(SEGPIPE_VERSION).sql: $(SEGPIPE_SQL_SOURCES)
	sh $(srcdir)/src/sql/build.sh $(SEGPIPE_VERSION) $* >$@.tmp && mv $@.tmp $@

# The released versions' scripts, as they were released (an archive of them,
# test/released/), beside the built ones: CREATE EXTENSION segpipe VERSION '0.4.0' then works, for the upgrade
# suites (upgrade, maintain_upgrade, ...).  Not part of an install.
ifeq ($(wildcard $(DESTDIR)$(datadir)/extension/segpipe--0.1.0.sql),)
REGRESS := $(filter-out $(REGRESS_RELEASED),$(REGRESS))
installcheck: released-not-installed
endif
.PHONY: install-released released-not-installed
released-not-installed:
	@echo "not run: the suites $(REGRESS_RELEASED), which need the released scripts (make install-released)"
install-released:
	gzip -dc $(srcdir)/test/released/segpipe-released.tar.gz | tar -xf - --no-same-owner -C '$(DESTDIR)$(datadir)/extension/'
