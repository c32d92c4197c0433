# The trace-reader fuzzer (libFuzzer through clang, with ASan and UBSan).
#   make fuzz                 build it
#   make fuzz-run SECONDS=1800 fuzz that long from the corpus (new inputs go to build/fuzz/corpus)
#   make fuzz-corpus          replay tests/fuzz/corpus (what `make check` runs, with a short fuzzing run)
FZ := build/fuzz
include sources.mk
FUZZ_SRC := $(READER_SRC)
FUZZ_FLAGS := -std=c11 -g -O1 -D_GNU_SOURCE -I. -Ibuild/mpich/gen -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=undefined
SECONDS ?= 60
# per-input limit; make check passes a looser one, so that a loaded CI machine
# does not turn a slow-but-correct input into a failure
TIMEOUT ?= 10

# each source compiled once, side by side under make -j, then linked
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(FZ)/obj/%.o)
$(FZ)/obj/%.o: %.c build/mpich/gen/.stamp
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<
-include $(FUZZ_OBJ:.o=.d)
$(FZ)/fuzz_trace: tests/fuzz/fuzz_trace.c $(FUZZ_OBJ)
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_trace.c $(FUZZ_OBJ) -lz -lm -ldl

.PHONY: fuzz fuzz-run fuzz-corpus
fuzz: $(FZ)/fuzz_trace

fuzz-corpus: $(FZ)/fuzz_trace
	$(FZ)/fuzz_trace -runs=0 tests/fuzz/corpus

fuzz-run: $(FZ)/fuzz_trace
	@mkdir -p $(FZ)/corpus $(FZ)/crashes
	$(FZ)/fuzz_trace -max_total_time=$(SECONDS) -rss_limit_mb=2048 -timeout=$(TIMEOUT) -artifact_prefix=$(FZ)/crashes/ \
	    -print_final_stats=1 $(FUZZ_OPTS) $(FZ)/corpus tests/fuzz/corpus
