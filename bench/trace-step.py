# gdb script of bench/trace: stop at the SKIP-th hit of FN, then record the
# address of every instruction until FN's address comes round again (LAPS
# times: a row whose loop has a longer period, such as a batch of datagrams).
import gdb, os

fn, skip, most = os.environ["FN"], int(os.environ["SKIP"]), int(os.environ["MAX"])
laps = int(os.environ.get("LAPS", "1"))
gdb.execute("hbreak " + fn)
for _ in range(skip):
    gdb.execute("continue", to_string=True)
start = int(gdb.parse_and_eval("$pc"))
pcs = [start]
for _ in range(most):
    gdb.execute("stepi", to_string=True)
    pc = int(gdb.parse_and_eval("$pc"))
    if pc == start:
        laps -= 1
        if laps == 0:
            break
    pcs.append(pc)
with open(os.environ["OUT"], "w") as f:
    f.writelines("%x\n" % pc for pc in pcs)
gdb.execute("kill")
