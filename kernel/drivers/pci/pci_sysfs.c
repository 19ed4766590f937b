/*
 * /sys/bus/pci and /sys/devices/pci0000:00 as Linux lays them out: a
 * directory per function (nested under its bridge), its attributes in
 * Linux's formats, and /sys/bus/pci/devices/<name> linking to it.  Made
 * once after the drivers probed (fs/sysfs/sysfs.h: the values are those
 * of a machine whose devices never change after boot).
 */
#include "drivers/pci/pci.h"
#include "fs/sysfs/sysfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

#define PCI_CAP_ID_EXP 0x10
#define PATH_MAX_SYS   256
#define RESOURCE_LINES 13 /* Linux's, for a function (6 BARs, ROM, 6 SR-IOV) */

/* The directory of d under /sys/devices, into buf (PATH_MAX_SYS). */
static void device_dir(const struct pci_dev *d, char *buf)
{
	char name[13];
	size_t len;

	if (d->parent)
		device_dir(d->parent, buf);
	else
		strlcpy(buf, "/sys/devices/pci0000:00", PATH_MAX_SYS);
	len = strlen(buf);
	pci_name(d, name);
	snprintk(buf + len, PATH_MAX_SYS - len, "/%s", name);
}

static int add_text(const char *dir, const char *attr, const char *text)
{
	char path[PATH_MAX_SYS + 32];

	snprintk(path, sizeof path, "%s/%s", dir, attr);
	return sysfs_add_file(path, 0444, text, strlen(text));
}

static void format_resource(const struct pci_dev *d, char *buf, size_t size)
{
	size_t len = 0;

	for (int i = 0; i < RESOURCE_LINES; i++) {
		const struct pci_bar *b = i <= PCI_NBARS ? &d->bar[i] : NULL;
		uint64_t start = b && b->size ? b->base : 0,
			 end = b && b->size ? b->base + b->size - 1 : 0;
		appendk(buf, size, &len, "0x%016lx 0x%016lx 0x%016lx\n", start, end,
			b && b->size ? (uint64_t)b->flags : 0);
	}
}

static void format_uevent(const struct pci_dev *d, char *buf, size_t size)
{
	char name[13];
	size_t len = 0;

	pci_name(d, name);
	if (d->driver)
		appendk(buf, size, &len, "DRIVER=%s\n", d->driver);
	appendk(buf, size, &len,
		"PCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n"
		"MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
		d->class, d->vendor, d->device, d->subsys_vendor, d->subsys_device, name, d->vendor,
		d->device, d->subsys_vendor, d->subsys_device, d->class >> 16,
		(d->class >> 8) & 0xff, d->class & 0xff);
}

/* The configuration space as the device holds it now: 4 KiB for a PCI
 * Express function reached through ECAM, else 256 bytes (Linux's sizes). */
static int add_config(const struct pci_dev *d, const char *dir)
{
	int size = d->ecam && pci_find_cap(d, PCI_CAP_ID_EXP, 0) ? 4096 : 256;
	uint32_t *buf = kmalloc((size_t)size);
	char path[PATH_MAX_SYS + 32];
	int err;

	if (!buf)
		return -ENOMEM;
	for (int off = 0; off < size; off += 4)
		buf[off / 4] = pci_read32(d, (uint16_t)off);
	snprintk(path, sizeof path, "%s/config", dir);
	err = sysfs_add_file(path, 0444, buf, (size_t)size);
	kfree(buf);
	return err;
}

static int add_attrs(const struct pci_dev *d, const char *dir)
{
	char text[RESOURCE_LINES * 60];
	int err = 0;

#define ATTR(name, ...)                                                                            \
	do {                                                                                       \
		snprintk(text, sizeof text, __VA_ARGS__);                                          \
		err = err ?: add_text(dir, name, text);                                            \
	} while (0)
	ATTR("vendor", "0x%04x\n", d->vendor);
	ATTR("device", "0x%04x\n", d->device);
	ATTR("subsystem_vendor", "0x%04x\n", d->subsys_vendor);
	ATTR("subsystem_device", "0x%04x\n", d->subsys_device);
	ATTR("class", "0x%06x\n", d->class);
	ATTR("revision", "0x%02x\n", d->revision);
	ATTR("irq", "%u\n", d->gsi);
#undef ATTR
	format_resource(d, text, sizeof text);
	err = err ?: add_text(dir, "resource", text);
	format_uevent(d, text, sizeof text);
	err = err ?: add_text(dir, "uevent", text);
	return err ?: add_config(d, dir);
}

/* The driver's directory under /sys/bus/pci/drivers and the device's
 * "driver" link to it, relative: one ".." per level of dir below /sys. */
static int add_driver_link(const struct pci_dev *d, const char *dir)
{
	char path[PATH_MAX_SYS + 32], target[PATH_MAX_SYS] = "";
	size_t len = 0;
	int err;

	snprintk(path, sizeof path, "/sys/bus/pci/drivers/%s", d->driver);
	err = sysfs_mkdir(path);
	if (err && err != -EEXIST) /* EEXIST: a second device of the driver */
		return err;
	for (const char *p = dir + strlen("/sys"); *p; p++)
		if (*p == '/')
			appendk(target, sizeof target, &len, "../");
	appendk(target, sizeof target, &len, "%s", path + strlen("/sys/"));
	snprintk(path, sizeof path, "%s/driver", dir);
	return sysfs_add_link(path, target);
}

static int add_device(const struct pci_dev *d)
{
	char dir[PATH_MAX_SYS], link[64], target[PATH_MAX_SYS + 16], name[13];
	int err;

	device_dir(d, dir);
	pci_name(d, name);
	if ((err = sysfs_mkdir(dir)) || (err = add_attrs(d, dir)))
		return err;
	if (d->driver && (err = add_driver_link(d, dir)))
		return err;
	snprintk(link, sizeof link, "/sys/bus/pci/devices/%s", name);
	snprintk(target, sizeof target, "../../..%s", dir + 4); /* from /sys/bus/pci/devices */
	return sysfs_add_link(link, target);
}

void pci_sysfs_init(void)
{
	static const char *const dirs[] = {"/sys/bus",
					   "/sys/bus/pci",
					   "/sys/bus/pci/devices",
					   "/sys/bus/pci/drivers",
					   "/sys/devices",
					   "/sys/devices/pci0000:00"};
	int err = 0;

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && !err; i++)
		err = sysfs_mkdir(dirs[i]);
	for (int i = 0; i < pci_count() && !err; i++)
		err = add_device(pci_get(i));
	if (err)
		printk("pci: /sys/bus/pci incomplete (%d)\n", err);
}
