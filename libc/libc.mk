# The newlib port (docs/libc.md): newlib built once from Debian's
# newlib-source into $(SYSROOT), plus our headers, crt0.o and the syscall
# glue (libsys.a) installed next to it.  User programs build against it.

SYSROOT := $(BUILD)/sysroot
NEWLIB_TARBALL := $(firstword $(wildcard /usr/src/newlib/newlib-*.tar.xz) \
	/usr/src/newlib/newlib-3.3.0.tar.xz)
NEWLIB_STAMP := $(BUILD)/newlib.stamp
GCC_INCLUDE := $(shell $(CC) -print-file-name=include)

# Built once; only a changed script or patch rebuilds it.  The script removes
# the old sysroot first and renames a fresh one in place only on success.
$(NEWLIB_STAMP): libc/build-newlib.sh $(wildcard libc/newlib-*.patch) | deps
	@rm -f $@
	@echo "NEWLIB   $(SYSROOT) (log: $(BUILD)/newlib-build.log)"
	@libc/build-newlib.sh $(NEWLIB_TARBALL) $(BUILD) $(SYSROOT)
	@touch $@

# Our headers and the shared kernel/uapi ones, copied over newlib's.
LIBC_HEADERS := $(patsubst libc/include/%,$(SYSROOT)/include/%,\
	$(shell find libc/include -name '*.h')) \
	$(patsubst kernel/uapi/%,$(SYSROOT)/include/uapi/%,$(wildcard kernel/uapi/*.h))

$(SYSROOT)/include/uapi/%.h: kernel/uapi/%.h $(NEWLIB_STAMP)
	@install -D -m 644 $< $@

$(SYSROOT)/include/%.h: libc/include/%.h $(NEWLIB_STAMP)
	@install -D -m 644 $< $@

# The glue: freestanding-style objects against the sysroot's headers.
LIBC_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -nostdinc \
	-isystem $(GCC_INCLUDE) -isystem $(SYSROOT)/include \
	-fno-pie -fno-pic -fno-stack-protector -fcf-protection=none \
	-ffunction-sections -fdata-sections -MMD -MP

LIBC_SRCS := $(wildcard libc/sys/*.c)
LIBC_OBJS := $(patsubst libc/%.c,$(BUILD)/libc/%.o,$(LIBC_SRCS))
LIBSYS := $(SYSROOT)/lib/libsys.a
CRT0 := $(SYSROOT)/lib/crt0.o

$(BUILD)/libc/%.o: libc/%.c | $(LIBC_HEADERS)
	@mkdir -p $(@D)
	@echo "CC       $<"
	@$(CC) $(LIBC_CFLAGS) -c $< -o $@

$(BUILD)/libc/%.o: libc/%.S | $(NEWLIB_STAMP)
	@mkdir -p $(@D)
	@echo "AS       $<"
	@$(CC) $(LIBC_CFLAGS) -c $< -o $@

$(LIBSYS): $(LIBC_OBJS) $(NEWLIB_STAMP)
	@echo "AR       $@"
	@rm -f $@ && ar rcs $@ $(LIBC_OBJS)

$(CRT0): $(BUILD)/libc/crt0.o $(NEWLIB_STAMP)
	@cp $< $@

# Everything a user program needs to compile and link.
LIBC_DEPS := $(NEWLIB_STAMP) $(LIBC_HEADERS) $(LIBSYS) $(CRT0)

.PHONY: libc
libc: $(LIBC_DEPS)

-include $(LIBC_OBJS:.o=.d) $(BUILD)/libc/crt0.d
