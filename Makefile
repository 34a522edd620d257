# dynview — PGXS build
MODULE_big = dynview
EXTENSION = dynview
DATA = $(wildcard sql/dynview--*.sql)
PGFILEDESC = "dynview - dynamic tables for PostgreSQL"

OBJS = \
	src/dynview.o \
	src/catalog/catalog.o \
	src/catalog/api.o \
	src/catalog/partitioned.o \
	src/analyze/analyze.o \
	src/analyze/delta.o \
	src/analyze/optree.o \
	src/analyze/grouprule.o \
	src/analyze/keys.o \
	src/analyze/setop.o \
	src/analyze/spelling.o \
	src/refresh/refresh.o \
	src/refresh/verify.o \
	src/refresh/incremental.o \
	src/refresh/apply.o \
	src/refresh/aggstate.o \
	src/refresh/txnwatch.o \
	src/refresh/plancache.o \
	src/refresh/statements.o \
	src/refresh/deltastats.o \
	src/hooks/guard.o \
	src/hooks/matview.o \
	src/scheduler/launcher.o \
	src/scheduler/scheduler.o \
	src/cdc/shmem.o \
	src/cdc/plugin.o \
	src/cdc/decoder.o \
	src/cdc/recordfilter.o \
	src/cdc/tracking.o \
	src/cdc/capture.o \
	src/cdc/partitions.o

PG_CPPFLAGS = -I$(srcdir)/src -Wall -Wmissing-prototypes

TESTS = $(sort $(wildcard test/sql/*.sql))
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --outputdir=test --load-extension=dynview

ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --outputdir=test/output_iso --load-extension=dynview

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies unless PostgreSQL was configured with --enable-depend
$(OBJS): $(wildcard src/*.h src/*/*.h)
