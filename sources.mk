# The project's sources by module (the folder list is the architecture,
# README "Layout"); shared by the Makefile, tests/tests.mk and tests/fuzz/fuzz.mk.
#   core/      the shared core: trace model, arena, buffers, file format,
#              expressions, rank lists, histograms (depends on nothing else)
#   compress/  folding a rank's events (queue) and merging ranks (merge)
#   src/       the runtime linked into applications
#   replay/    the traversal and analysis engine, and ioreplay
#   siot/      the siot command
CORE_SRC := $(sort $(wildcard core/*.c))
COMPRESS_SRC := $(sort $(wildcard compress/*.c))
RUNTIME_SRC := $(sort $(wildcard src/*.c))
ENGINE_SRC := replay/walk.c replay/match.c replay/plan.c replay/handles.c replay/scantext.c replay/analyze.c replay/synth.c replay/progress.c replay/json.c replay/compare.c replay/totals.c replay/files.c
IOREPLAY_SRC := replay/ioreplay.c replay/watchdog.c replay/rp.c replay/rp_aio.c replay/explain.c replay/verify.c replay/order.c replay/inputs.c replay/check.c
SIOT_SRC := $(sort $(wildcard siot/*.c))
# the trace readers (what siot, its tests and the fuzzer link)
READER_SRC := $(CORE_SRC) $(COMPRESS_SRC) $(ENGINE_SRC) $(filter-out siot/siot.c,$(SIOT_SRC))
