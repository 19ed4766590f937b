# Test legs of `make test`, in the order they run, and `make debug`.
# Fragments add their own legs (test-unit: tests/host, test-host: user/).

TEST_LEGS := test-unit test-host test-kernel test-boot test-gdb
RESULTS := $(BUILD)/results

.PHONY: test-kernel test-boot test-gdb debug

# Boots the test ISO: kernel self-tests (later also the in-guest suite).
test-kernel: $(ISO_TEST)
	@mkdir -p $(RESULTS)
	@tests/qemu-run --timeout 120 --log $(BUILD)/serial-test.log $(ISO_TEST); \
	status=$$?; tests/tap-result $(BUILD)/serial-test.log $$status > $(RESULTS)/$@; \
	cat $(RESULTS)/$@; exit $$status

# Boot-path failures: no long mode, a kernel fault's report, odd memory maps.
test-boot: $(ISO) $(ISO_TEST) $(ISO_CRASH)
	@mkdir -p $(RESULTS)
	@tests/boot-checks $(ISO) $(ISO_TEST) $(ISO_CRASH) > $(BUILD)/boot-checks.log; \
	status=$$?; cat $(BUILD)/boot-checks.log; tail -n 1 $(BUILD)/boot-checks.log > $(RESULTS)/$@; \
	exit $$status

# gdb attaches to QEMU's stub, stops at kmain and shows a backtrace.
test-gdb: $(ISO) $(KERNEL)
	@mkdir -p $(RESULTS)
	@tests/gdb-check $(ISO) $(KERNEL) > $(RESULTS)/$@; status=$$?; cat $(RESULTS)/$@; exit $$status

# QEMU halted at the first instruction with its gdb stub, gdb attached.
debug: deps $(ISO) $(KERNEL)
	tests/debug-session $(ISO) $(KERNEL)
