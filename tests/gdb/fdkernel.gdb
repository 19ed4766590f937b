# gdb setup for fdkernel (used by `make debug` and tests/gdb-check).
# Hardware breakpoints: GRUB overwrites memory where software breakpoints
# set before the kernel loads would sit (and KVM needs them anyway).
set architecture i386:x86-64
set pagination off
set confirm off
define kbreak
	hbreak $arg0
end
document kbreak
Hardware breakpoint on a kernel function: kbreak kmain
end
