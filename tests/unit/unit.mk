# Host tests of the pure C parts of the kernel (fdmap first, the partition parser, red-black
# trees): cmocka unit tests and a libFuzzer target under ASan+UBSan, and a native
# micro-benchmark.
#   make test-unit     unit tests + a short fixed-seed fuzz pass -> $(BUILD)/results/test-unit
#   make fuzz          fuzz for FUZZ_SECONDS (default 60)
#   make bench-fdmap   ns per alloc+close, fdmap vs the host's own syscalls

HOST_DIR := $(BUILD)/host
HOST_CODE := kernel/fd/fdmap.c kernel/fd/fdtable.c kernel/fd/fdtable_close.c kernel/fd/fdtable_share.c \
	kernel/block/partition_parse.c kernel/lib/crc32.c kernel/lib/rbtree.c
HOST_SUPPORT := tests/unit/host_heap.c tests/unit/host_grace.c tests/unit/fake_file.c
HOST_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -Ikernel -Itests/unit -MMD -MP
HOST_SAN := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_UNIT_TESTS := $(HOST_DIR)/test_fdmap $(HOST_DIR)/test_files $(HOST_DIR)/test_files_copy \
	$(HOST_DIR)/test_partition $(HOST_DIR)/test_rbtree
HOST_FUZZER := $(HOST_DIR)/fuzz_files
HOST_BENCH := $(HOST_DIR)/bench_fdmap
FUZZ_CC := clang-14
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 25000

# Object variants: asan/ (unit tests, gcc), fuzz/ (clang + libFuzzer), bench/ (-O2).
$(HOST_DIR)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HOST_CFLAGS) $(HOST_SAN) -c $< -o $@

$(HOST_DIR)/fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(HOST_CFLAGS) -O1 -fsanitize=fuzzer-no-link,address,undefined \
		-fno-sanitize-recover=all -c $< -o $@

$(HOST_DIR)/bench/%.o: %.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HOST_CFLAGS) -O2 -DNDEBUG -c $< -o $@

host_objs = $(patsubst %.c,$(HOST_DIR)/$(1)/%.o,$(2) $(HOST_CODE) $(HOST_SUPPORT))

$(HOST_DIR)/test_%: $(call host_objs,asan,tests/unit/test_%.c)
	$(HOSTCC) $(HOST_SAN) $^ -lcmocka -lpthread -o $@

$(HOST_FUZZER): $(call host_objs,fuzz,tests/unit/fuzz_files.c)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $^ -o $@

$(HOST_BENCH): $(call host_objs,bench,tests/unit/bench_fdmap.c)
	$(HOSTCC) $^ -o $@

# Objects are built by pattern; keep them so rebuilds stay incremental.
.SECONDARY: $(call host_objs,asan,tests/unit/test_fdmap.c tests/unit/test_files.c tests/unit/test_files_copy.c \
	tests/unit/test_partition.c) \
	$(call host_objs,fuzz,tests/unit/fuzz_files.c) $(call host_objs,bench,tests/unit/bench_fdmap.c)

-include $(wildcard $(HOST_DIR)/*/kernel/fd/*.d $(HOST_DIR)/*/kernel/block/*.d $(HOST_DIR)/*/kernel/lib/*.d \
	$(HOST_DIR)/*/tests/unit/*.d)

.PHONY: test-unit fuzz bench-fdmap
test-unit: $(HOST_UNIT_TESTS) $(HOST_FUZZER)
	@mkdir -p $(BUILD)/results
	@mk/genabi.sh | diff -u docs/abi.md - || { echo "docs/abi.md is stale: run make abi-doc"; exit 1; }
	@mk/gencompat.sh | diff -u docs/compat.md - || { echo "docs/compat.md is stale: run make abi-doc"; exit 1; }
	@tests/harness/run-unit $(BUILD)/results/test-unit $(HOST_DIR)/fuzz-smoke.log $(HOST_UNIT_TESTS) -- \
		$(HOST_FUZZER) -artifact_prefix=$(HOST_DIR)/ -seed=1 -max_len=4096 -runs=$(FUZZ_SMOKE_RUNS)

fuzz: $(HOST_FUZZER)
	@mkdir -p $(HOST_DIR)/corpus
	$(HOST_FUZZER) -artifact_prefix=$(HOST_DIR)/ -max_len=4096 -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(HOST_DIR)/corpus

bench-fdmap: $(HOST_BENCH)
	$(HOST_BENCH)
