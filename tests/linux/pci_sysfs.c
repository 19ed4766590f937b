/* /sys/bus/pci as Linux lays it out, checked against each function's own
 * configuration space (the first 64 bytes, which Linux lets anyone read):
 * vendor, device, class, revision, subsystem ids, the BARs in resource,
 * uevent's lines (what busybox lspci reads), and the links between
 * /sys/bus/pci/devices, /sys/devices and the drivers.  The assertions are
 * structural, so the host's own bus passes them too; on fdkernel (QEMU
 * q35) the host bridge and the ISA bridge must be among the functions. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_FNS 256

static int sys_text(const char *dir, const char *attr, char *buf, size_t size)
{
	char path[PATH_MAX];
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "%s/%s", dir, attr);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* The attribute as a number ("0x8086\n", "11\n"); -1 if unreadable. */
static long long read_num(const char *dir, const char *attr)
{
	char buf[64], *end;
	long long v;

	if (sys_text(dir, attr, buf, sizeof buf) < 0)
		return -1;
	v = strtoll(buf, &end, 0);
	return *end == '\n' && end > buf ? v : -1;
}

static uint32_t cfg32(const uint8_t *c, int off)
{
	return c[off] | c[off + 1] << 8 | c[off + 2] << 16 | (uint32_t)c[off + 3] << 24;
}

static uint16_t cfg16(const uint8_t *c, int off)
{
	return (uint16_t)(c[off] | c[off + 1] << 8);
}

/* Each BAR of the config space against its line of resource: a memory
 * or I/O BAR's address is the line's start (64-bit BARs take two). */
static bool resource_matches(const char *dir, const uint8_t *cfg, int nbars)
{
	char text[4096], *line = text;
	unsigned long long start[7] = {0}, end, flags;
	int lines = 0;

	if (sys_text(dir, "resource", text, sizeof text) < 0)
		return false;
	while (lines < 7 &&
	       sscanf(line, "0x%llx 0x%llx 0x%llx", &start[lines], &end, &flags) == 3) {
		lines++;
		if (!(line = strchr(line, '\n')))
			break;
		line++;
	}
	if (lines < nbars)
		return false;
	for (int i = 0; i < nbars; i++) {
		uint32_t bar = cfg32(cfg, 0x10 + 4 * i);
		unsigned long long addr = bar & 1 ? bar & ~3u : bar & ~0xfu;

		if (!(bar & 1) && (bar & 6) == 4 && i + 1 < nbars) {
			addr |= (unsigned long long)cfg32(cfg, 0x14 + 4 * i) << 32;
			if (addr && start[i] != addr)
				return false;
			i++;
			continue;
		}
		if (addr && start[i] != addr)
			return false;
	}
	return true;
}

/* uevent's PCI_ID, PCI_CLASS and PCI_SLOT_NAME lines agree with cfg. */
static bool uevent_matches(const char *dir, const char *name, const uint8_t *cfg)
{
	char text[1024], want[128];
	uint32_t class = cfg32(cfg, 8) >> 8;

	if (sys_text(dir, "uevent", text, sizeof text) < 0)
		return false;
	snprintf(want, sizeof want, "PCI_ID=%04X:%04X\n", cfg16(cfg, 0), cfg16(cfg, 2));
	if (!strstr(text, want))
		return false;
	snprintf(want, sizeof want, "PCI_CLASS=%X\n", class);
	if (!strstr(text, want))
		return false;
	snprintf(want, sizeof want, "PCI_SLOT_NAME=%s\n", name);
	return strstr(text, want) != NULL;
}

/* One function: every attribute against its configuration space. */
static bool function_ok(const char *name, uint32_t *class_out)
{
	char dir[PATH_MAX], real[PATH_MAX], drv[PATH_MAX + 16];
	uint8_t cfg[64];
	int fd, type;
	bool good = true;

	snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", name);
	snprintf(drv, sizeof drv, "%s/config", dir);
	if ((fd = open(drv, O_RDONLY)) < 0 || read(fd, cfg, sizeof cfg) != sizeof cfg) {
		diag("%s: config unreadable", name);
		return false;
	}
	close(fd);
	type = cfg[0x0e] & 0x7f;
	*class_out = cfg32(cfg, 8) >> 8;
	good &= read_num(dir, "vendor") == cfg16(cfg, 0);
	good &= read_num(dir, "device") == cfg16(cfg, 2);
	good &= read_num(dir, "class") == (cfg32(cfg, 8) >> 8);
	good &= read_num(dir, "revision") == cfg[8];
	if (type == 0) {
		good &= read_num(dir, "subsystem_vendor") == cfg16(cfg, 0x2c);
		good &= read_num(dir, "subsystem_device") == cfg16(cfg, 0x2e);
	}
	good &= read_num(dir, "irq") >= 0;
	good &= resource_matches(dir, cfg, type == 0 ? 6 : type == 1 ? 2 : 0);
	good &= uevent_matches(dir, name, cfg);
	/* The link leads to a directory under /sys/devices named the same. */
	good &= realpath(dir, real) && !strncmp(real, "/sys/devices/pci", 16) &&
		!strcmp(strrchr(real, '/') + 1, name);
	snprintf(drv, sizeof drv, "%s/driver", dir);
	if (realpath(drv, real))
		good &= !strncmp(real, "/sys/bus/pci/drivers/", 21);
	if (!good)
		diag("%s: an attribute disagrees with its configuration space", name);
	return good;
}

int main(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int n = 0, bad = 0;
	bool host_bridge = false, isa_bridge = false, named = true, fdk = on_fdkernel();

	if (!d && !fdk)
		skip_all("no /sys/bus/pci on this host");
	plan(5);
	require(d != NULL, "/sys/bus/pci/devices opens");
	while ((e = readdir(d))) {
		unsigned int dom, bus, slot, fn;
		uint32_t class = 0;
		char tail;

		if (e->d_name[0] == '.')
			continue;
		if (sscanf(e->d_name, "%4x:%2x:%2x.%1x%c", &dom, &bus, &slot, &fn, &tail) != 4 ||
		    slot > 31 || fn > 7)
			named = false;
		n++;
		bad += !function_ok(e->d_name, &class);
		host_bridge |= class >> 8 == 0x0600;
		isa_bridge |= class >> 8 == 0x0601;
	}
	closedir(d);
	ok(n > 0, "functions listed (%d)", n);
	ok(named, "each is named domain:bus:slot.function");
	is_int(bad, 0, "every function's attributes agree with its configuration space");
	ok(host_bridge || !fdk, "a host bridge (class 0600) is among them");
	ok(isa_bridge || !fdk, "an ISA bridge (class 0601, q35's LPC) is among them");
	return done();
}
