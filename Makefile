# collviz - see README.md. `make run` builds and starts collviz; `make test`
# builds and runs every test. `make help` lists the other targets.

# ---------------------------------------------------------------- options
CC       ?= cc
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
# WERROR=1: warnings are errors (CI). SAN=address,undefined or SAN=thread.
WERROR   ?= 0
SAN      ?=
# V=1 shows every command.
V        ?= 0

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

# Optional backends, each in its own folder: CUDA=1 builds src/gpu/ (the
# default where nvcc or clang can compile CUDA), MPI=1 builds src/mpi/
# into a second binary, collviz-mpi (the default where mpicc exists; it
# compiles with $(CC) through Open MPI's wrapper). CUDA=0 / MPI=0 build
# without them.
CUDA     ?= $(if $(shell command -v nvcc 2>/dev/null || command -v clang 2>/dev/null),1,0)
# The cuda backend's kernels (src/gpu/kernels.cu) are compiled to PTX and
# embedded: with nvcc where it exists (a fatbin: PTX for compute_75 and
# SASS for NVCC_SASS, sm_80 90 100 120), else with clang (PTX for sm_70,
# no CUDA toolkit needed). CUDA_KERNELS=0 builds the backend without them
# (it then says so when asked to run).
CUDA_KERNELS ?= 1
# SASS in the fatbin for these architectures (A100, H100/H200, B200,
# RTX 50xx), so that they need no JIT of the PTX (PTX ISA 9.0 from nvcc 13
# needs an R580 driver to JIT); other GPUs of compute capability 7.5 and
# up JIT the compute_75 PTX.
NVCC_SASS ?= 80 90 100 120
NVCC     ?= $(shell command -v nvcc 2>/dev/null)
CUDA_CLANG ?= $(shell command -v clang 2>/dev/null || command -v clang-14 2>/dev/null)
MPI      ?= $(if $(shell command -v mpicc 2>/dev/null),1,0)
MPICC    ?= mpicc

# Flags the build needs, kept apart from the user's CFLAGS. -iquote: the
# project's headers are named by folder ("core/sched.h") and never shadow
# a system header (<sched.h>).
REQ_CPPFLAGS := -iquote src -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
REQ_CFLAGS   := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
                -Wmissing-prototypes -Wno-unused-parameter -pthread -MMD -MP
REQ_LDLIBS   := -pthread -lm
ifeq ($(WERROR),1)
REQ_CFLAGS += -Werror
endif
ifeq ($(MPI),1)
REQ_CPPFLAGS += -DCOLLVIZ_HAVE_MPI
endif
ifneq ($(SAN),)
REQ_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
REQ_LDLIBS += -fsanitize=$(SAN)
endif

CURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
CURSES_LIBS   := $(or $(shell pkg-config --libs ncursesw 2>/dev/null),-lncursesw)
CMOCKA_LIBS   := $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka)

# The cuda backend: built in (src/exec/exec.c names it), dlopen for the
# driver and NCCL.
ifeq ($(CUDA),1)
REQ_CPPFLAGS += -DCOLLVIZ_WITH_CUDA
REQ_LDLIBS   += -ldl
endif

ALL_CFLAGS = $(REQ_CPPFLAGS) $(CPPFLAGS) $(REQ_CFLAGS) $(CFLAGS)

# The build's configuration, kept in $(BUILD)/config.flags and rewritten
# only when it changes: every object depends on it, so that a change
# (Open MPI installed since the last build, CUDA=0, other CFLAGS) rebuilds
# the objects instead of linking ones built the other way.
CONFIG     := $(BUILD)/config.flags
CONFIG_NOW := CC=$(CC) MPI=$(MPI) CUDA=$(CUDA) CUDA_KERNELS=$(CUDA_KERNELS) \
              NVCC=$(NVCC) NVCC_SASS=$(NVCC_SASS) $(ALL_CFLAGS) $(CURSES_CFLAGS)
ifneq ($(file <$(CONFIG)),$(CONFIG_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(CONFIG),$(CONFIG_NOW))
endif

# ---------------------------------------------------------------- sources
# Two libraries: libcollviz.a (everything but the terminal: core, algos,
# executors, backends, measuring, store, commands) links no curses;
# libcollviz-ui.a is src/ui/. Only src/ui/ is compiled with curses' flags.
# src/mpi/ is in neither: it is compiled with mpicc and linked into
# collviz-mpi alone, so that collviz never links libmpi.
MAIN_SRC  := src/main.c
CORE_DIRS := core algos exec threads measure store cli scene cmd lesson \
             $(if $(filter 1,$(CUDA)),gpu)
CORE_SRCS := $(wildcard $(CORE_DIRS:%=src/%/*.c))
UI_SRCS   := $(wildcard src/ui/*.c)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
UI_OBJS   := $(UI_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c)
# TESTS="test_a test_b" runs only those test programs.
TESTS     ?=
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
# The benchmarks `make bench` runs; the other programs of bench/ are tools
# it builds (hoststate, spells: the machine's state; remodel: kept runs).
BENCH_RUNS := $(BUILD)/bench/core_bench $(BUILD)/bench/tui_bench \
              $(BUILD)/bench/class_bench $(BUILD)/bench/machine_bench
# The TUI's message catalogues (po/LL.po, GNU gettext), compiled beside the
# program, where it finds them (src/ui/i18n.c), and installed below PREFIX.
PO_FILES  := $(wildcard po/*.po)
MO_FILES  := $(PO_FILES:po/%.po=$(BUILD)/locale/%/LC_MESSAGES/collviz.mo)
LOCALEDIR := $(PREFIX)/share/locale
BIN       := $(BUILD)/collviz
# MPI=1: collviz-mpi (src/main.c again as collviz_main, src/mpi/), and the
# tests' sweep under mpirun (tests/mpi/sweep.c, run by test_exec_mpi).
MPI_SRCS  := $(if $(filter 1,$(MPI)),$(wildcard src/mpi/*.c))
MPI_OBJS  := $(MPI_SRCS:%.c=$(BUILD)/%.o)
MPI_BIN   := $(if $(filter 1,$(MPI)),$(BUILD)/collviz-mpi)
MPI_TOOLS := $(if $(filter 1,$(MPI)),$(BUILD)/tests/mpi_sweep \
               $(BUILD)/tests/mpi_loop_trace)
LIB       := $(BUILD)/libcollviz.a
UI_LIB    := $(BUILD)/libcollviz-ui.a

.PHONY: all run test tests check layers bench bench-mpi bench-osu install uninstall \
        clean help deps fuzz fuzz-run pot test-gpu test-nightly \
        gpu-carry gpu-session-fake
all: $(BIN) $(MPI_BIN)
tests: $(BIN) $(MPI_BIN) $(MPI_TOOLS) $(TEST_BINS)

help:
	@echo 'make            build $(BIN)'
	@echo 'make run        install missing packages, build and start collviz'
	@echo 'make test       install missing packages, build and run every test'
	@echo '                (TESTS="test_x ..." for some; V=1 shows their output;'
	@echo '                TEST_JOBS=N programs at a time)'
	@echo 'make test-nightly  make test with the full sweeps (mpi across two hosts)'
	@echo 'make deps       install the system packages collviz builds with'
	@echo 'make check      build and run the tests (no package check)'
	@echo 'make layers     check that includes run one way between the layers'
	@echo 'make fuzz       fuzz the parsers of user files (FUZZ_SECONDS=$(FUZZ_SECONDS) each)'
	@echo 'make pot        gather the TUI messages into po/collviz.pot'
	@echo 'make bench      build the programs of bench/ and run its benchmarks'
	@echo 'make bench-mpi  collviz perf -B mpi beside MPI'"'"'s own collectives (bench/run.sh; BENCH_ARGS=...)'
	@echo 'make test-gpu   the cuda tests on this machine'"'"'s GPU(s), then bench/gpu.sh'
	@echo 'make gpu-carry  .gpu/: what bench/gpu-session.sh needs on a lent GPU machine'
	@echo 'make gpu-session-fake  that script here, on the tests'"'"' driver'
	@echo 'make install    install to $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX))'
	@echo 'make clean      remove $(BUILD)/'
	@echo 'options: CC= CFLAGS= WERROR=1 SAN=address,undefined|thread V=1 BUILD=dir'
	@echo '         CUDA=0|1 MPI=0|1 (default: detected; now CUDA=$(CUDA) MPI=$(MPI))'

# The system packages (installed when missing, or the exact command said).
deps:
	$(Q)sh scripts/deps.sh

$(BUILD)/src/ui/%.o: src/ui/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CURSES_CFLAGS) -c -o $@ $<

$(BUILD)/src/ui/i18n.o: REQ_CPPFLAGS += -DLOCALEDIR='"$(LOCALEDIR)"'
# The installed lessons (lesson/library.h), found when the source tree's
# are not beside the program.
$(BUILD)/src/lesson/library.o: REQ_CPPFLAGS += \
    -DCOLLVIZ_LESSON_DIR='"$(PREFIX)/share/collviz/lessons"'

$(BUILD)/locale/%/LC_MESSAGES/collviz.mo: po/%.po
	$(call say,MSGFMT,$<)
	$(Q)mkdir -p $(@D)
	$(Q)msgfmt --check -o $@ $<

# po/collviz.pot: every message of src/ui, for translators (msgmerge it
# into po/LL.po).
pot:
	$(Q)xgettext --from-code=UTF-8 -k_ -kN_ -kNC_:1c,2 --package-name=collviz \
	    -o po/collviz.pot $(sort $(UI_SRCS) $(wildcard src/ui/*.h))

$(BUILD)/tests/test_ui_%.o: tests/test_ui_%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CURSES_CFLAGS) -c -o $@ $<

$(BUILD)/src/mpi/%.o: src/mpi/%.c
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/mpi/%.o: tests/mpi/%.c
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/src/main-mpi.o: src/main.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -DCOLLVIZ_MAIN=collviz_main -c -o $@ $<

$(BUILD)/%.o: %.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# ------------------------------------------------------- the GPU kernels
GPU_PTX := $(BUILD)/gpu/kernels.ptx
GPU_IMG := $(BUILD)/gpu/kernels.img
GPU_KSRC := src/gpu/kernels.cu src/gpu/kern.h
CLANG_CUDA_FLAGS := -x cuda --cuda-device-only -nocudainc -nocudalib \
    --cuda-gpu-arch=sm_70 -Wno-unknown-cuda-version -O3 -S
NVCC_FLAGS := -O3 -Xptxas -O3
$(GPU_PTX): $(GPU_KSRC)
	$(call say,PTX,$@)
	$(Q)mkdir -p $(@D)
ifeq ($(CUDA_KERNELS),0)
	$(Q): > $@
else ifneq ($(NVCC),)
	$(Q)$(NVCC) $(NVCC_FLAGS) -ptx -arch=compute_75 -o $@ $<
else
	$(Q)$(CUDA_CLANG) $(CLANG_CUDA_FLAGS) -o $@ $<
endif

$(GPU_IMG): $(GPU_PTX)
	$(call say,IMAGE,$@)
ifeq ($(CUDA_KERNELS)$(if $(NVCC),nvcc),1nvcc)
	$(Q)$(NVCC) $(NVCC_FLAGS) -fatbin -gencode arch=compute_75,code=compute_75 \
	    $(foreach a,$(NVCC_SASS),-gencode arch=compute_$(a),code=sm_$(a)) \
	    -o $@ src/gpu/kernels.cu
else
	$(Q)cp $< $@
endif

# Which compiler made the kernels, for the placement line (a clang-built
# PTX reduces one element at a time and is compiled again by the driver).
GPU_BY := $(if $(filter 0,$(CUDA_KERNELS)),none,$(if $(NVCC),nvcc $(shell \
    $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'),clang \
    $(shell $(CUDA_CLANG) -dumpversion 2>/dev/null)))
$(BUILD)/src/gpu/image.o: src/gpu/image.c $(GPU_IMG)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -DGPU_IMAGE_PATH='"$(GPU_IMG)"' \
	    -DGPU_IMAGE_BY='"$(strip $(GPU_BY))"' -c -o $@ $<

# The tests' CUDA driver (tests/fake_cuda/): device memory is host memory,
# a launch runs kern.h's code on the host.
FAKE_CUDA := $(BUILD)/tests/fake_cuda/libcuda.so.1
$(FAKE_CUDA): tests/fake_cuda/fake_cuda.c src/gpu/kern.h src/gpu/cuda_api.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< \
	    $(REQ_LDLIBS) -Wl,--push-state,--no-as-needed -l:libdl.so.2 -l:librt.so.1 -Wl,--pop-state

# The tests' NCCL (tests/fake_cuda/fake_nccl.c): checks how NCCL is
# called (groups, finalize), moves no data.
FAKE_NCCL := $(BUILD)/tests/fake_cuda/libnccl.so.2
$(FAKE_NCCL): tests/fake_cuda/fake_nccl.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libnccl.so.2 -o $@ $< \
	    $(REQ_LDLIBS)

# Libraries planted in the current folder under the names of two the fake
# driver needs (libdl.so.2, librt.so.1): loaded, they leave a mark
# (test_hostile_cli: a driver's dependencies never come from there).
PLANTED := $(BUILD)/tests/planted/libdl.so.2 $(BUILD)/tests/planted/librt.so.1
$(PLANTED): tests/fake_cuda/planted.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -fPIC -shared -Wl,-soname,$(@F) -o $@ $<

# Tests find the fake driver and the PTX by these paths.
$(BUILD)/tests/%.o: REQ_CPPFLAGS += -DFAKE_CUDA_LIB='"$(abspath $(FAKE_CUDA))"' \
    -DFAKE_NCCL_LIB='"$(abspath $(FAKE_NCCL))"' \
    -DGPU_PTX_FILE='"$(abspath $(GPU_PTX))"' \
    -DGPU_KERNELS_CU='"$(abspath src/gpu/kernels.cu)"' \
    -DGPU_BY_MAKE='"$(firstword $(GPU_BY))"' \
    -DPLANTED_DIR='"$(abspath $(BUILD)/tests/planted)"'
GPU_TESTS := $(filter $(BUILD)/tests/test_gpu% $(BUILD)/tests/test_exec_cuda% \
                       $(BUILD)/tests/test_ui_cuda%,$(TEST_BINS))
$(GPU_TESTS): | $(FAKE_CUDA) $(FAKE_NCCL) $(if $(filter 1,$(CUDA)),$(GPU_PTX))
$(BUILD)/tests/test_hostile_cli $(BUILD)/tests/test_ui_learn: | $(FAKE_CUDA) $(PLANTED)

# Every object and generated file is rebuilt when the configuration changes.
$(CORE_OBJS) $(UI_OBJS) $(MPI_OBJS) $(BUILD)/src/main.o $(BUILD)/src/main-mpi.o \
$(TEST_BINS:%=%.o) $(BENCH_BINS:%=%.o) $(BUILD)/tests/mpi/sweep.o \
$(BUILD)/tests/mpi/loop_trace.o \
$(FAKE_CUDA) $(FAKE_NCCL) $(GPU_PTX): $(CONFIG)

$(LIB): $(CORE_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(UI_LIB): $(UI_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(BUILD)/$(MAIN_SRC:.c=.o) $(UI_LIB) $(LIB) | $(MO_FILES)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/collviz-mpi: $(BUILD)/src/main-mpi.o $(MPI_OBJS) $(UI_LIB) $(LIB)
	$(call say,LINK,$@)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/tests/mpi_sweep: $(BUILD)/tests/mpi/sweep.o \
        $(filter-out %/mpi_main.o,$(MPI_OBJS)) $(LIB)
	$(call say,LINK,$@)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) \
	    $(filter %.a,$^) $(REQ_LDLIBS)

# The native row's timed loop, by the calls it makes: MPI's through the
# profiling interface (the program defines them), the backend's own
# through the linker's --wrap.
LOOP_WRAPS := mpi_watch_poke mpi_watch_allow mpi_rank_finish mpi_rank_native
$(BUILD)/tests/mpi_loop_trace: $(BUILD)/tests/mpi/loop_trace.o \
        $(filter-out %/mpi_main.o,$(MPI_OBJS)) $(LIB)
	$(call say,LINK,$@)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CFLAGS) $(LDFLAGS) \
	    $(LOOP_WRAPS:%=-Wl,--wrap=%) -o $@ $(filter %.o,$^) \
	    $(filter %.a,$^) $(REQ_LDLIBS)

# The backends' conformance suite (tests/conformance.c), in each
# backend's tests (linked with their objects, before the libraries).
CONFORMANCE := $(BUILD)/tests/conformance.o
$(CONFORMANCE): $(CONFIG)
$(BUILD)/tests/test_exec_threads $(BUILD)/tests/test_exec_cuda \
$(BUILD)/tests/test_threads_slow $(BUILD)/tests/mpi_sweep: $(CONFORMANCE)

# A recorded perf run against the model (tests/recorded.c), in its test
# and its bench program.
RECORDED := $(BUILD)/tests/recorded.o
$(RECORDED): $(CONFIG)
$(BUILD)/tests/test_recorded $(BUILD)/bench/recorded: $(RECORDED)

# Tests of the terminal interface link both libraries and curses; every
# other test links the core library alone.
$(BUILD)/tests/test_ui_%: $(BUILD)/tests/test_ui_%.o $(UI_LIB) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) \
	    $(CMOCKA_LIBS) $(REQ_LDLIBS)

$(BUILD)/bench/tui_bench $(BUILD)/bench/class_bench: $(BUILD)/bench/%: $(BUILD)/bench/%.o $(UI_LIB) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) \
	    $(REQ_LDLIBS)

# Benchmarks print ratios and figures; they are not tests.
bench: $(BIN) $(BENCH_BINS)
	$(Q)for b in $(BENCH_RUNS); do echo "== $${b##*/}"; $$b || exit 1; done

# collviz perf beside Open MPI's own collectives (needs mpicc and mpirun);
# BENCH_ARGS are run.sh's options, e.g. BENCH_ARGS="-q".
bench-mpi:
	$(Q)sh bench/run.sh $(BENCH_ARGS)

# MPI's own collective timed as OSU times it (bench/mpi/osu_ref.c, built
# with mpicc), the reference of collviz-mpi's `mpi` row; bench-osu runs
# bench/mpi_osu.sh (BENCH_ARGS are its options, e.g. BENCH_ARGS="-r 3").
$(BUILD)/bench/osu_ref: bench/mpi/osu_ref.c
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) -o $@ $<

bench-osu: $(BUILD)/bench/osu_ref $(MPI_BIN)
	$(Q)sh bench/mpi_osu.sh -B $(BUILD) $(BENCH_ARGS)

# run and test see to the system packages once, first, then build.
run: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)./$(BIN) $(ARGS)

test:
	$(Q)sh scripts/deps.sh test
	$(Q)$(MAKE) --no-print-directory check

# The tests with the sweeps every change runs in part taken whole (the
# mpi backend's full sweep across two hosts).
test-nightly:
	$(Q)COLLVIZ_NIGHTLY=1 $(MAKE) --no-print-directory test

layers:
	$(Q)sh scripts/layers.sh

# The cuda backend's tests on the machine's own driver and GPU(s) instead
# of the tests' driver, then perf and calibrate on them (bench/gpu.sh,
# results in bench/results/ with the devices' names and the driver).
test-gpu: $(BIN) $(BUILD)/tests/test_exec_cuda $(BUILD)/tests/test_ui_cuda
	$(Q)COLLVIZ_TEST_REAL_GPU=1 COLLVIZ=$(BIN) V=$(V) sh scripts/run-tests.sh \
	    $(BUILD)/tests/test_exec_cuda $(BUILD)/tests/test_ui_cuda
	$(Q)sh bench/gpu.sh $(BIN)

# What a lent GPU machine runs (bench/gpu-session.sh): .gpu/ holds the
# binary, the cuda test programs and the runtime libraries that machine
# lacks (ncurses, cmocka), under the device tool's 64 MiB; the build
# folder is larger and stays here. gpu-session-fake runs the same script
# here on the tests' driver and NCCL, at small sizes.
GPU_CARRY := .gpu
gpu-carry: $(BIN) $(BUILD)/tests/test_exec_cuda $(BUILD)/tests/test_ui_cuda
	$(Q)rm -rf $(GPU_CARRY) && mkdir -p $(GPU_CARRY)/bin $(GPU_CARRY)/lib
	$(Q)cp $^ $(GPU_CARRY)/bin/
	$(Q)for f in $^; do ldd $$f; done | awk '/ncurses|tinfo|cmocka/ && $$3 ~ /^\// {print $$3}' | \
	    sort -u | while read -r l; do cp -L "$$l" $(GPU_CARRY)/lib/; done
	$(Q)kib=$$(du -sk $(GPU_CARRY) | cut -f1); echo "$(GPU_CARRY): $$kib KiB"; \
	    [ $$kib -lt 65536 ] || { echo "$(GPU_CARRY) is over the 64 MiB a device run carries" >&2; exit 1; }

gpu-session-fake: gpu-carry $(FAKE_CUDA) $(FAKE_NCCL)
	$(Q)rm -rf $(BUILD)/gpu-session && mkdir -p $(BUILD)/gpu-session
	$(Q)OUT=$(abspath $(BUILD)/gpu-session) \
	    COLLVIZ_LIBCUDA=$(abspath $(FAKE_CUDA)) COLLVIZ_LIBNCCL=$(abspath $(FAKE_NCCL)) \
	    GPU_SESSION_BIG=1M GPU_SESSION_MID=256K GPU_SESSION_LO=64K \
	    GPU_SESSION_ITERS=2 GPU_SESSION_CALIB=--quick \
	    bash bench/gpu-session.sh
	$(Q)sh bench/gpu-report.sh $(BUILD)/gpu-session | tee $(BUILD)/gpu-session/report
	$(Q)grep -q ' 0 failed' $(BUILD)/gpu-session/tests.txt && \
	    grep -q "^# wrong elements: 0 in collviz's rows" $(BUILD)/gpu-session/report && \
	    ! grep -q 'rc=124' $(BUILD)/gpu-session/*.txt || \
	    { echo "gpu-session-fake: a test failed, a collviz row was wrong or a part ran out of time" >&2; exit 1; }

# Every test program runs even when one fails; the last line sums up the
# tests as cmocka counts them: N passed, N failed, N skipped. They run
# TEST_JOBS at a time (default: the CPUs plus one), the slowest first;
# TESTS_ALONE after them one at a time: the threads backend's and MPI's
# jobs of more ranks than cores (beside other work they take many times
# as long: 35 s alone, 164 s in the pool; under ASan 105 s and 584 s),
# and the programs that time real runs and compare the times.
TESTS_FIRST := test_exec_cuda test_algos test_ui_e2e test_hostile_files \
               test_ui_pricing
TESTS_ALONE := test_exec_threads test_exec_mpi test_mpi_hosts test_perf_cmd \
               test_perf test_ui_worker test_probe test_calib \
               test_calib_file test_measure test_threads_slow
TEST_JOBS   ?=
RUN_TESTS := $(if $(TESTS),$(addprefix $(BUILD)/tests/,$(TESTS)),\
               $(foreach t,$(TESTS_FIRST),$(filter $(BUILD)/tests/$t,$(TEST_BINS))) \
               $(filter-out $(TESTS_FIRST:%=$(BUILD)/tests/%),$(TEST_BINS)))
check: $(BIN) $(MPI_BIN) $(MPI_TOOLS) $(RUN_TESTS) layers
	$(Q)COLLVIZ=$(BIN) V=$(V) TEST_JOBS=$(TEST_JOBS) TESTS_ALONE="$(TESTS_ALONE)" \
	    sh scripts/run-tests.sh $(RUN_TESTS)

# The parsers of files users write or keep (TUI scripts, calibrations),
# each fuzzed for FUZZ_SECONDS with libFuzzer under ASan and UBSan (clang;
# Debian's libclang-rt-14-dev). Corpora grow under $(BUILD)/fuzz/.
FUZZ_SECONDS ?= 20
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang \
	    SAN=address,undefined CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" fuzz-run

# One target per fuzzer, so that make -j fuzzes several at a time (each
# for FUZZ_SECONDS, on a core of its own).
FUZZ_RUNS = $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=fuzz-run-%)
fuzz-run: $(FUZZ_RUNS)
fuzz-run-%: $(BUILD)/fuzz/fuzz_%
	$(Q)n=$*; mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	    echo "== fuzz $$n ($(FUZZ_SECONDS) s)"; \
	    $< -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 \
	        -timeout=10 -print_final_stats=0 $(BUILD)/fuzz/corpus-$$n \
	        tests/fuzz/seeds/$$n 2>$(BUILD)/fuzz/$$n.log || \
	        { tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	    echo "$$n: $$(tail -n 1 $(BUILD)/fuzz/$$n.log)"

# $^ less the headers -MMD lists once the target was built (a header given
# to the compiler is a second output: "cannot specify -o").
$(BUILD)/fuzz/%: tests/fuzz/%.c $(UI_LIB) $(LIB)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CURSES_CFLAGS) -fsanitize=fuzzer -o $@ \
	    $(filter %.c %.a,$^) $(CURSES_LIBS) $(REQ_LDLIBS)

install: $(BIN) $(MPI_BIN) $(MO_FILES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/collviz
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/collviz
	$(if $(MPI_BIN),install -m 755 $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/collviz-mpi)
	install -m 644 docs/collviz.1 $(DESTDIR)$(PREFIX)/share/man/man1/collviz.1
	cp -R lessons $(DESTDIR)$(PREFIX)/share/collviz/
	for m in $(MO_FILES); do l=$${m#$(BUILD)/locale/}; l=$${l%%/*}; \
	    install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES && \
	    install -m 644 $$m $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/collviz.mo || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/collviz $(DESTDIR)$(PREFIX)/bin/collviz-mpi \
	    $(DESTDIR)$(PREFIX)/share/man/man1/collviz.1
	rm -rf $(DESTDIR)$(PREFIX)/share/collviz
	rm -f $(DESTDIR)$(LOCALEDIR)/*/LC_MESSAGES/collviz.mo

clean:
	rm -rf $(BUILD)

.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
