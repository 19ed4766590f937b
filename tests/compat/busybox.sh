# The busybox compatibility script (test compat_busybox): run by
# /bin/busybox sh in an empty scratch directory, on the host at build time
# and inside fdkernel; the outputs must be equal.  Print only what is the
# same on both: no times, pids or kernel names.  Each "== NAME" line starts
# a section, compared on its own.
echo "== shell arithmetic, test, expr, true/false"
echo $((1+2)) $((7*6)) $((1<<10))
test 3 -gt 2 && echo gt; [ a = b ] || echo ne
expr 6 \* 7; expr length hello
true; echo "true $?"; false; echo "false $?"
sh -c 'exit 7'; echo "exit $?"

echo "== printf, seq, basename, dirname"
printf '%s-%d-%x\n' a 42 255
seq 3; seq 2 2 8 | tr '\n' ' '; echo
basename /a/b/c.txt .txt; dirname /a/b/c.txt

echo "== files: mkdir -p, echo >, cat, wc, ls"
mkdir -p d/e/f
echo one > d/a; echo two >> d/a; printf 'x\ny\nz\n' > d/e/b
cat d/a d/e/b
wc -l d/a; wc -c < d/e/b
ls d; ls -R d | head -20

echo "== ls -l, stat, chmod, touch"
chmod 640 d/a; touch -d '2020-01-02 03:04:05' d/a
ls -l d/a | awk '{print $1, $2, $5, $6, $7, $8, $9}'
stat -c '%a %s %F %n' d/a; stat -c '%a %F %n' d/e
touch d/new; stat -c '%s %F' d/new

echo "== cp -r, mv, rm -r, ln -s, readlink"
cp -r d d2; ls d2 d2/e
mv d2/a d2/moved; ls d2
ln -s ../d/a d2/link; readlink d2/link; cat d2/link
ls -l d2/link | awk '{print $1, $9, $10, $11}'
rm -r d2; ls

echo "== text tools: grep, head, tail, sort, uniq, cut, tr, sed, awk"
printf 'banana 3\napple 1\ncherry 2\napple 1\n' > t
grep an t; grep -c apple t; grep -v apple t
head -n 2 t; tail -n 1 t
sort t | uniq; sort -k2 -n t | uniq -c
cut -d' ' -f1 t | tr a-z A-Z
sed 's/apple/APPLE/; /cherry/d' t
awk '{s += $2} END {print NR, s}' t

echo "== find, xargs"
find d -type f | sort
find d -name b -exec cat {} \;
find d -type f | sort | xargs wc -l
echo a b c | xargs -n 1 echo item

echo "== pipes and redirections"
seq 1 1000 | grep 7 | wc -l
seq 5 | sort -r | head -2
{ echo out; echo err >&2; } 2>&1 | sort
cat < t | wc -w

echo "== FIFOs, /proc/<pid>/fd"
mkfifo p; stat -c '%F %a' p
cat p & echo hi > p; wait
rm p
exec 5</dev/null 6>/dev/null
# The shell's pipe to awk comes and goes while ls reads the directory (on
# Linux too): a vanished entry's error is not part of the comparison.
ls -l /proc/$$/fd 2>/dev/null | awk '$(NF-1) == "->" && ($(NF-2) == 5 || $(NF-2) == 6) {print $1, $(NF-2), $(NF-1), $NF}'
readlink /proc/$$/fd/5; ls /proc/$$/fd 2>/dev/null | grep -c '^6$'
exec 5<&- 6>&-

echo "== env, id, uname, date, sleep"
env -i A=1 B=2 env | sort
id; id -u; id -gn
uname -m
[ "$(date +%s)" -gt 1600000000 ] && echo date ok
date -u -d @0 '+%Y-%m-%d %H:%M:%S'
sleep 0.1 && echo slept

echo "== functions, loops, case, traps"
f() { local x=$1; echo "f($x)"; return $((x % 2)); }
for i in 1 2 3; do f $i && echo even || echo odd; done
n=0; while [ $n -lt 3 ]; do n=$((n+1)); done; echo "n=$n"
case hello in h*) echo matched;; *) echo no;; esac
trap 'echo trapped USR1' USR1; kill -USR1 $$
(trap 'echo exiting' EXIT; echo sub)

echo "== background jobs and wait"
(sleep 0.2; echo late) & (echo early) & wait
# ash's "Terminated" notice (stderr) comes from whichever wait sees the
# death first: the status is what is compared.
sleep 5 & pid=$!; kill $pid; wait $pid 2>/dev/null; echo "killed $?"
sh -c 'kill -9 $$'; echo "self-killed $?"

echo "== job control: stopped and continued jobs"
# The status is the kernel's; ash's "Killed" notice (stderr) is its own
# bookkeeping of which wait saw the death first: once in a loaded CI run
# the guest's did not print it.
sleep 30 & pid=$!; kill -STOP $pid; kill -KILL $pid; wait $pid 2>/dev/null; echo "killed while stopped $?"
sh -c 'kill -STOP $$; echo resumed' & pid=$!
(while kill -CONT $pid 2>/dev/null; do sleep 0.1; done) &
wait $pid; echo "continued $?"; wait

echo "== archives: tar, gzip"
tar cf a.tar d; rm -r d; tar xf a.tar; find d | sort
gzip a.tar; ls a.tar.gz; gunzip a.tar.gz; tar tf a.tar | sort
rm a.tar t

echo "== here-documents, read, IFS"
cat <<END
line $((2*3))
END
printf 'a:b:c\n' | { IFS=: read x y z; echo "$z$y$x"; }
while read -r w n; do echo "$n=$w"; done <<END
apple 1
pear 2
END
echo "== cmp, diff, od, md5sum, sha256sum"
printf 'abc\n' > p; printf 'abd\n' > q
cmp p q; echo "cmp $?"
diff p q | tail -2
od -c p | head -1
md5sum p; sha256sum q
rm p q
echo "== TCP loopback with nc"
# The listener may take a moment to start (long on a loaded machine):
# retry a refused connection for up to a minute.  The port is the
# shell's own, so that two runs on one host do not meet.
port=$((20000 + $$ % 20000))
nc -l -p $port > got &
for i in $(seq 300); do
	echo "over tcp" | nc -w 1 127.0.0.1 $port 2>/dev/null && break
	sleep 0.2
done
wait; cat got; rm got
echo "== uname -a"
[ "$(uname -a)" = "$(uname -s) $(uname -n) $(uname -r) $(uname -v) $(uname -m) $(uname -o)" ] && echo consistent

echo "== free, uptime (figures differ: shapes only)"
free | awk 'NR == 1 {print $1, $2, $3} NR == 2 {print $1, ($2 > 0 && $3 >= 0)}'
uptime | grep -c 'load average'

echo "== df, mount, stat -f, nproc (shapes only)"
df -P / | awk 'NR == 1 {print $1, $2} NR == 2 {print ($2 > 0), ($4 <= $2)}'
mount | awk 'NR == 1 {print $2, $4 ~ /^\//, NF}'
stat -f -c '%l' .
[ "$(nproc)" -ge 1 ] && echo nproc ok

echo "== taskset: a command bound to CPU 0, a shell binding itself"
taskset 1 sh -c 'taskset -p $$' | sed 's/pid [0-9]*/pid N/'
sh -c 'taskset -p 1 $$ >/dev/null && taskset -p $$' | sed 's/pid [0-9]*/pid N/'

echo "== ps, pidof, top (shapes only)"
# The sleep ends by itself: a killed job's "Terminated" note comes when
# the shell happens to notice, so its place in the output varies.  ps
# looks once the child has exec'd sleep (before, it is a copy of sh), and
# 5 s leave a loaded machine time for top.
sleep 5 & sp=$!
n=0
while [ "$(cat /proc/$sp/comm 2>/dev/null)" != sleep ] && [ $((n += 1)) -lt 1000 ]; do
	usleep 10000
done
ps | awk 'NR == 1 {print $1, $NF}'
ps | awk -v p=$sp '$1 == p {print "ps:", $(NF-1), $NF}'
pidof sleep | tr ' ' '\n' | grep -qx $sp && echo pidof ok
top -bn1 | awk -v p=$sp '$1 == p {print "top:", $2 == '$$', $(NF-1), $NF}'
wait $sp; echo "waited $?"
ps | awk -v p=$sp '$1 == p' | wc -l

echo "== /proc/self/maps (shapes only)"
cat /proc/self/maps | awk '/\[stack\]$/ {print $2, $3, $4, $5, $6}'
cat /proc/self/maps | awk 'NF < 5 || $1 !~ /^[0-9a-f]+-[0-9a-f]+$/ {bad++} END {print "bad lines:", bad+0}'
cat /proc/self/maps | awk '$2 ~ /x/ && $6 ~ /busybox$/ {n++} END {print "busybox text:", (n > 0)}'

echo "== renice, ps and top NI (relative to the shell's nice)"
n0=$(cut -d' ' -f19 /proc/$$/stat)
sleep 2 & sp=$!
renice -n 4 -p $sp >/dev/null && echo renice ok
echo "renice: $(( $(cut -d' ' -f19 /proc/$sp/stat) - n0 ))"
ps -o pid,nice | awk -v p=$sp -v n0=$n0 '$1 == p {print "ps NI:", $2 - n0}'
top -bn1 | awk -v p=$sp '$1 == p {print "top: niced", $4 ~ /N/}'
wait $sp

# The checklist of issue 17 (what `make run` must do as on Linux), in a
# directory of its own, w.
echo "== done-when: ls -l columns"
mkdir -p w/e/f; echo one > w/a
chmod 640 w/a; touch -d '2020-01-02 03:04:05' w/a
ls -l w/a | awk '{print $1, $2, $5, $6, $7, $8, $9}'
ls -l w/a | awk -v u=$(id -un) -v g=$(id -gn) '{print "owner", $3 == u, "group", $4 == g}'
ls -ld w w/e w/e/f | awk '{print $1, $2, $NF}'
ln w/a w/hard; ls -l w/a | awk '{print $1, $2}'; rm w/hard
touch w/new; ls -l w/new | awk '{print $1, $2, $5, ($8 ~ /^[0-9][0-9]:[0-9][0-9]$/), $9}'
ls -l /etc/passwd | awk '{print $1, $3, $4, $NF}'
echo "== done-when: date"
date | awk '{print NF}'
[ "$(date -u +%Y)" -ge 2025 ] && echo year ok
date -u -d '2021-03-04 05:06:07' '+%a %b %e %H:%M:%S %Z %Y'
echo "== done-when: mv, ln -s, touch, chmod"
mv w/a w/e/a; ls w w/e; mv w/e/a w/a
echo two > w/b; mv w/b w/a; cat w/a
mv w/e w/e2; ls w; mv w/e2 w/e
ln -s a w/sym; ls -l w/sym | awk '{print $1, $(NF-2), $(NF-1), $NF}'; cat w/sym
ln -s nowhere w/dangling; cat w/dangling 2>/dev/null || echo "dangling fails"
touch -d '2001-02-03 04:05:06' w/a; date -r w/a '+%Y-%m-%d %H:%M:%S'
touch -r w/a w/new; date -r w/new '+%Y-%m-%d %H:%M:%S'
chmod u+x,g-r,o+w w/a; stat -c '%A' w/a
chmod -R go= w; stat -c '%A %n' w w/e w/a
chmod 755 w w/e; chmod 644 w/a
chmod 600 nosuch 2>/dev/null || echo "chmod of a missing file fails"
echo "== done-when: id"
id; id -u; id -g; id -un; id -G
echo "== done-when: find -exec cat"
mkdir -p r/etc r/usr; echo "Welcome" > r/etc/motd; echo other > r/usr/motd
find r -name motd | sort
find r/etc -name motd -exec cat {} \;
echo "== done-when: tar, gzip"
tar czf a.tgz w; tar tzf a.tgz | sort
tar tvzf a.tgz | awk '{print $1, $3, $NF}' | sort -k3
mkdir x; tar xzf a.tgz -C x; find x | sort; cat x/w/a
gzip -c w/a > a.gz; gunzip -c a.gz; gzip -t a.gz && echo "gzip -t ok"
rm -r x a.tgz a.gz r
echo "== done-when: sleep &, jobs, wait"
# Non-interactive ash lists a job without its command text.
sleep 1 &
jobs | awk '{print $1, $2}'
wait; echo "waited $?"
rm -r w

echo "== #! scripts started by execve (env, find -exec, xargs)"
printf '#!/bin/busybox sh\necho "script $# $1"\n' > s.sh; chmod 755 s.sh
env ./s.sh one; find . -name s.sh -exec {} two \;; echo three | xargs ./s.sh
printf '#!/nonexistent/sh\n' > bad.sh; chmod 755 bad.sh
env ./bad.sh 2>/dev/null; echo "missing interpreter $?"
rm s.sh bad.sh

echo "== mount, df, umount, chroot, mount --bind: a tmpfs of its own (issue 30)"
# On the host this needs root and runs in a mount namespace of its own
# (unshare -m), so nothing it mounts is seen outside; fdkernel has one.
cat > mounts.sh <<'END'
mount --make-rprivate / 2>/dev/null
mkdir m c
mount -t tmpfs -o size=1m none m && echo "mounted"
grep -c " $PWD/m tmpfs rw.*size=1024k" /proc/mounts
dd if=/dev/zero of=m/f bs=1k count=2000 2>&1 | grep -c 'No space left'
stat -c '%s' m/f
df -k m | awk 'NR == 2 {print $2, $3, $4, $5}'
echo x > other && cat other && rm other
mount -o remount,ro m && echo "remounted ro"
touch m/g 2>&1 | grep -c 'Read-only file system'
mount -o remount,rw m && touch m/g && echo "writable again"
mkdir b && mount --bind m b && echo "bound"; ls b
mount -o remount,bind,ro b && echo "the bind read-only"
touch b/h 2>&1 | grep -c 'Read-only file system'; touch m/h && ls b
grep -c " $PWD/b tmpfs ro" /proc/mounts
(cd b && umount "$PWD" 2>&1 | grep -c 'busy')
umount b && echo "bind unmounted"; ls b; rmdir b && rm m/h
unshare -m sh -c 'mount -t tmpfs none m && touch m/only-here && ls m' && echo "a namespace of its own"
ls m; grep -c " $PWD/m tmpfs" /proc/mounts
(cd m && umount "$PWD" 2>&1 | grep -c 'busy')
umount m && echo "unmounted"; ls m
grep -c " $PWD/m " /proc/mounts
mount -t tmpfs none c && cp /bin/busybox c/ && mkdir c/etc && echo inside > c/etc/w
chroot c /busybox sh -c 'cd /..; /busybox pwd; /busybox cat /etc/w; /busybox ls /'
umount c && echo "chroot's tmpfs unmounted"
rmdir m c
END
if uname -r | grep -q fdkernel; then sh mounts.sh; else unshare -m sh mounts.sh; fi
rm mounts.sh

echo "== cleanup"
rm -r d; ls
