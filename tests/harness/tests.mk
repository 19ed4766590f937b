# Test legs of `make test`, in the order they run, and `make debug`.
# Fragments add their own legs (test-unit: tests/unit, test-host: user/).

TEST_LEGS := test-unit test-host test-guest test-lockdep test-boot test-debian test-crash test-gdb
# Result files: test-guest writes three (kernel self-tests, user suite, leaks).
TEST_RESULTS := test-unit test-host test-kernel test-guest test-leaks test-disk test-lockdep \
	test-boot test-debian test-crash test-gdb
RESULTS := $(BUILD)/results

.PHONY: test-guest test-kernel test-lockdep test-boot test-gdb test-crash debug

# One boot of the test ISO on two CPUs, tasks on both: the kernel's
# self-tests, then init runs /bin/runtests over /tests and its exit status
# ends QEMU.  test-boot runs the suite again on one CPU.
test-guest: $(ISO_TEST) $(DISK_RO) $(BUILD)/linux/blk_virtio $(BUILD)/linux/ext2_rw
	@mkdir -p $(RESULTS)
	@$(scratch_disk)
	@QEMU_SMP=2 tests/harness/qemu-run --timeout 1800 --log $(BUILD)/serial-test.log $(TEST_DISKS) $(ISO_TEST); \
	status=$$?; \
	$(disk_check) > $(BUILD)/disk-check.log; tail -n 1 $(BUILD)/disk-check.log > $(RESULTS)/test-disk; \
	tests/harness/tap-result $(BUILD)/serial-test.log 0 "kernel: " > $(RESULTS)/test-kernel; \
	tests/harness/tap-result $(BUILD)/serial-test.log $$status > $(RESULTS)/test-guest; \
	tests/harness/tap-result $(BUILD)/serial-test.log 0 "leaks: " > $(RESULTS)/test-leaks; \
	echo "kernel self-tests: $$(cat $(RESULTS)/test-kernel)"; \
	echo "user tests in fdkernel (-smp 2): $$(cat $(RESULTS)/test-guest)"; \
	echo "leak check after the suite: $$(cat $(RESULTS)/test-leaks)"; \
	echo "scratch disk checked on the host: $$(cat $(RESULTS)/test-disk)"; \
	! cat $(RESULTS)/test-kernel $(RESULTS)/test-guest $(RESULTS)/test-leaks $(RESULTS)/test-disk | grep -qv " 0 failed," || \
		tests/harness/suite-failures $(BUILD)/serial-test.log; \
	exit $$status
test-kernel: test-guest
test-disk: test-guest

# The `make LOCKDEP=1` kernel (lib/lockdep.h, built in $(BUILD)/lockdep):
# the whole guest suite must find no lock-order cycle and no function that
# may sleep called under a spinlock or with interrupts off (either panics),
# and two boots that misuse locks on purpose must be reported
# (tests/harness/lockdep-checks).  About as long as test-guest.
LOCKDEP_ISOS := $(BUILD)/lockdep/fdkernel-test.iso $(BUILD)/lockdep/fdkernel-lockdep-cycle.iso \
	$(BUILD)/lockdep/fdkernel-lockdep-sleep.iso
test-lockdep:
	@mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory LOCKDEP=1 $(LOCKDEP_ISOS)
	@tests/harness/lockdep-checks $(LOCKDEP_ISOS) > $(BUILD)/lockdep-checks.log; \
	status=$$?; cat $(BUILD)/lockdep-checks.log; \
	tail -n 1 $(BUILD)/lockdep-checks.log > $(RESULTS)/$@; exit $$status

# Boot-path failures: no long mode, a kernel fault's report, odd memory maps,
# UEFI, several CPUs (and smp=off), the user suite on one CPU; the disk
# test with INTx instead of MSI-X; the syscall trace of a test program;
# the root on a disk (root=).
test-boot: $(ISO) $(ISO_SELFTEST) $(ISO_CRASH) $(ISO_STRACE) $(ISO_TEST) $(ISO_SMP_OFF) \
		$(ISO_NOMSI) $(DISK_RO) $(ISO_ROOTDISK) $(ISO_NOROOT) $(ISO_BADROOT)
	@mkdir -p $(RESULTS)
	@tests/harness/boot-checks $(ISO) $(ISO_SELFTEST) $(ISO_CRASH) $(ISO_STRACE) $(ISO_TEST) $(ISO_SMP_OFF) \
		$(ISO_NOMSI) $(DISK_RO) $(ISO_ROOTDISK) $(ISO_NOROOT) $(ISO_BADROOT) > $(BUILD)/boot-checks.log; \
	status=$$?; cat $(BUILD)/boot-checks.log; tail -n 1 $(BUILD)/boot-checks.log > $(RESULTS)/$@; \
	exit $$status

# A power cut during heavy writes (tests/harness/crash-check): QEMU killed
# while the guest writes, then on the host e2fsck -fy repairs, e2fsck -fn
# is clean, and every file fsync'd before the kill is whole.  A few minutes.
test-crash: $(ISO_CRASHDISK) $(BUILD)/linux/ext2_crash
	@mkdir -p $(RESULTS)
	@tests/harness/crash-check $(ISO_CRASHDISK) $(BUILD)/linux/ext2_crash > $(BUILD)/crash-check.log; \
	status=$$?; cat $(BUILD)/crash-check.log; \
	tail -n 1 $(BUILD)/crash-check.log > $(RESULTS)/$@; \
	grep -q " 0 failed," $(RESULTS)/$@ && [ $$status = 0 ]

# The busybox compatibility test alone (it is also part of test-guest):
# docs/linux-abi.md.
.PHONY: test-compat
test-compat:
	@$(MAKE) --no-print-directory test-some T=compat_busybox

# gdb attaches to QEMU's stub, stops at kmain and shows a backtrace; then
# host gdb opens a core dumped in the guest with its program.
test-gdb: $(ISO_GDB) $(KERNEL) $(ISO_CORE) $(BUILD)/linux/coredump
	@mkdir -p $(RESULTS)
	@tests/harness/gdb-check $(ISO_GDB) $(KERNEL) $(ISO_CORE) $(BUILD)/linux/coredump > $(RESULTS)/$@; \
	status=$$?; cat $(RESULTS)/$@; exit $$status

# QEMU halted at the first instruction with its gdb stub, gdb attached.
debug: deps $(ISO) $(KERNEL)
	tests/harness/debug-session $(ISO) $(KERNEL)

# The Linux Test Project's syscall tests on the host and in fdkernel, as a
# pass / fail / TCONF table (docs/compat.md).  An instrument, not a leg of
# `make test`: LTP is fetched and built by whoever measures.
#   make ltp LTP_SRC=/path/to/ltp [LTP_TESTS="creat01 fcntl11"] [SMP=4]
.PHONY: ltp
ltp: $(KERNEL) $(INITRD)
	@[ -n "$(LTP_SRC)" ] || { echo 'usage: make ltp LTP_SRC=/path/to/ltp [LTP_TESTS="..."]'; exit 2; }
	@tests/ltp/run $(LTP_SRC) $(BUILD)/ltp $(LTP_TESTS)

# liburing's own test programs (test/*.t of a checkout built statically,
# docs/async.md) on the host and in fdkernel, through the same runner.
#   make liburing-tests LIBURING_SRC=/path/to/liburing [LIBURING_TESTS="nop poll"]
.PHONY: liburing-tests
liburing-tests: $(KERNEL) $(INITRD)
	@[ -n "$(LIBURING_SRC)" ] || { echo 'usage: make liburing-tests LIBURING_SRC=/path/to/liburing [LIBURING_TESTS="..."]'; exit 2; }
	@tests/liburing/run $(LIBURING_SRC) $(BUILD)/liburing-tests $(LIBURING_TESTS)
