# Test driver, run through `make check` (both flavours) or `make check-one MPI=...`.
#   unit:  pure-algorithm tests (tests/unit/test_*.c) under ASan+UBSan
#   integ: real mpirun runs of the test programs (tests/integ/*.sh)
MPI ?= mpich
B := build/$(MPI)
T := $(B)/tests
MPICC := mpicc.$(MPI)
WARN := -Wall -Wextra -Wno-unused-parameter
SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
UCFLAGS := -std=c11 -O1 -g $(WARN) -D_GNU_SOURCE -I. -I$(B)/gen $(SAN)

include sources.mk

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(T)/unit/%)
INTEG := $(sort $(wildcard tests/integ/*.sh))

# Each test's result goes to RESULTS (tests/run/one.sh); make check tallies them.
RESULTS ?= $(abspath build/check-results.txt)
RUN := tests/run/one.sh $(RESULTS)
# a test still running after this long has hung: it fails, and the others run
TEST_SECONDS ?= 900

.PHONY: run build unit integ asan-tools
run: unit integ

# what the unit and integration tests need besides the flavour's own build
INTEG_NEEDS := asan-tools $(T)/asan/ioreplay $(T)/ioreplay-traced $(T)/tools/hostile $(T)/tools/blocks \
              $(T)/tools/simmerge $(if $(filter mpich,$(MPI)),$(T)/mpich_yield.so)
build: $(UNIT_BIN) $(INTEG_NEEDS)

# MPICH's waiting ranks yield the processor in the tests (tests/run/mpich_yield.c)
$(T)/mpich_yield.so: tests/run/mpich_yield.c
	@mkdir -p $(@D)
	gcc -std=c11 -O2 $(WARN) -shared -fPIC -o $@ $< -ldl

# The readers' sources compiled once under ASan and UBSan (AO), and linked
# into every unit test, siot and the test tools: each source is built once per
# flavour, and make -j builds them side by side.
AO := $(T)/asan-obj
READER_AOBJ := $(READER_SRC:%.c=$(AO)/%.o)
$(AO)/%.o: %.c
	@mkdir -p $(@D)
	gcc $(UCFLAGS) -MMD -MP -c -o $@ $<
$(READER_AOBJ): $(B)/gen/.stamp
-include $(READER_AOBJ:.o=.d)

$(T)/unit/%: tests/unit/%.c $(READER_AOBJ) tests/unit/unit.h
	@mkdir -p $(@D)
	gcc $(UCFLAGS) -o $@ $< $(READER_AOBJ) -lz -lm -ldl

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do echo "== unit $$(basename $$t)"; $(RUN) "[$(MPI)] unit $$(basename $$t)" 600 $$t || true; done

# siot built with AddressSanitizer and UBSan, for the corrupt-input tests.
asan-tools: $(T)/asan/siot
$(T)/asan/siot: siot/siot.c siot/otf2.c $(READER_AOBJ)
	@mkdir -p $(@D)
	gcc $(UCFLAGS) $(OTF2_CFLAGS) -rdynamic -o $@ siot/siot.c siot/otf2.c $(READER_AOBJ) $(OTF2_LIBS) -lz -lm -ldl

# Test tools: trace rewriters built on the format library (ASan, UBSan).
$(T)/tools/%: tests/tools/%.c $(READER_AOBJ)
	@mkdir -p $(@D)
	gcc $(UCFLAGS) -o $@ $< $(READER_AOBJ) -lz -lm -ldl

# The simulated merge of the benchmark (bench/simmerge.c), for its test.
$(T)/tools/simmerge: bench/simmerge.c bench/rerank.c bench/rerank.h $(READER_AOBJ)
	@mkdir -p $(@D)
	gcc $(UCFLAGS) -o $@ bench/simmerge.c bench/rerank.c $(READER_AOBJ) -lz -lm -ldl

# ioreplay linked with the tracer, for the round-trip tests: the replay's own
# calls are traced like the original program's.
O := $(B)/obj
RP_OBJS := $(IOREPLAY_SRC:%.c=$(O)/%.o) $(O)/gen/replay_all.o $(ENGINE_SRC:%.c=$(O)/%.o) \
           $(COMPRESS_SRC:%.c=$(O)/%.o) $(CORE_SRC:%.c=$(O)/%.o)
$(T)/ioreplay-traced: $(RP_OBJS) $(B)/lib/libsiotrace.a $(B)/wrap.flags
	@mkdir -p $(@D)
	$(MPICC) -o $@ $(RP_OBJS) -Wl,@$(B)/wrap.flags -lm

# ioreplay built with ASan and UBSan, for the hostile-trace tests: a crash
# or a sanitizer report on any trace fails them.
# (its MPI sources compiled with the flavour's mpicc, the rest shared with siot)
RP_AOBJ := $(IOREPLAY_SRC:%.c=$(AO)/mpi/%.o) $(AO)/mpi/gen/replay_all.o \
           $(ENGINE_SRC:%.c=$(AO)/%.o) $(COMPRESS_SRC:%.c=$(AO)/%.o) $(CORE_SRC:%.c=$(AO)/%.o)
$(AO)/mpi/%.o: %.c $(B)/gen/.stamp
	@mkdir -p $(@D)
	$(MPICC) $(UCFLAGS) -MMD -MP -c -o $@ $<
$(AO)/mpi/gen/replay_all.o: $(B)/gen/replay_all.c
	@mkdir -p $(@D)
	$(MPICC) $(UCFLAGS) -c -o $@ $<
-include $(IOREPLAY_SRC:%.c=$(AO)/mpi/%.d)
$(T)/asan/ioreplay: $(RP_AOBJ)
	@mkdir -p $(@D)
	$(MPICC) $(UCFLAGS) -o $@ $(RP_AOBJ) -lz -lm

integ: $(INTEG_NEEDS)
	@for t in $(INTEG); do echo "== [$(MPI)] $$t"; \
	    MPI=$(MPI) $(RUN) "[$(MPI)] $$(basename $$t .sh)" $(TEST_SECONDS) bash $$t || true; done
