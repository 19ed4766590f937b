# gdb setup for fdkernel (used by `make debug` and tests/harness/gdb-check).
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

# User programs: `ubreak PROGRAM FUNCTION` loads the symbols of
# build/user/{bin,tests,bench}/PROGRAM and stops in FUNCTION when that
# program runs it.  Every program is static and linked at the same
# addresses, so the breakpoint checks the running task's name (cpu0.current:
# one CPU).  Load one program's symbols per session: a second program's
# main would make `main` ambiguous.
python
import os

class UBreak(gdb.Command):
    """ubreak PROGRAM FUNCTION: stop in FUNCTION of user program PROGRAM."""

    def __init__(self):
        super().__init__("ubreak", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) != 2:
            raise gdb.GdbError("usage: ubreak PROGRAM FUNCTION")
        prog, func = argv
        paths = [os.path.join("build/user", d, prog) for d in ("bin", "tests", "bench")]
        found = [p for p in paths if os.path.isfile(p)]
        if not found:
            raise gdb.GdbError("ubreak: no program %s in build/user/{bin,tests,bench}" % prog)
        gdb.execute("add-symbol-file %s" % found[0])
        gdb.execute('hbreak %s if $_streq(cpu0.current->name, "%s")' % (func, prog))

UBreak()
end
