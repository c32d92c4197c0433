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
ENGINE_SRC := replay/walk.c replay/nest.c replay/match.c replay/plan.c replay/handles.c replay/scantext.c replay/analyze.c replay/synth.c replay/progress.c replay/json.c replay/compare.c replay/totals.c replay/files.c replay/hmap.c
IOREPLAY_SRC := replay/ioreplay.c replay/watchdog.c replay/rp.c replay/rp_aio.c replay/explain.c replay/verify.c replay/order.c replay/inputs.c replay/check.c
SIOT_SRC := $(sort $(wildcard siot/*.c))
# siot's own: its main, and the OTF2 writer (the only source that links the
# OTF2 library: readers, libsiot.so and the fuzzer do without it)
TOOL_ONLY_SRC := siot/siot.c siot/otf2.c
# the trace readers (what siot, its tests and the fuzzer link)
READER_SRC := $(CORE_SRC) $(COMPRESS_SRC) $(ENGINE_SRC) $(filter-out $(TOOL_ONLY_SRC),$(SIOT_SRC))
# The OTF2 library (Debian's libotf2-trace-dev: make deps), for `siot export
# --otf2` only. Without it siot is built with SIOT_NO_OTF2, every make says
# so, and the export refuses, naming the package.
OTF2_CONFIG := $(shell command -v otf2-config 2> /dev/null)
ifneq ($(OTF2_CONFIG),)
OTF2_CFLAGS := $(shell $(OTF2_CONFIG) --cflags)
OTF2_LIBS := $(shell $(OTF2_CONFIG) --ldflags) $(shell $(OTF2_CONFIG) --libs)
else
OTF2_CFLAGS := -DSIOT_NO_OTF2
OTF2_LIBS :=
$(warning libotf2-trace-dev is missing (no otf2-config): siot is built without `siot export --otf2`; make deps installs it)
endif
