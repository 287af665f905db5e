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

# Flags the build needs, kept apart from the user's CFLAGS.
REQ_CPPFLAGS := -Isrc -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
REQ_CFLAGS   := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
                -Wmissing-prototypes -Wno-unused-parameter -pthread -MMD -MP
REQ_LDLIBS   := -pthread -lm
ifeq ($(WERROR),1)
REQ_CFLAGS += -Werror
endif
ifneq ($(SAN),)
REQ_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
REQ_LDLIBS += -fsanitize=$(SAN)
endif

CURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
CURSES_LIBS   := $(or $(shell pkg-config --libs ncursesw 2>/dev/null),-lncursesw)
CMOCKA_LIBS   := $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka)

ALL_CFLAGS = $(REQ_CPPFLAGS) $(CPPFLAGS) $(REQ_CFLAGS) $(CFLAGS)

# ---------------------------------------------------------------- sources
MAIN_SRC  := src/main.c
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(wildcard src/*.c src/algos/*.c src/ui/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c)
# TESTS="test_a test_b" runs only those test programs.
TESTS     ?=
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
# bench/mpi_*.c need mpicc and are built by bench/run.sh.
BENCH_SRCS := $(filter-out bench/mpi_%,$(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
# The benchmarks `make bench` runs; the other programs of bench/ are tools
# it builds (hoststate, spells: the machine's state; remodel: kept runs).
BENCH_RUNS := $(BUILD)/bench/core_bench $(BUILD)/bench/tui_bench
BIN       := $(BUILD)/collviz
LIB       := $(BUILD)/libcollviz.a
DEPS_OK   := $(BUILD)/.deps-ok

.PHONY: all run test tests check bench bench-mpi install uninstall clean help deps
all: $(BIN)
tests: $(BIN) $(TEST_BINS)

help:
	@echo 'make            build $(BIN)'
	@echo 'make run        build and start collviz'
	@echo 'make test       build and run every test (TESTS="test_x ..." for some)'
	@echo 'make bench      build the programs of bench/ and run its benchmarks'
	@echo 'make bench-mpi  collviz perf beside Open MPI (bench/run.sh; BENCH_ARGS=...)'
	@echo 'make install    install to $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX))'
	@echo 'make clean      remove $(BUILD)/'
	@echo 'options: CC= CFLAGS= WERROR=1 SAN=address,undefined|thread V=1 BUILD=dir'

# Missing system packages are installed (or the exact command is printed).
$(DEPS_OK): scripts/deps.sh
	$(Q)sh scripts/deps.sh
	$(Q)mkdir -p $(@D) && touch $@
deps: $(DEPS_OK)

$(BUILD)/%.o: %.c | $(DEPS_OK)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CURSES_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(BUILD)/$(MAIN_SRC:.c=.o) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CURSES_LIBS) $(REQ_LDLIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(REQ_LDLIBS)

# Benchmarks print ratios and figures; they are not tests.
bench: $(BIN) $(BENCH_BINS)
	$(Q)for b in $(BENCH_RUNS); do echo "== $${b##*/}"; $$b || exit 1; done

# collviz perf beside Open MPI's own collectives (needs mpicc and mpirun);
# BENCH_ARGS are run.sh's options, e.g. BENCH_ARGS="-q".
bench-mpi:
	$(Q)sh bench/run.sh $(BENCH_ARGS)

run: $(BIN)
	$(Q)./$(BIN) $(ARGS)

# Every test binary runs even when one fails; the last line sums them up.
RUN_TESTS := $(if $(TESTS),$(addprefix $(BUILD)/tests/,$(TESTS)),$(TEST_BINS))
test: $(BIN) $(RUN_TESTS)
	$(Q)pass=0; fail=0; failed=; \
	for t in $(RUN_TESTS); do \
	    if COLLVIZ=$(BIN) $$t; then pass=$$((pass+1)); \
	    else fail=$$((fail+1)); failed="$$failed $${t##*/}"; fi; \
	done; \
	[ -z "$$failed" ] || echo "failed:$$failed"; \
	echo "programs: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
check: test

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/collviz
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/collviz
	install -m 644 docs/collviz.1 $(DESTDIR)$(PREFIX)/share/man/man1/collviz.1
	cp -R lessons $(DESTDIR)$(PREFIX)/share/collviz/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/collviz $(DESTDIR)$(PREFIX)/share/man/man1/collviz.1
	rm -rf $(DESTDIR)$(PREFIX)/share/collviz

clean:
	rm -rf $(BUILD)

.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
