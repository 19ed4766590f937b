/*
 * vsnprintk: the one formatter behind printk and snprintk.  Supports the
 * conversions the kernel uses (see lib/printk.h) with width, '0' and '-'.
 */
#include <stdbool.h>
#include <stdint.h>
#include "lib/printk.h"
#include "lib/string.h"

struct outbuf {
	char *buf;
	size_t size;
	size_t len; /* characters produced, even past size */
};

static void put(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

struct spec {
	int width;
	bool zero;
	bool left;
};

static void put_padded(struct outbuf *o, const struct spec *sp, const char *s, int len)
{
	int pad = sp->width > len ? sp->width - len : 0;

	if (!sp->left)
		while (pad-- > 0)
			put(o, sp->zero ? '0' : ' ');
	/* Keep a sign ahead of zero padding: "-0042", not "00-42". */
	for (int i = 0; i < len; i++)
		put(o, s[i]);
	if (sp->left)
		while (pad-- > 0)
			put(o, ' ');
}

static void put_number(struct outbuf *o, struct spec sp, uint64_t v, unsigned base, bool neg,
		       bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg) {
		if (sp.zero && sp.width > 0) {
			put(o, '-');
			sp.width--;
		} else {
			tmp[n++] = '-';
		}
	}
	char out[24];
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	put_padded(o, &sp, out, n);
}

/* Reads the length modifier (l, ll, z) and returns the argument's size. */
static int parse_length(const char **fmt)
{
	int size = 4;

	while (**fmt == 'l' || **fmt == 'z') {
		size = 8;
		(*fmt)++;
	}
	return size;
}

static void format_one(struct outbuf *o, const char **fmtp, va_list *ap)
{
	const char *fmt = *fmtp;
	struct spec sp = {0, false, false};

	for (;; fmt++) {
		if (*fmt == '0')
			sp.zero = true;
		else if (*fmt == '-')
			sp.left = true;
		else
			break;
	}
	while (*fmt >= '0' && *fmt <= '9')
		sp.width = sp.width * 10 + (*fmt++ - '0');
	int size = parse_length(&fmt);
	char c = *fmt ? *fmt++ : '\0';
	*fmtp = fmt;

	switch (c) {
	case 'd':
	case 'i': {
		int64_t v = size == 8 ? va_arg(*ap, int64_t) : va_arg(*ap, int);
		put_number(o, sp, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0, false);
		break;
	}
	case 'u':
	case 'o':
	case 'x':
	case 'X': {
		uint64_t v = size == 8 ? va_arg(*ap, uint64_t) : va_arg(*ap, unsigned);
		put_number(o, sp, v, c == 'u' ? 10 : c == 'o' ? 8 : 16, false, c == 'X');
		break;
	}
	case 'p':
		put(o, '0');
		put(o, 'x');
		sp.zero = true;
		sp.width = 16;
		put_number(o, sp, (uintptr_t)va_arg(*ap, void *), 16, false, false);
		break;
	case 's': {
		const char *s = va_arg(*ap, const char *);
		int len = 0;
		if (!s)
			s = "(null)";
		while (s[len])
			len++;
		sp.zero = false;
		put_padded(o, &sp, s, len);
		break;
	}
	case 'c': {
		char ch = (char)va_arg(*ap, int);
		put_padded(o, &sp, &ch, 1);
		break;
	}
	case '%':
		put(o, '%');
		break;
	default: /* unknown conversion: show it rather than guess */
		put(o, '%');
		if (c)
			put(o, c);
	}
}

int vsnprintk(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = {buf, size, 0};
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		fmt++;
		format_one(&o, &fmt, &aq);
	}
	va_end(aq);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

void appendk(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintk(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	*len += strlen(buf + *len);
}

int snprintk(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintk(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
