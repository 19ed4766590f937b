# python3 jobctl.py: an interactive bash on a pseudo-terminal, driven as a
# user at a keyboard would, for tests/debian/check.  bash takes the
# terminal (its own process group in the foreground, tcsetpgrp), a
# background job runs, Ctrl-Z (the line discipline's SIGTSTP to the
# foreground group) stops a foreground job, bg and fg move it, Ctrl-C
# (SIGINT) ends one, a background reader of the terminal is stopped by
# SIGTTIN and reads on once fg gives it the terminal, and wait collects
# a background job.  Each step waits for the
# prompt, or for a job's own READY line before a key is sent, so no step
# depends on speed.  Pids are printed as PID; the transcript is the test.
import os
import pty
import re
import select
import sys
import time

PROMPT = "PROMPT> "
GO = "/tmp/jobctl-go"
JOB = "python3 " + os.path.abspath(__file__) + " job"


def job():
    """The job: READY, then, once GO exists, whether it has the terminal
    (fg makes the job the foreground group: the file may come first)."""
    print("READY", flush=True)
    end = time.monotonic() + 600
    while not os.path.exists(GO) and time.monotonic() < end:
        time.sleep(0.02)
    while os.tcgetpgrp(0) != os.getpgrp() and time.monotonic() < end:
        time.sleep(0.02)
    print("foreground" if os.tcgetpgrp(0) == os.getpgrp() else "background")


if sys.argv[1:] == ["job"]:
    job()
    sys.exit(0)

pid, master = pty.fork()
if pid == 0:
    os.environ.update(PS1=PROMPT, TERM="dumb", PS2="")
    os.execvp("bash", ["bash", "--norc", "--noprofile", "--noediting", "-i"])

buf = ""


def read_until(text, limit=600):
    """What the terminal shows up to and including text (the limit only
    turns a hang into an error)."""
    global buf
    end = time.monotonic() + limit
    while text not in buf:
        left = end - time.monotonic()
        if left <= 0 or not select.select([master], [], [], left)[0]:
            sys.exit("jobctl: no %r after %r" % (text, buf))
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: bash has gone
            data = b""
        if not data:
            sys.exit("jobctl: the terminal closed before %r, after %r" % (text, buf))
        buf += data.decode(errors="replace").replace("\r", "")
    out, buf = buf.split(text, 1)
    return out + text


def show(out):
    out = re.sub(r"^(\[\d+\]) \d+$", r"\1 PID", out, flags=re.M)
    for line in out.splitlines():
        print("|", line)


def run(cmd, until=PROMPT):
    print("$", cmd.replace(JOB, "JOB"))
    os.write(master, cmd.encode() + b"\n")
    show(read_until(until))


def key(k, name, until=PROMPT):
    print("key", name)
    os.write(master, k)
    show(read_until(until))


read_until(PROMPT)
run("stty -echo; set +b; echo job control: $(set -o | grep -w monitor)")
run("sleep 30 &")
run("jobs")
run(JOB, until="READY\n")
key(b"\x1a", "Ctrl-Z")
run("jobs")
run("bg %2")
run("jobs")
run("fg %2", until="\n")
open(GO, "w").close()
show(read_until(PROMPT))
run('echo "fg status $?"; rm ' + GO)
run("sh -c 'echo READY; exec sleep 60'; echo not printed", until="READY\n")
key(b"\x03", "Ctrl-C")
run("echo status $?")
# cat reads the terminal from the background: SIGTTIN stops it.  bash
# tells of the stop at the first prompt after it sees it, or in a jobs
# listing, whichever comes first: only the job's number is shown, then
# jobs is asked until it has seen the stop, then once more.
print("$ cat &")
os.write(master, b"cat &\n")
show(read_until(PROMPT).splitlines()[0])
out = ""
for _ in range(1200):
    if "Stopped" in out:
        break
    time.sleep(0.1)
    os.write(master, b"jobs %cat\n")
    out = read_until(PROMPT)
run("jobs %cat")
# fg gives it the terminal: its read goes on and sees what is typed.
run("fg %cat", until="\n")
key(b"typed for cat\n\x04", "a line and Ctrl-D")
run("echo status $?")
run("kill %1; wait %1; echo status $?")
run("sleep 0.1 & wait $!; echo status $?")
run("jobs; echo no jobs left")
os.write(master, b"exit\n")
_, status = os.waitpid(pid, 0)
print("bash exit", os.waitstatus_to_exitcode(status))
