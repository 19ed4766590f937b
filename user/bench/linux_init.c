/* /init of the Linux guest of `make bench` (bench/bench.mk): prepares the
 * system like fdkernel's, runs `/bin/init bench` (the same init.c as on
 * fdkernel, so the benchmarks start the same way), then powers off. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Linux-only calls and values our libc has no names for. */
#define NR_MOUNT	    165
#define NR_REBOOT	    169
#define NR_SYNC		    162
#define NR_FINIT_MODULE	    313
#define REBOOT_MAGIC1	    0xfee1deadUL
#define REBOOT_MAGIC2	    672274793UL
#define REBOOT_CMD_POWEROFF 0x4321fedcUL
#define LINUX_AF_INET	    2
#define LINUX_SOCK_DGRAM    2
#define SIOCGIFFLAGS	    0x8913
#define SIOCSIFFLAGS	    0x8914
#define IFF_UP		    0x1

#define NOFILE_MAX 1048576 /* Linux's default fs.nr_open */

extern char **environ;

/* struct ifreq, reduced to the name and the flags (40 bytes on x86_64). */
struct ifreq_flags {
	char name[16];
	short flags;
	char pad[22];
};

static void warn(const char *what)
{
	printf("# linux-init: %s: %s\n", what, strerror(errno));
}

static void mount_fs(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (syscall(NR_MOUNT, type, dir, type, 0, NULL) < 0)
		warn(dir);
}

/* The kernel found no /dev/console in the initramfs: take it from devtmpfs. */
static void open_console(void)
{
	int fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

/* Loopback up, for the socket benchmarks: SIOCSIFFLAGS |= IFF_UP on "lo". */
static void loopback_up(void)
{
	struct ifreq_flags ifr = {.name = "lo"};
	long s = syscall(__NR_socket, LINUX_AF_INET, LINUX_SOCK_DGRAM, 0);
	if (s < 0 || syscall(__NR_ioctl, s, SIOCGIFFLAGS, &ifr) < 0) {
		warn("lo");
		return;
	}
	ifr.flags |= IFF_UP;
	if (syscall(__NR_ioctl, s, SIOCSIFFLAGS, &ifr) < 0)
		warn("lo up");
	close((int)s);
}

/* Prints the CPU-bug mitigations Linux chose (they cost it time under TCG:
 * docs/bench.md), one comment line each, from /sys. */
static void print_mitigations(void)
{
	static const char *const bugs[] = {"meltdown",		"spectre_v1", "spectre_v2",
					   "spec_store_bypass", "retbleed",   "mds"};
	char path[96], line[160];

	for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++) {
		snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", bugs[i]);
		FILE *f = fopen(path, "r");
		if (f && fgets(line, sizeof line, f))
			printf("# linux: %s: %s", bugs[i], line);
		if (f)
			fclose(f);
	}
}

/* Loads the modules bench/run put in /modules (virtio_pci, virtio_blk
 * and what they need, for bench_blk's disk; loop for bench_loop), in the order of
 * /modules/order: Debian builds them as modules, not into the kernel. */
static void load_modules(void)
{
	FILE *order = fopen("/modules/order", "r");
	char name[64], path[96];

	while (order && fscanf(order, "%63s", name) == 1) {
		snprintf(path, sizeof path, "/modules/%s.ko", name);
		int fd = open(path, O_RDONLY);
		if (fd < 0 || syscall(NR_FINIT_MODULE, fd, "", 0) < 0)
			warn(path);
		if (fd >= 0)
			close(fd);
	}
	if (order)
		fclose(order);
}

/* Runs /bin/init bench and returns its wait status (-1: not started). */
static int run_benchmarks(void)
{
	char *argv[] = {"/bin/init", "bench", NULL};
	int status;
	pid_t pid = fork();
	if (pid == 0) {
		execve(argv[0], argv, environ);
		warn(argv[0]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(void)
{
	struct rlimit nofile = {NOFILE_MAX, NOFILE_MAX};

	mount_fs("devtmpfs", "/dev");
	open_console();
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	print_mitigations();
	load_modules();
	loopback_up();
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0)
		warn("setrlimit RLIMIT_NOFILE");
	printf("# linux-init: /bin/init bench ended with wait status %d\n", run_benchmarks());
	fflush(stdout);
	syscall(NR_SYNC);
	syscall(NR_REBOOT, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_CMD_POWEROFF, NULL);
	warn("power off");
	return 1;
}
