#!/usr/bin/env python3
"""The seed's argument in a real runtime: a library opens 10,000 sockets
behind a program's back, first as every library does today (the lowest free
fds), then through fdkernel's syscall_indirect(SYSIND_NONSEQFD |
SYSIND_CLOEXEC).  Each time the program then opens a file, selects on it,
closes "all other fds" the way daemons do, and runs a child with
subprocess; the script prints what the program sees.  On Linux
syscall_indirect is ENOSYS and only the first half runs.  An argument
"plain" or "nonseq" runs one half.  docs/nonseq-demo.md shows the output
and what it means."""
import ctypes
import os
import resource
import select
import socket
import subprocess
import sys

N = 10000
SYS_SOCKET = 41
SYS_SYSCALL_INDIRECT = 1001  # fdkernel's number, above Linux's table
SYSIND_NONSEQFD, SYSIND_CLOEXEC = 1, 2

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def nonseq_socket():
    """socket(AF_UNIX, SOCK_STREAM) with the per-call flags of the seed."""
    args = (ctypes.c_ulong * 6)(socket.AF_UNIX, socket.SOCK_STREAM, 0, 0, 0, 0)
    fd = libc.syscall(ctypes.c_long(SYS_SYSCALL_INDIRECT),
                      ctypes.c_ulong(SYSIND_NONSEQFD | SYSIND_CLOEXEC),
                      ctypes.c_ulong(0), ctypes.c_long(SYS_SOCKET), args)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return fd


def plain_socket():
    """What a library does today: Python's socket, close-on-exec (PEP 446)."""
    return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).detach()


def alive(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def program(lib_fds):
    """The program's side: it knows nothing of the library's sockets."""
    fd = os.open("/dev/null", os.O_RDONLY)
    print(f"  program's open(\"/dev/null\") got fd {fd}")
    try:
        select.select([fd], [], [], 0)
        print("  select() on it: works")
    except ValueError as e:
        print(f"  select() on it: ValueError: {e}")
    child = subprocess.run(
        [sys.executable, "-c",
         "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"],
        close_fds=True, capture_output=True, text=True, check=True)
    print(f"  a subprocess child (close_fds=True) has fds {child.stdout.strip()}")
    os.close(fd)
    os.closerange(3, 256)  # a daemon's "close every fd I did not open"
    lost = sum(1 for f in lib_fds if not alive(f))
    print(f"  the program's closerange(3, 256): the library lost {lost} of its {len(lib_fds)} sockets")


def run(name, make):
    print(f"{name}:")
    try:
        lib_fds = [make() for _ in range(N)]
    except OSError as e:
        print(f"  not available here: {e.strerror}")
        return
    print(f"  the library's {N} sockets: fds {min(lib_fds)} to {max(lib_fds)}")
    program(lib_fds)
    for f in lib_fds:
        if alive(f):
            os.close(f)


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    os.closerange(3, soft)  # what we inherited (make's jobserver...): start equal
    want = N + 100
    if hard != resource.RLIM_INFINITY and hard < want:
        sys.exit(f"RLIMIT_NOFILE's hard limit {hard} is below {want}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    halves = sys.argv[1:] or ["plain", "nonseq"]  # the test runs them apart
    if "plain" in halves:
        run("sockets from the lowest free fds (every kernel)", plain_socket)
    if "nonseq" in halves:
        run("sockets from the non-sequential area (syscall_indirect, fdkernel)",
            nonseq_socket)


if __name__ == "__main__":
    main()
