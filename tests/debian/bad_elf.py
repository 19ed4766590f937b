# python3 bad_elf.py: broken programs and shared objects made from Debian's
# own (copies of /usr/bin/true and libm.so.6, changed one way at a time),
# for tests/debian/check.  Each is run and what a user sees is printed:
# execve's errno, or the exit status or signal and what ld.so wrote to
# stderr.  The kernel's part is execve's checks of the program and its
# interpreter and the mappings ld.so then makes of a library (a segment
# past the end of the file: SIGBUS on touching it); ld.so's part is its
# messages, which must reach stderr whole.  Then LD_PRELOAD for a setuid
# program run by a user: ld.so ignores it there (AT_SECURE) and libc
# drops it from the environment; /tmp is nosuid (as Debian 12 mounts it,
# and the host's run too), so that program lives in /var/tmp, and its copy
# in /tmp runs with the user's ids.
#
# Not here, as fdkernel differs: a program (not a library) whose segments
# reach past the end of its file or overlap: Linux maps them and the
# program dies of SIGSEGV or SIGBUS, fdkernel's execve refuses them with
# ENOEXEC (tests/newlib/exec_bad_elf; docs/linux-abi.md).
import os
import shutil
import struct
import subprocess

TMP = "/tmp/bad-elf"
LIBM = "/usr/lib/x86_64-linux-gnu/libm.so.6"
EM_AARCH64 = 183
PT_LOAD, PT_INTERP = 1, 3


def phdrs(b):
    """(offset of the header, p_type, p_offset, p_vaddr, p_filesz) each."""
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", b, at)
        yield at, p_type, p_offset, p_vaddr, p_filesz


def make(name, src, change=None, size=None, mode=0o755, where=TMP):
    b = bytearray(open(src, "rb").read())
    if change:
        change(b)
    path = os.path.join(where, name)
    with open(path, "wb") as f:
        f.write(b[:size])
    os.chmod(path, mode)
    return path


def machine(b):
    struct.pack_into("<H", b, 18, EM_AARCH64)


def class32(b):
    b[4] = 1


def interp(name):
    """Names name as the interpreter, in the room of the old one."""
    def change(b):
        for _, p_type, p_offset, _, p_filesz in phdrs(b):
            if p_type == PT_INTERP:
                assert len(name) < p_filesz
                b[p_offset:p_offset + p_filesz] = name.encode().ljust(p_filesz, b"\0")
    return change


def overlap(b):
    """The second PT_LOAD moved onto the first's addresses."""
    loads = [p for p in phdrs(b) if p[1] == PT_LOAD]
    first, second = loads[0], loads[1]
    delta = second[3] - first[3]
    struct.pack_into("<QQ", b, second[0] + 8, second[2] - delta, first[3])
    struct.pack_into("<Q", b, second[0] + 24, first[3])


def show(what, argv, env=None):
    try:
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    except OSError as e:
        print("%s: execve: %s" % (what, os.strerror(e.errno)))
        return
    rc = r.returncode
    how = "exit %d" % rc if rc >= 0 else "killed by signal %d" % -rc
    print("%s: %s" % (what, how))
    for line in (r.stdout + r.stderr).splitlines():
        print("  " + line)


shutil.rmtree(TMP, ignore_errors=True)
os.mkdir(TMP)
os.mkdir(TMP + "/lib")

print("-- programs, run with execve")
for name, change, size, mode in [
        ("copy", None, None, 0o755),
        ("interp-dir", interp("/tmp"), None, 0o755),
        ("interp-missing", interp("/nonexistent"), None, 0o755),
        ("interp-dynamic", interp("/usr/bin/true"), None, 0o755),
        ("interp-self", interp(TMP + "/interp-self"), None, 0o755),
        ("aarch64", machine, None, 0o755),
        ("elfclass32", class32, None, 0o755),
        ("header-only", None, 64, 0o755),
        ("not-executable", None, None, 0o644)]:
    show(name, [make(name, "/usr/bin/true", change, size, mode)])

print("-- run by ld.so itself, which maps them")
make("truncated", "/usr/bin/true", None, 0x2800)
make("overlapping", "/usr/bin/true", overlap)
for name in ["aarch64", "elfclass32", "header-only", "truncated", "overlapping"]:
    show(name, ["/lib64/ld-linux-x86-64.so.2", os.path.join(TMP, name)])

print("-- libraries, preloaded into /usr/bin/true")
env = {"PATH": "/usr/bin"}
for name, change, size in [
        ("copy.so", None, None),
        ("empty.so", None, 0),
        ("header-only.so", None, 64),
        ("truncated.so", None, 0x3000),
        ("aarch64.so", machine, None),
        ("elfclass32.so", class32, None),
        ("overlapping.so", overlap, None)]:
    show(name, ["/usr/bin/true"], dict(env, LD_PRELOAD=make(name, LIBM, change, size, 0o644)))
show("missing.so", ["/usr/bin/true"], dict(env, LD_PRELOAD="/nonexistent/missing.so"))
show("a directory", ["/usr/bin/true"], dict(env, LD_PRELOAD=TMP))
print("-- a needed library (libm.so.6 of python3) cut short, by LD_LIBRARY_PATH")
make("lib/libm.so.6", LIBM, None, 0x3000, 0o644)
show("python3", ["/usr/bin/python3", "-c", "pass"], dict(env, LD_LIBRARY_PATH=TMP + "/lib"))

print("-- LD_PRELOAD and LD_LIBRARY_PATH for user 1000: env, setuid root, on nosuid /tmp")
suid = make("bad-elf-suid-env", "/usr/bin/env", mode=0o4755, where="/var/tmp")
nosuid = make("suid-env", "/usr/bin/env", mode=0o4755)
# setpriv becomes the user, env sets the variables: neither sees them.
user = ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "env",
        "LD_PRELOAD=/nonexistent/missing.so", "LD_LIBRARY_PATH=" + TMP + "/lib"]
show("env", user + ["/usr/bin/env"], env)
show("setuid env", user + [suid], env)
show("setuid id", user + [suid, "id"], env)
show("setuid id on /tmp", user + [nosuid, "id"], env)
os.unlink(suid)
shutil.rmtree(TMP)
