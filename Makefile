# siotrace build.
#   make                  the MPICH flavour under build/mpich/
#   make MPI=openmpi      the Open MPI flavour under build/openmpi/
#   make check            builds both flavours and runs every test
#   make bench            runs the benchmarks and prints their tables
#   make deps             installs the Debian packages the build and tests need

MPI ?= mpich
ifeq ($(filter $(MPI),mpich openmpi),)
$(error MPI must be mpich or openmpi, not '$(MPI)')
endif
FLAVOURS := mpich openmpi

VERSION := 0.1.0
B := build/$(MPI)
O := $(B)/obj
G := $(B)/gen
MPICC := mpicc.$(MPI)
CC := gcc
WARN := -Wall -Wextra -Wno-unused-parameter
OPT ?= -O2
CFLAGS := -std=c11 $(OPT) -g -fno-omit-frame-pointer $(WARN) -D_GNU_SOURCE \
          -DSIOT_VERSION=\"$(VERSION)\" -DSIOT_FLAVOUR=\"$(MPI)\" -I. -I$(G)
HOSTCFLAGS := -std=c11 -O1 -g $(WARN) -D_GNU_SOURCE -I.

SPECS := spec/posix.spec spec/stdio.spec spec/mpi.spec spec/mpiio.spec
WRAP_LAYERS := posix stdio
PMPI_LAYERS := mpi mpiio

CORE_SRC := src/vbuf.c src/arena.c src/roles.c src/format.c src/predef.c \
            compress/ranklist.c compress/expr.c compress/hist.c
RUNTIME_SRC := src/runtime.c src/handles.c src/stack.c compress/queue.c compress/pool.c compress/xmerge.c \
               compress/merge.c
PMPI_SRC := pmpi/mpi_record.c pmpi/mpi_session.c
TOOL_SRC := src/siot.c src/dump.c src/diff.c src/stats.c replay/walk.c replay/analyze.c \
            compress/merge.c compress/xmerge.c compress/pool.c

GEN_C := $(G)/functab.c $(WRAP_LAYERS:%=$(G)/wrap_%.c) $(PMPI_LAYERS:%=$(G)/pmpi_%.c) $(G)/replay_all.c
GEN_STAMP := $(G)/.stamp

CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
RUNTIME_OBJ := $(RUNTIME_SRC:%.c=$(O)/%.o) $(O)/gen/functab.o
WRAP_OBJ := $(WRAP_LAYERS:%=$(O)/gen/wrap_%.o)
PMPI_OBJ := $(PMPI_SRC:%.c=$(O)/%.o) $(PMPI_LAYERS:%=$(O)/gen/pmpi_%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(O)/%.o)

REPLAY_OBJ := $(O)/replay/ioreplay.o $(O)/replay/rp.o $(O)/gen/replay_all.o $(O)/replay/walk.o
LIB := $(B)/lib/libsiotrace.a
IOREPLAY := $(B)/bin/ioreplay
FLAGS := $(B)/wrap.flags
SIOT := $(B)/bin/siot

# What the archive needs at link time, per flavour. For MPICH, libmpich.a is
# linked statically (in a group with the archive, so that ROMIO's calls to
# pwrite & co reach the wrappers too): PLATFORM.md.
ifeq ($(MPI),mpich)
MPI_LINK := --start-group $(abspath $(LIB)) -Bstatic -lmpich --end-group -Bdynamic \
            -lunwind -lm -ldl -lpthread -lrt -lucp -lucs -luct -lhwloc
else
MPI_LINK := $(abspath $(LIB)) -lunwind -lm
endif

.PHONY: all lib tools examples demo check check-one unit bench deps clean distclean
all: lib tools examples

lib: $(LIB) $(FLAGS)
tools: $(SIOT) $(IOREPLAY)

$(B)/tools/siot-gen: tools/siot-gen.c src/roles.c src/roles.h
	@mkdir -p $(@D)
	$(CC) $(HOSTCFLAGS) -o $@ tools/siot-gen.c src/roles.c

$(GEN_STAMP): $(B)/tools/siot-gen $(SPECS)
	@mkdir -p $(G)
	$(B)/tools/siot-gen $(G) $(SPECS)
	@touch $@
$(GEN_C) $(G)/functab.h: $(GEN_STAMP)

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/src/runtime.o $(O)/src/handles.o $(O)/compress/queue.o: $(GEN_STAMP)

$(O)/gen/functab.o: $(G)/functab.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/gen/wrap_%.o: $(G)/wrap_%.c wrap/posix_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-variable -c -o $@ $<

$(O)/gen/pmpi_%.o: $(G)/pmpi_%.c pmpi/mpi_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -Wno-unused-variable -c -o $@ $<

$(O)/replay/ioreplay.o $(O)/replay/rp.o: $(O)/replay/%.o: replay/%.c replay/rp.h $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/gen/replay_all.o: $(G)/replay_all.c replay/rp.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -c -o $@ $<

# ioreplay, linked with MPI as any MPI program (the traced copy that the
# round-trip tests use is linked with wrap.flags instead: tests/tests.mk).
$(IOREPLAY): $(REPLAY_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -o $@ $^ -lm

$(O)/pmpi/%.o: pmpi/%.c $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

# One archive member per layer: a program that uses no MPI-IO links no MPI-IO wrappers.
$(LIB): $(CORE_OBJ) $(RUNTIME_OBJ) $(WRAP_OBJ) $(PMPI_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(FLAGS): $(GEN_STAMP) Makefile
	@mkdir -p $(@D)
	{ cat $(WRAP_LAYERS:%=$(G)/wrap-%.syms); for w in $(MPI_LINK); do echo "$$w"; done; } > $@.tmp
	mv $@.tmp $@

# -rdynamic: plug-ins loaded by `siot stats --plugin` call back into siot.
$(SIOT): $(TOOL_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -rdynamic -o $@ $^ -lm -ldl

# ---------------------------------------------------------------- examples
EXAMPLES := ckpt ior
examples: $(EXAMPLES:%=$(B)/examples/%)

$(B)/examples/%: examples/%/*.c $(LIB) $(FLAGS)
	@mkdir -p $(@D)
	$(MPICC) -O2 -g -c -o $@.o examples/$*/$*.c
	$(MPICC) $@.o -Wl,@$(FLAGS) -o $@

# Installs what is missing, builds, traces the main example on 8 ranks and
# shows its trace.
demo:
	sh tools/install-deps.sh
	$(MAKE) --no-print-directory all
	MPI=$(MPI) sh tools/demo.sh

# ---------------------------------------------------------------- tests
check:
	@for f in $(FLAVOURS); do $(MAKE) --no-print-directory MPI=$$f check-one || exit 1; done
	@echo "make check: all tests passed for $(FLAVOURS)"

check-one: all
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) run

unit:
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) unit

bench: all
	@$(MAKE) --no-print-directory -f bench/bench.mk MPI=$(MPI) run

deps:
	sh tools/install-deps.sh

clean:
	rm -rf build

distclean: clean

-include $(shell find $(O) -name '*.d' 2>/dev/null)
