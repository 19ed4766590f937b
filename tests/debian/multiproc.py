# python3 multiproc.py METHOD: multiprocessing with the start method
# METHOD (fork or forkserver), for tests/debian/check.  A forkserver child
# imports this file as its __main__, so it must be a file (not python3 -)
# and its work must be under the __name__ guard.  What it leans on: POSIX
# semaphores (sem_open: files in /dev/shm, a tmpfs), pipes and a thread
# behind a Queue, shared memory (shm_open, MAP_SHARED) under a Lock, fds
# sent over AF_UNIX (SCM_RIGHTS) to and from the fork server, and Python's
# resource tracker, which must find nothing left to clean up.
import gc
import multiprocessing as mp
import os
import signal
import sys
from multiprocessing import shared_memory


def square(x):
    return x * x


def produce(q, n):
    for i in range(n):
        q.put(i)
    q.put(None)


def add(total, lock, n):
    for _ in range(n):
        with lock:
            total.value += 1


def fill(name, size):
    shm = shared_memory.SharedMemory(name=name)
    shm.buf[:size] = bytes(range(size))
    shm.close()


def sems():
    return {n for n in os.listdir("/dev/shm") if n.startswith("sem.mp-")}


# The waits' limits (600 s) only turn a hang into an error; the guest's
# whole run has 900 s.
def work(ctx):
    with ctx.Pool(4) as pool:
        print("pool map", sum(pool.map(square, range(1000))), pool.map(square, range(8)))
        print("imap_unordered", sorted(pool.imap_unordered(square, range(10), chunksize=3)))
        print("a worker is another process", pool.apply_async(os.getpid).get(600) != os.getpid())
    q = ctx.Queue()
    p = ctx.Process(target=produce, args=(q, 3000))
    p.start()
    got = list(iter(lambda: q.get(timeout=600), None))
    p.join()
    print("queue", len(got), got == list(range(3000)), "exit", p.exitcode)
    total, lock = ctx.Value("i", 0), ctx.Lock()
    ps = [ctx.Process(target=add, args=(total, lock, 300)) for _ in range(4)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    print("a Value under a Lock", total.value, [p.exitcode for p in ps])
    shm = shared_memory.SharedMemory(create=True, size=256)
    p = ctx.Process(target=fill, args=(shm.name, 256))
    p.start()
    p.join()
    print("shared memory", bytes(shm.buf[:256]) == bytes(range(256)), p.exitcode)
    shm.close()
    shm.unlink()
    p = ctx.Process(target=signal.pause)
    p.start()
    p.terminate()
    p.join()
    print("terminated", p.exitcode == -signal.SIGTERM)


def main(method):
    ctx = mp.get_context(method)
    before = sems()
    print(method, "start method:", ctx.get_start_method())
    work(ctx)
    gc.collect()  # the semaphores' finalizers unlink those still named
    print("semaphores left in /dev/shm:", len(sems() - before))


if __name__ == "__main__":
    main(sys.argv[1])
