# bench/trace's summary: addresses (one per line, hex) -> instructions per
# function, from the kernel's and the user program's symbol tables.
#   python3 bench/trace-sum.py ADDRESSES KERNEL_ELF USER_ELF
import bisect, collections, os, re, subprocess, sys

KERNEL_HALF = 0xFFFFFFFF80000000


def symbols(elf, kernel):
    out = subprocess.run(["nm", "-n", elf], capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW" and (int(f[0], 16) >= KERNEL_HALF) == kernel:
            syms.append((int(f[0], 16), f[2]))
    return [a for a, _ in syms], [n for _, n in syms]


pcs = [int(line, 16) for line in open(sys.argv[1])]
tables = {True: symbols(sys.argv[2], True), False: symbols(sys.argv[3], False)}


def name(pc):
    addrs, names = tables[pc >= KERNEL_HALF]
    i = bisect.bisect_right(addrs, pc) - 1
    # User code far from every symbol of PROGRAM: another program or a
    # shared library (bench_debian's Debian binaries), unnamed.
    if pc < KERNEL_HALF and (i < 0 or pc - addrs[i] > 1 << 20):
        return "[user: not PROGRAM]"
    return names[i] if i >= 0 else "?%x" % pc


counts, order, runs = collections.Counter(), [], []
for pc in pcs:
    n = name(pc)
    counts[n] += 1
    if n not in order:
        order.append(n)
    if runs and runs[-1][0] == n:
        runs[-1][1] += 1
    else:
        runs.append([n, 1])


def disassembly(elfs):
    """Address -> instruction text, from objdump of each ELF."""
    text = {}
    for elf in elfs:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
            if m:
                text[int(m.group(1), 16)] = m.group(2)
    return text


print("%d instructions" % len(pcs))
if os.environ.get("INSNS"):
    text = disassembly(sys.argv[2:4])
    for pc in pcs:
        print("  %-24s %s" % (name(pc)[:24], text.get(pc, "?")))
if os.environ.get("RUNS"):
    for n, k in runs:
        print("  run %5d %s" % (k, n))
for n in order:
    print("%6d %s" % (counts[n], n))
