# Benchmarks, run through `make bench`: each prints a table of measurements.
MPI ?= mpich
B := build/$(MPI)
BB := $(B)/bench
MPICC := mpicc.$(MPI)

.PHONY: run
run: $(BB)/pwrite_loop $(BB)/pwrite_loop.plain $(BB)/lseek_loop $(BB)/hotpath $(BB)/hotpath.plain $(BB)/segments \
     $(BB)/rankmod $(BB)/groups
	@MPI=$(MPI) bash bench/hotpath.sh
	@echo
	@MPI=$(MPI) bash bench/pwrite.sh
	@echo
	@MPI=$(MPI) bash bench/merge.sh
	@echo
	@MPI=$(MPI) bash bench/compress.sh
	@echo
	@MPI=$(MPI) bash bench/stats.sh
	@echo
	@MPI=$(MPI) bash bench/reader.sh
	@echo
	@MPI=$(MPI) bash bench/replay.sh
	@echo
	@MPI=$(MPI) bash bench/rank-times.sh

$(BB)/%: bench/%.c $(B)/wrap.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	$(MPICC) -O2 -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap.flags -o $@ -pthread

# programs of the tests: the IOR-shaped segments (tests/progs/segments.c),
# values by the rank's residue (rankmod.c) and by its quotient (groups.c)
$(BB)/segments $(BB)/rankmod $(BB)/groups: $(BB)/%: tests/progs/%.c $(B)/wrap.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	$(MPICC) -O2 -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap.flags -o $@

$(BB)/%.plain: bench/%.c
	@mkdir -p $(@D)
	$(MPICC) -O2 -o $@ $< -pthread
