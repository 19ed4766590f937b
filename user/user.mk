# User programs: each user/<dir>/<name>.c is one static newlib program,
# $(BUILD)/user/<dir>/<name>, and each newlib test tests/newlib/<name>.c is
# $(BUILD)/user/tests/<name>, built by the pattern rules below.
# user/bin -> /bin on the ISO (USER_BIN_PROGS), tests/newlib -> /tests
# (USER_TEST_PROGS, run by runtests; helpers they exec live in user/bin),
# user/bench -> /bench (USER_BENCH_PROGS, see bench/bench.mk).
# tests/linux holds the musl programs instead (tests/linux/linux.mk).
# Headers: user/include (shared with user/bin and user/bench) and
# tests/include (the TAP helpers of the tests, newlib and musl).

USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -nostdinc \
	-isystem $(GCC_INCLUDE) -isystem $(SYSROOT)/include -Itests/include -Iuser/include \
	-fno-pie -fno-pic -fno-stack-protector -MMD -MP
USER_LDFLAGS := -static -no-pie -nostdlib -z noexecstack -L$(SYSROOT)/lib
USER_LIBS := -Wl,--start-group -lc -lm -lsys -lgcc -Wl,--end-group

USER_TEST_PROGS := $(patsubst tests/newlib/%.c,$(BUILD)/user/tests/%,$(wildcard tests/newlib/*.c))
USER_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/*/*.c)) $(USER_TEST_PROGS)
USER_BIN_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/bin/*.c))
# user/bench/bench_* -> /bench on the bench ISO, run in order by init (make bench).
USER_BENCH_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/bench/bench_*.c))

define user_prog
	@mkdir -p $(@D)
	@echo "CC       $<"
	@$(CC) $(USER_CFLAGS) -MF $@.d -MT $@ $(USER_LDFLAGS) -o $@ $(CRT0) $< $(USER_LIBS)
endef
$(BUILD)/user/tests/%: tests/newlib/%.c $(NEWLIB_STAMP) $(LIBSYS) $(CRT0) | $(LIBC_HEADERS)
	$(user_prog)
$(BUILD)/user/%: user/%.c $(NEWLIB_STAMP) $(LIBSYS) $(CRT0) | $(LIBC_HEADERS)
	$(user_prog)


.PHONY: user test-host
user: $(USER_PROGS)

# Test leg: run the tests natively on the host Linux, from a fresh temp dir:
# the newlib tests, then every musl program of tests/linux.
test-host: $(USER_PROGS) $(LINUX_PROGS) $(BUILD)/compat/busybox.expected
	@mkdir -p $(BUILD)/results
	@tmp=$$(mktemp -d) && cd $$tmp && \
	$(abspath $(BUILD)/user/bin/runtests) -s $(abspath $(BUILD)/results/test-host) \
		$(abspath $(BUILD)/user/tests) $(abspath $(BUILD)/linux); \
	status=$$?; cd / && left=$$(ls -A $$tmp) && rm -rf $$tmp; \
	if [ -n "$$left" ]; then echo "test-host: tests left files behind: $$left"; exit 1; fi; \
	exit $$status

-include $(USER_PROGS:=.d)
