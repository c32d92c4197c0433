# Benchmarks, run through `make bench`: each prints a table of measurements.
MPI ?= mpich
B := build/$(MPI)
BB := $(B)/bench
MPICC := mpicc.$(MPI)

# the benchmarks `make bench` runs, in this order, a blank line between two
BENCHES := hotpath pwrite merge compress tolerance stats reader replay rank-times scale growth simmerge

.PHONY: run
run: $(BB)/pwrite_loop $(BB)/pwrite_loop.plain $(BB)/lseek_loop $(BB)/hotpath $(BB)/hotpath.plain $(BB)/segments \
     $(BB)/rankmod $(BB)/groups $(BB)/converge $(BB)/kernel $(BB)/kernel.plain $(BB)/flash-io.plain $(BB)/pop.plain \
     $(BB)/ckpt.plain $(BB)/ior.plain $(BB)/btio.plain \
     $(BB)/simmerge $(BB)/collectives $(BB)/particles $(if $(filter openmpi,$(MPI)),$(BB)/pnf) $(if $(filter mpich,$(MPI)),$(B)/tests/mpich_yield.so)
	@set -e; sep=; for b in $(BENCHES); do printf "$$sep"; sep='\n'; MPI=$(MPI) bash bench/$$b.sh; done

$(BB)/%: bench/%.c $(B)/wrap.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	$(MPICC) -O2 -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap.flags -o $@ -pthread

# programs of the tests: the IOR-shaped segments (tests/progs/segments.c),
# values by the rank's residue (rankmod.c) and by its quotient (groups.c),
# the convergence loop of SIOT_TOLERANCE (converge.c), the scale benchmark's
# small SPMD job (kernel.c)
$(BB)/segments $(BB)/rankmod $(BB)/groups $(BB)/converge $(BB)/kernel: $(BB)/%: tests/progs/%.c $(B)/wrap.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	$(MPICC) -O2 -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap.flags -o $@

$(BB)/%.plain: bench/%.c
	@mkdir -p $(@D)
	$(MPICC) -O2 -o $@ $< -pthread

# untraced builds of the scale benchmark's programs (bench/scale.sh): the
# memory a rank takes without the tracer
$(BB)/kernel.plain: tests/progs/kernel.c
	@mkdir -p $(@D)
	$(MPICC) -O2 -o $@ $<
$(BB)/flash-io.plain: examples/flash-io/flash-io.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -I/usr/include/hdf5/$(MPI) -o $@ $< -L/usr/lib/x86_64-linux-gnu/hdf5/$(MPI) -lhdf5
$(BB)/ckpt.plain: examples/ckpt/ckpt.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -o $@ $<
$(BB)/btio.plain: examples/btio/btio.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -o $@ $<
$(BB)/ior.plain: examples/ior/ior.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -DHAVE_HDF5 $(if $(filter openmpi,$(MPI)),-DHAVE_PNETCDF) -I/usr/include/hdf5/$(MPI) -o $@ $< \
	    -L/usr/lib/x86_64-linux-gnu/hdf5/$(MPI) -lhdf5 $(if $(filter openmpi,$(MPI)),-lpnetcdf)
ifeq ($(MPI),openmpi)
$(BB)/pop.plain: examples/pop/pop.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -DHAVE_PNETCDF -o $@ $< -lpnetcdf -lm
else
$(BB)/pop.plain: examples/pop/pop.c
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -o $@ $< -lm
endif

# the growth benchmark's programs (bench/growth.sh): an HDF5 particle kernel
# of its own, and the tests' Fortran PnetCDF writer (PnetCDF: Open MPI only)
$(BB)/particles: bench/particles.c $(B)/wrap-hdf5.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -I/usr/include/hdf5/$(MPI) -c -o $@.o $<
	$(MPICC) $@.o -Wl,@$(B)/wrap-hdf5.flags -o $@
$(BB)/pnf: tests/progs/pnf.f90 $(B)/wrap-pnetcdf.flags $(B)/lib/libsiotrace.a
	@mkdir -p $(@D)
	mpif90.$(MPI) -O2 -J$(@D) -I/usr/include/x86_64-linux-gnu -c -o $@.o $<
	mpif90.$(MPI) $@.o -Wl,@$(B)/wrap-pnetcdf.flags -o $@

# the simulated merge (bench/simmerge.sh): the job's merge code, no MPI
SIM_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(wildcard core/*.c compress/*.c))
$(BB)/simmerge: bench/simmerge.c bench/rerank.c bench/rerank.h $(SIM_OBJ)
	@mkdir -p $(@D)
	gcc -std=c11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -I. -I$(B)/gen -o $@ bench/simmerge.c bench/rerank.c $(SIM_OBJ) -lz -lm

# MPICH's waiting ranks yield in the benchmarks' jobs too (bench/common.sh)
$(B)/tests/mpich_yield.so: tests/run/mpich_yield.c
	@$(MAKE) --no-print-directory -f tests/tests.mk MPI=$(MPI) $@
