# User programs: each user/<dir>/<name>.c is one static newlib program,
# $(BUILD)/user/<dir>/<name>, built by the single pattern rule below.
# user/bin -> /bin on the ISO (USER_BIN_PROGS), user/tests -> /tests
# (USER_TEST_PROGS, run by runtests; helpers they exec live in user/bin),
# user/bench -> /bench (USER_BENCH_PROGS, see bench/bench.mk).
# user/linux holds the musl programs instead (user/linux/linux.mk).

USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -nostdinc \
	-isystem $(GCC_INCLUDE) -isystem $(SYSROOT)/include -Iuser/include \
	-fno-pie -fno-pic -fno-stack-protector -MMD -MP
USER_LDFLAGS := -static -no-pie -nostdlib -z noexecstack -L$(SYSROOT)/lib
USER_LIBS := -Wl,--start-group -lc -lm -lsys -lgcc -Wl,--end-group

USER_SRCS := $(filter-out user/linux/%,$(wildcard user/*/*.c))
USER_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(USER_SRCS))
USER_BIN_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/bin/*.c))
USER_TEST_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/tests/*.c))
# user/bench/bench_* -> /bench on the bench ISO, run in order by init (make bench).
USER_BENCH_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/bench/bench_*.c))

$(BUILD)/user/%: user/%.c $(NEWLIB_STAMP) $(LIBSYS) $(CRT0) | $(LIBC_HEADERS)
	@mkdir -p $(@D)
	@echo "CC       $<"
	@$(CC) $(USER_CFLAGS) -MF $@.d -MT $@ $(USER_LDFLAGS) -o $@ $(CRT0) $< $(USER_LIBS)

.PHONY: user test-host
user: $(USER_PROGS)

# Test leg: run the tests natively on the host Linux, from a fresh temp dir:
# the newlib tests, then every musl program of user/linux.
test-host: $(USER_PROGS) $(LINUX_PROGS) $(BUILD)/compat/busybox.expected
	@mkdir -p $(BUILD)/results
	@tmp=$$(mktemp -d) && cd $$tmp && \
	$(abspath $(BUILD)/user/bin/runtests) -s $(abspath $(BUILD)/results/test-host) \
		$(abspath $(BUILD)/user/tests) $(abspath $(BUILD)/linux); \
	status=$$?; cd / && left=$$(ls -A $$tmp) && rm -rf $$tmp; \
	if [ -n "$$left" ]; then echo "test-host: tests left files behind: $$left"; exit 1; fi; \
	exit $$status

-include $(USER_PROGS:=.d)
