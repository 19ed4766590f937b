/*
 * Kernel command-line parsing.  Words are separated by spaces; `key=value`
 * words set options.  Unknown words are reported and ignored, so a typo never
 * stops a boot.
 */
#include "cmdline.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "sys/strace.h"

struct kernel_options kopts = {.init = "/bin/init", .smp = true};

static void apply_word(const char *w, size_t len)
{
	char word[96];

	if (len >= sizeof(word)) {
		printk("cmdline: word too long, ignored\n");
		return;
	}
	memcpy(word, w, len);
	word[len] = '\0';
	if (!strcmp(word, "test"))
		kopts.test = true;
	else if (!strcmp(word, "bench"))
		kopts.bench = true;
	else if (!strcmp(word, "quiet"))
		kopts.quiet = true;
	else if (!strcmp(word, "profile"))
		kopts.profile = true;
	else if (!strcmp(word, "crashtest"))
		kopts.crashtest = true;
	else if (!strncmp(word, "init=", 5) && word[5] == '/')
		strlcpy(kopts.init, word + 5, sizeof(kopts.init));
	else if (!strncmp(word, "strace=", 7) && strace_target_ok(word + 7))
		strlcpy(kopts.strace, word + 7, sizeof(kopts.strace));
	else if (!strncmp(word, "strace=", 7))
		printk("cmdline: bad strace target '%s' ignored (a program name, all or off)\n",
		       word + 7);
	else if (!strcmp(word, "smp=on") || !strcmp(word, "smp=off"))
		kopts.smp = word[5] == 'n';
	else if (!strcmp(word, "pci=nomsi"))
		kopts.pci_nomsi = true;
	else if (!strcmp(word, "heaptrace"))
		kopts.heaptrace = true;
	else if (!strcmp(word, "norandmaps"))
		kopts.norandmaps = true;
	else if (!strcmp(word, "tsc=unstable"))
		kopts.tsc_unstable = true;
	else if (!strcmp(word, "enosys=log"))
		kopts.enosys_log = true;
	else if (!strcmp(word, "lockdeptest=cycle") || !strcmp(word, "lockdeptest=sleep"))
		strlcpy(kopts.lockdeptest, word + 12, sizeof(kopts.lockdeptest));
	else if (!strncmp(word, "ramfs_size=", 11))
		strlcpy(kopts.ramfs_size, word + 11, sizeof(kopts.ramfs_size));
	else if (!strncmp(word, "root=", 5))
		strlcpy(kopts.root, word + 5, sizeof(kopts.root));
	else if (!strcmp(word, "ro") || !strcmp(word, "rw"))
		kopts.root_rw = word[1] == 'w';
	else if (!strncmp(word, "rootfstype=", 11))
		strlcpy(kopts.rootfstype, word + 11, sizeof(kopts.rootfstype));
	else if (!strncmp(word, "rootflags=", 10))
		strlcpy(kopts.rootflags, word + 10, sizeof(kopts.rootflags));
	else
		printk("cmdline: unknown word '%s' ignored\n", word);
}

void cmdline_parse(const char *s)
{
	while (*s) {
		while (*s == ' ')
			s++;
		const char *start = s;
		while (*s && *s != ' ')
			s++;
		if (s > start)
			apply_word(start, (size_t)(s - start));
	}
	printk_set_quiet(kopts.quiet);
}
