# siotrace build.
#   make                  the MPICH flavour under build/mpich/
#   make MPI=openmpi      the Open MPI flavour under build/openmpi/
#   make check            builds both flavours and all the tests need, runs every test
#   make check-under-load the same with two CPU-bound processes beside it
#   make bench            runs the benchmarks and prints their tables
#   make deps             installs the Debian packages the build and tests need
#   make demo             traces, summarises and replays the FLASH-IO-like example on 8 ranks
#   make install PREFIX=/opt/siotrace   installs the built flavours

MPI ?= mpich
ifeq ($(filter $(MPI),mpich openmpi),)
$(error MPI must be mpich or openmpi, not '$(MPI)')
endif
FLAVOURS := mpich openmpi

VERSION := 0.1.0
# SAN=1: the tracer built with AddressSanitizer and UBSan under
# build/<flavour>-san (programs linked with it add the same -fsanitize).
SAN ?=
TSAN ?=
B := build/$(MPI)$(if $(SAN),-san)$(if $(TSAN),-tsan)
O := $(B)/obj
G := $(B)/gen
MPICC := mpicc.$(MPI)
CC := gcc
WARN := -Wall -Wextra -Wno-unused-parameter
# The sanitizer builds at -O1, as the sanitizers advise: UBSan's checks make
# GCC's -O2 take twice as long on the large generated wrappers (95 s against
# 56 s for the PnetCDF layer's), and make check builds them for both flavours.
ifneq ($(SAN)$(TSAN),)
OPT ?= -O1
endif
OPT ?= -O2
CFLAGS := -std=c11 $(OPT) -g -fno-omit-frame-pointer $(WARN) -D_GNU_SOURCE \
          -DSIOT_VERSION=\"$(VERSION)\" -DSIOT_FLAVOUR=\"$(MPI)\" -I. -I$(G)
HOSTCFLAGS := -std=c11 -O1 -g $(WARN) -D_GNU_SOURCE -I.
# SIOT_FAULTS: the test-only fault injection of the runtime (SIOT_FAULT_SIGNAL).
ifneq ($(SAN),)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
CFLAGS += $(SANFLAGS) -DSIOT_FAULTS
endif
# TSAN=1: the tracer built with ThreadSanitizer under build/<flavour>-tsan.
# Its layers define no interposers (SIOT_STATIC_LIBRARY): the linker exports
# an executable's definition of any name a shared library it links uses, so
# libtsan's own mmap and open at start-up would enter instrumented code before
# TSan is set up (a SEGV in __tsan_func_entry). The TSan build checks the
# recorder's threads; the interposers are checked by the other builds.
ifneq ($(TSAN),)
CFLAGS += -fsanitize=thread -DSIOT_FAULTS -DSIOT_STATIC_LIBRARY
endif

SPECS := spec/posix.spec spec/stdio.spec spec/mpi.spec spec/mpiio.spec spec/largecount.spec spec/hdf5.spec spec/pnetcdf.spec
WRAP_LAYERS := posix stdio
PMPI_LAYERS := mpi mpiio
# I/O library layers, each in its own archive members and flag file. Debian
# builds PnetCDF against Open MPI only (PLATFORM.md).
HDF5_INC := -I/usr/include/hdf5/$(MPI)
ifeq ($(MPI),mpich)
LIB_LAYERS := hdf5
FORT_OBJ :=
else
LIB_LAYERS := hdf5 pnetcdf
# Open MPI's Fortran bindings bypass the C wrappers: Fortran ones of our own.
FORT_OBJ = $(O)/gen/fort_mpi.o $(O)/pmpi/fort_record.o
endif
# The sanitizer builds hold the recorder with its POSIX, stdio, MPI and
# MPI-IO layers only: the programs of their tests (97, 99) are C programs of
# those layers. The I/O library layers and the Fortran bindings come from
# the same generator templates; under the sanitizers they cost make check
# about 100 processor seconds (Open MPI's PnetCDF layer alone: 52 s with
# ASan and UBSan, 12 s with TSan; HDF5's 10 and 2.5 s; the Fortran
# bindings 7 and 3.6 s) for code no sanitized test runs.
ifneq ($(SAN)$(TSAN),)
LIB_LAYERS :=
FORT_OBJ :=
endif

include sources.mk
PMPI_SRC := pmpi/mpi_record.c pmpi/mpi_session.c pmpi/job_trace.c pmpi/sim.c

GEN_C := $(G)/functab.c $(WRAP_LAYERS:%=$(G)/wrap_%.c) $(PMPI_LAYERS:%=$(G)/pmpi_%.c) $(G)/replay_all.c \
         $(LIB_LAYERS:%=$(G)/wrap_%.c) $(G)/fort_mpi.c
GEN_STAMP := $(G)/.stamp

CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
RUNTIME_OBJ := $(RUNTIME_SRC:%.c=$(O)/%.o) $(COMPRESS_SRC:%.c=$(O)/%.o) $(O)/gen/functab.o
WRAP_OBJ := $(WRAP_LAYERS:%=$(O)/gen/wrap_%.o)
PMPI_OBJ := $(PMPI_SRC:%.c=$(O)/%.o) $(PMPI_LAYERS:%=$(O)/gen/pmpi_%.o)
LIBLAYER_OBJ := $(LIB_LAYERS:%=$(O)/gen/wrap_%.o) $(LIB_LAYERS:%=$(O)/wrap/%_record.o)
TOOL_OBJ := $(SIOT_SRC:%.c=$(O)/%.o) $(ENGINE_SRC:%.c=$(O)/%.o) $(COMPRESS_SRC:%.c=$(O)/%.o)
REPLAY_OBJ := $(IOREPLAY_SRC:%.c=$(O)/%.o) $(O)/gen/replay_all.o $(ENGINE_SRC:%.c=$(O)/%.o) \
              $(COMPRESS_SRC:%.c=$(O)/%.o)
LIB := $(B)/lib/libsiotrace.a
# The same runtime and wrappers as shared libraries, for LD_PRELOAD
# (src/interpose.h): one for the runtime, POSIX, stdio, MPI and MPI-IO, one
# per I/O library layer (it needs the first, found beside it).
P := $(B)/pic
PRELOAD := $(B)/lib/libsiotrace.so
PRELOAD_LAYERS := $(LIB_LAYERS:%=$(B)/lib/libsiotrace-%.so)
PRELOAD_OBJ = $(patsubst $(O)/%,$(P)/%,$(CORE_OBJ) $(RUNTIME_OBJ) $(WRAP_OBJ) $(PMPI_OBJ) $(FORT_OBJ))
# The reader as a shared library for other languages (siot/lib.h), and the
# Python package over it (python/siotrace; PYTHONPATH=build/python).
LIBSIOT := $(B)/lib/libsiot.so
LIBSIOT_OBJ := $(patsubst $(O)/%,$(P)/%,$(filter-out $(TOOL_ONLY_SRC:%.c=$(O)/%.o),$(TOOL_OBJ)) $(CORE_OBJ))
PYPKG := $(patsubst python/%,build/python/%,$(wildcard python/siotrace/*.py))
IOREPLAY := $(B)/bin/ioreplay
FLAGS := $(B)/wrap.flags
SIOT := $(B)/bin/siot

# What the archive needs at link time, per flavour. For MPICH, libmpich.a is
# linked statically (in a group with the archive, so that ROMIO's calls to
# pwrite & co reach the wrappers too): PLATFORM.md. HDF5 programs get the
# static libhdf5_mpich.a in the same group, so that HDF5's MPI-IO and POSIX
# calls are seen too.
# The MPI, MPI-IO, POSIX and stdio wrappers are always linked (-u): when only a library
# (HDF5, PnetCDF, the Fortran bindings, a static libgfortran) calls them, the archive would
# otherwise be scanned before anything asks for them and MPI's own
# definitions would be taken instead, unseen.
FORCE := -u MPI_Init -u MPI_File_open -u __wrap_open -u __wrap_fopen
# Likewise the HDF5 and PnetCDF wrappers (one object each) for programs whose
# only calls to these libraries go through a binding inside them (PnetCDF's
# Fortran nfmpi_* in libpnetcdf.so call the C ncmpi_* functions).
FORCE_HDF5 := -u __wrap_H5Fcreate
FORCE_PNETCDF := -u __wrap_ncmpi_create
MPICH_DEPS := -lunwind -lz -lm -ldl -lpthread -lrt -lucp -lucs -luct -lhwloc
# The exported entries of the --wrap layers (src/interpose.h): shared
# libraries and plug-ins call them. A library linked statically (MPICH's
# HDF5) has none: its calls are all --wrap's.
WRAP_EXPORTS := $(WRAP_LAYERS:%=$(G)/export-%.syms)
# The --wrap lines of the PMPI_ names programs call themselves (PMPI_Init,
# PMPI_Finalize: spec option wrap).
PMPI_WRAPS := $(PMPI_LAYERS:%=$(G)/wrap-%.syms)
ifeq ($(MPI),mpich)
HDF5_EXPORTS :=
else
HDF5_EXPORTS := $(G)/export-hdf5.syms
endif
PNETCDF_EXPORTS := $(G)/export-pnetcdf.syms
# Under TSan there are no interposers to export (above).
ifneq ($(TSAN),)
WRAP_EXPORTS :=
HDF5_EXPORTS :=
PNETCDF_EXPORTS :=
endif
ifeq ($(MPI),mpich)
MPI_LINK := $(FORCE) --start-group $(abspath $(LIB)) -Bstatic -lmpichfort -lmpich --end-group -Bdynamic $(MPICH_DEPS)
HDF5_LINK := $(FORCE) $(FORCE_HDF5) --start-group $(abspath $(LIB)) -Bstatic -lhdf5_mpich -lmpichfort -lmpich --end-group -Bdynamic \
             -lsz -lz -lcurl -lcrypto $(MPICH_DEPS)
else
MPI_LINK := $(FORCE) $(abspath $(LIB)) -lunwind -lz -lm
HDF5_LINK := $(FORCE) $(FORCE_HDF5) $(abspath $(LIB)) -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 -lunwind -lz -lm
PNETCDF_LINK := $(FORCE) $(FORCE_PNETCDF) $(abspath $(LIB)) -lpnetcdf -lunwind -lz -lm
endif


.PHONY: install
.PHONY: all lib archive tools examples demo check check-build check-tests check-san check-tsan check-fuzz check-one check-under-load $(FLAVOURS:%=check-build-%) unit bench deps clean distclean fuzz fuzz-run fuzz-corpus fuzz-check docs
all: lib tools examples

LIB_FLAGS := $(LIB_LAYERS:%=$(B)/wrap-%.flags)
lib: archive $(PRELOAD) $(PRELOAD_LAYERS)
# the archive and its flag files alone (what the sanitizer tests relink with)
archive: $(LIB) $(FLAGS) $(LIB_FLAGS)
tools: $(SIOT) $(IOREPLAY) $(LIBSIOT) $(PYPKG)

GEN_SRC := $(sort $(wildcard tools/gen/*.c)) core/roles.c
$(B)/tools/siot-gen: $(GEN_SRC) tools/gen/gen.h core/roles.h
	@mkdir -p $(@D)
	$(CC) $(HOSTCFLAGS) -o $@ $(GEN_SRC)

$(GEN_STAMP): $(B)/tools/siot-gen $(SPECS)
	@mkdir -p $(G)
	$(B)/tools/siot-gen $(G) $(SPECS)
	@touch $@
$(GEN_C) $(G)/functab.h: $(GEN_STAMP)
	@:

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(RUNTIME_SRC:%.c=$(O)/%.o) $(O)/compress/queue.o: $(GEN_STAMP)

$(O)/gen/functab.o: $(G)/functab.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/gen/wrap_%.o: $(G)/wrap_%.c wrap/posix_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-variable -MMD -MP -c -o $@ $<

$(O)/gen/wrap_hdf5.o $(O)/wrap/hdf5_record.o: CFLAGS += $(HDF5_INC)
ifeq ($(MPI),mpich)
# libhdf5_mpich.a is linked into the program: its wrappers call __real_ (src/interpose.h)
$(O)/gen/wrap_hdf5.o: CFLAGS += -DSIOT_STATIC_LIBRARY
endif
$(O)/gen/wrap_hdf5.o $(O)/gen/wrap_pnetcdf.o: $(O)/gen/wrap_%.o: $(G)/wrap_%.c wrap/%_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -Wno-unused-variable -MMD -MP -c -o $@ $<

$(O)/wrap/%.o: wrap/%.c $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/gen/fort_mpi.o: $(G)/fort_mpi.c pmpi/fort_record.h pmpi/mpi_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -c -o $@ $<

$(O)/gen/pmpi_%.o: $(G)/pmpi_%.c pmpi/mpi_record.h src/record.h src/runtime.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -Wno-unused-variable -MMD -MP -c -o $@ $<

$(IOREPLAY_SRC:%.c=$(O)/%.o): $(O)/replay/%.o: replay/%.c replay/rp.h $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/gen/replay_all.o: $(G)/replay_all.c replay/rp.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -c -o $@ $<

# ioreplay, linked with MPI as any MPI program (the traced copy that the
# round-trip tests use is linked with wrap.flags instead: tests/tests.mk).
$(IOREPLAY): $(REPLAY_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -o $@ $^ -lz -lm

$(O)/pmpi/%.o: pmpi/%.c $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

# One archive member per layer: a program that uses no MPI-IO links no MPI-IO wrappers.
$(LIB): $(CORE_OBJ) $(RUNTIME_OBJ) $(WRAP_OBJ) $(PMPI_OBJ) $(LIBLAYER_OBJ) $(FORT_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# Position-independent objects of the preload libraries: the same sources,
# the I/O library layers without SIOT_STATIC_LIBRARY (theirs are shared here),
# the PMPI_ names programs call themselves with entries of their own name
# (SIOT_PRELOAD: no --wrap there).
$(P)/%.o: CFLAGS += -DSIOT_PRELOAD
$(P)/%.o: %.c $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<
$(P)/gen/%.o: $(G)/%.c $(GEN_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(HDF5_INC) -fPIC -Wno-unused-variable -MMD -MP -c -o $@ $<
$(P)/wrap/%.o: CFLAGS += $(HDF5_INC)
ifeq ($(MPI),openmpi)
PRELOAD_LIBS := -lmpi_mpifh
endif
$(PRELOAD): $(PRELOAD_OBJ)
	@mkdir -p $(@D)
	$(MPICC) -shared -o $@ $^ -lunwind -lz -lm -ldl $(PRELOAD_LIBS)
$(B)/lib/libsiotrace-hdf5.so: $(P)/gen/wrap_hdf5.o $(P)/wrap/hdf5_record.o $(PRELOAD)
	$(MPICC) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lsiotrace -Wl,-rpath,'$$ORIGIN' \
	    -L/usr/lib/x86_64-linux-gnu/hdf5/$(MPI) -lhdf5
$(B)/lib/libsiotrace-pnetcdf.so: $(P)/gen/wrap_pnetcdf.o $(P)/wrap/pnetcdf_record.o $(PRELOAD)
	$(MPICC) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lsiotrace -Wl,-rpath,'$$ORIGIN' -lpnetcdf

$(FLAGS): $(GEN_STAMP) Makefile
	@mkdir -p $(@D)
	{ cat $(WRAP_LAYERS:%=$(G)/wrap-%.syms) $(PMPI_WRAPS) $(WRAP_EXPORTS); for w in $(MPI_LINK); do echo "$$w"; done; } > $@.tmp
	mv $@.tmp $@

# wrap.flags plus one I/O library layer: its --wrap lines and the library.
$(B)/wrap-hdf5.flags: $(GEN_STAMP) Makefile
	{ cat $(WRAP_LAYERS:%=$(G)/wrap-%.syms) $(PMPI_WRAPS) $(WRAP_EXPORTS) $(G)/wrap-hdf5.syms $(HDF5_EXPORTS); \
	  for w in $(HDF5_LINK); do echo "$$w"; done; } > $@.tmp
	mv $@.tmp $@
$(B)/wrap-pnetcdf.flags: $(GEN_STAMP) Makefile
	{ cat $(WRAP_LAYERS:%=$(G)/wrap-%.syms) $(PMPI_WRAPS) $(WRAP_EXPORTS) $(G)/wrap-pnetcdf.syms $(PNETCDF_EXPORTS); \
	  for w in $(PNETCDF_LINK); do echo "$$w"; done; } > $@.tmp
	mv $@.tmp $@

# -rdynamic: plug-ins loaded by `siot stats --plugin` call back into siot.
$(O)/siot/otf2.o: CFLAGS += $(OTF2_CFLAGS)
$(SIOT): $(TOOL_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -rdynamic -o $@ $^ $(OTF2_LIBS) -lz -lm -ldl

# (the reader as a shared library and the Python package: defined above)
$(LIBSIOT): $(LIBSIOT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $^ -lz -lm -ldl
$(PYPKG): build/python/%: python/%
	@mkdir -p $(@D)
	cp $< $@

# ---------------------------------------------------------------- examples
# Each example is linked with the flag file of the layers it uses.
EXAMPLES := ckpt ior flash-io pop btio btio_f
examples: $(EXAMPLES:%=$(B)/examples/%)

ifeq ($(MPI),openmpi)
IOR_DEFS := -DHAVE_HDF5 -DHAVE_PNETCDF $(HDF5_INC)
IOR_FLAGS := -Wl,@$(B)/wrap-hdf5.flags -Wl,@$(B)/wrap-pnetcdf.flags
POP_DEFS := -DHAVE_PNETCDF
POP_FLAGS := -Wl,@$(B)/wrap-pnetcdf.flags
else
IOR_DEFS := -DHAVE_HDF5 $(HDF5_INC)
IOR_FLAGS := -Wl,@$(B)/wrap-hdf5.flags
POP_DEFS :=
POP_FLAGS := -Wl,@$(FLAGS)
endif
EX_CFLAGS := -std=c11 -O2 -g $(WARN)

$(B)/examples/ckpt: examples/ckpt/ckpt.c
$(B)/examples/btio: examples/btio/btio.c
$(B)/examples/ckpt $(B)/examples/btio: $(LIB) $(FLAGS)
	@mkdir -p $(@D)
	$(MPICC) $(EX_CFLAGS) -c -o $@.o $(filter %.c,$^)
	$(MPICC) $@.o -Wl,@$(FLAGS) -o $@

$(B)/examples/ior: examples/ior/ior.c $(LIB) $(FLAGS) $(LIB_FLAGS)
	@mkdir -p $(@D)
	$(MPICC) $(EX_CFLAGS) $(IOR_DEFS) -c -o $@.o $<
	$(MPICC) $@.o $(IOR_FLAGS) -o $@

$(B)/examples/flash-io: examples/flash-io/flash-io.c $(LIB) $(LIB_FLAGS)
	@mkdir -p $(@D)
	$(MPICC) $(EX_CFLAGS) $(HDF5_INC) -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap-hdf5.flags -o $@

$(B)/examples/pop: examples/pop/pop.c $(LIB) $(FLAGS) $(LIB_FLAGS)
	@mkdir -p $(@D)
	$(MPICC) $(EX_CFLAGS) $(POP_DEFS) -c -o $@.o $<
	$(MPICC) $@.o $(POP_FLAGS) -lm -o $@

# Fortran: linked with the same flag file as C programs.
$(B)/examples/btio_f: examples/btio/btio_f.f90 $(LIB) $(FLAGS)
	@mkdir -p $(@D)
	mpif90.$(MPI) -O2 -g -Wall -Wno-unused-parameter -J$(@D) -c -o $@.o $<
	mpif90.$(MPI) $@.o -Wl,@$(FLAGS) -o $@

# Installs what is missing, builds, traces the FLASH-IO-like example on 8
# ranks, prints its statistics, replays it and prints the round-trip verdict.
demo:
	sh tools/install-deps.sh build
	$(MAKE) --no-print-directory -j$$(nproc) all
	MPI=$(MPI) sh tools/demo.sh

# ---------------------------------------------------------------- tests
# make check: installs what the tests need when missing; builds everything
# any test of either flavour needs (check-build: both flavours, the ASan
# tools and unit tests, the sanitizer archives, the fuzzer) before the first
# test runs; then runs every test, whatever fails before it, several at a
# time (tests/run/check.sh; CHECK_SLOTS=1 runs them one by one), and ends
# with the time it took and "N passed, N failed[, N skipped]".
RESULTS := $(abspath build/check-results.txt)
check:
	@sh tools/install-deps.sh
	@mkdir -p build && rm -f $(RESULTS) build/check-built && date +%s > build/check-start
	@echo "== building both flavours and what their tests need (logs: build/check-build-<flavour>.log)"
	@$(MAKE) --no-print-directory -j$$(nproc) $(FLAVOURS:%=check-build-%)
	@date +%s > build/check-built
	@bash tests/run/check.sh $(RESULTS) $(FLAVOURS)
	@sh tests/run/tally.sh $(RESULTS) build/check-start

# Both flavours' builds in one make -j, so that one's long compiles overlap
# the other's; a flavour that fails to build is a failure of the tally, and
# its tests still run (and fail on what is missing).
$(FLAVOURS:%=check-build-%): check-build-%:
	@$(MAKE) --no-print-directory MPI=$* check-build > build/check-build-$*.log 2>&1 || \
	    { tail -40 build/check-build-$*.log; \
	      echo "FAIL [$*] build: make check-build MPI=$* failed (build/check-build-$*.log)" >> $(RESULTS); }

# make check with two CPU-bound processes beside it for its whole length
# (LOAD_PROCS=N for another number): the tests must hold on a busy machine.
check-under-load:
	@bash tests/run/under-load.sh $(MAKE) --no-print-directory check

# Everything the tests of one flavour need: the flavour and the test tools,
# the sanitizer archives (tests 97 and 99), and with MPICH the fuzzer (it is
# built with the MPICH flavour's generated tables: tests/fuzz/fuzz.mk).
CHECK_PARTS := check-tests check-san check-tsan $(if $(filter mpich,$(MPI)),check-fuzz)
check-build: $(CHECK_PARTS)
check-tests: all
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) build
check-san:
	@$(MAKE) --no-print-directory MPI=$(MPI) SAN=1 archive
check-tsan:
	@$(MAKE) --no-print-directory MPI=$(MPI) TSAN=1 archive
check-fuzz: $(GEN_STAMP)
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk fuzz

# One flavour's tests, one after another (as make check ran them before).
check-one: check-build
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) RESULTS=$(RESULTS) run

unit: $(GEN_STAMP)
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) unit

# The trace reader under libFuzzer (tests/fuzz/fuzz.mk): the corpus, then a
# minute at most of fuzzing (FUZZ_SECONDS), seeded and bounded in executions so
# that make check is reproducible. Longer runs: make fuzz-run SECONDS=1800.
FUZZ_SECONDS ?= 60
fuzz-check:
	@echo "== fuzz: the corpus, then $(FUZZ_SECONDS) s of fuzzing"
	@mkdir -p build
	@tests/run/one.sh $(RESULTS) "fuzz: the corpus" 600 \
	    $(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk fuzz-corpus > build/fuzz-corpus.log 2>&1 || \
	    { tail -30 build/fuzz-corpus.log; exit 1; }
	@tests/run/one.sh $(RESULTS) "fuzz: 150,000 seeded runs" 900 \
	    $(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk fuzz-run SECONDS=$(FUZZ_SECONDS) TIMEOUT=30 \
	    FUZZ_OPTS="-seed=1 -runs=150000" > build/fuzz-run.log 2>&1 || { tail -40 build/fuzz-run.log; exit 1; }
	@grep -E '^Done|number_of_executed_units' build/fuzz-run.log | head -2
fuzz fuzz-run fuzz-corpus:
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk $@

bench: all
	@$(MAKE) --no-print-directory -f bench/bench.mk MPI=$(MPI) run

deps:
	sh tools/install-deps.sh

# docs/spec-format.md's role table, from the generator's (tools/gen/roles.c)
docs: $(B)/tools/siot-gen
	sh tools/gen/doc.sh $(B)/tools/siot-gen

# Every built flavour, its flag files with installed paths, siot, ioreplay,
# man pages and pkg-config files (tools/install.sh).
PREFIX ?= /usr/local
install:
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) VERSION=$(VERSION) sh tools/install.sh

clean:
	rm -rf build

distclean: clean

-include $(shell find $(O) $(P) -name '*.d' 2>/dev/null)
